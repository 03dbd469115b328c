"""Judging answers that are values: multiple choice, measured numbers, results or errors.

>>> choice("b", "b"), verdict(0.1 + 0.2, 0.3, close)
('right', 'right')
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from book.checks.core import equal, same

LETTERS = ("a", "b", "c", "d")


def choice(answer: Any, right: str) -> str:
    """'right', 'wrong', or what is wrong with the form of a multiple-choice answer.

    >>> choice("b", "b"), choice("a", "b"), choice("B", "b")
    ('right', 'wrong', 'not one of a, b, c, d (one lower-case letter in quotes)')
    """
    if not isinstance(answer, str) or answer not in LETTERS:
        return f"not one of {', '.join(LETTERS)} (one lower-case letter in quotes)"
    return "right" if answer == right else "wrong"


def readable(value: Any) -> str:
    r"""repr(value), with combining marks written as escapes, so that 'e\u0301' is not read as 'é'.

    >>> print(readable("cafe\u0301"))
    'cafe\u0301'
    """
    return "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch).startswith("M") else ch
        for ch in repr(value)
    )


def verdict(value: Any, expected: Any, compare=equal) -> str:
    """'right' or 'wrong': a measured answer judged without showing the expected value."""
    return "right" if same(compare, value, expected) else "wrong"


def close(got: Any, expected: Any) -> bool:
    """Floats equal up to rounding (so do tuples and lists of them); anything else by equal.

    >>> close(0.1 + 0.2, 0.3), close((1.0, 2.0), (1.0, 2.0000000001)), close(1, 1.0)
    (True, True, False)
    """
    if isinstance(expected, float):
        return isinstance(got, float) and math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(got, type(expected))
            and len(got) == len(expected)
            and all(map(close, got, expected))
        )
    return equal(got, expected)


def result_or_error(function, *args):
    """function(*args), or 'ValueError' (or the exception's name) when it raises."""
    try:
        return function(*args)
    except NotImplementedError:
        raise
    except ValueError:
        return "ValueError"
    except Exception as error:  # the learner may raise anything; we name it
        return type(error).__name__
