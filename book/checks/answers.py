"""Answers that are floats: equal up to rounding (a spec's ``compare``).

>>> close(0.1 + 0.2, 0.3)
True
"""

from __future__ import annotations

import math
from typing import Any

from book.checks.core import equal


def close(got: Any, expected: Any) -> bool:
    """Floats equal up to rounding (so do tuples and lists of them, and the values of dicts with
    the same keys); anything else by equal.

    >>> close(0.1 + 0.2, 0.3), close((1.0, 2.0), (1.0, 2.0000000001)), close(1, 1.0)
    (True, True, False)
    >>> close({"a": {"b": 0.1 + 0.2}}, {"a": {"b": 0.3}}), close({"a": 1.0}, {"b": 1.0})
    (True, False)
    """
    if isinstance(expected, dict):
        return (
            isinstance(got, dict)
            and got.keys() == expected.keys()
            and all(close(got[key], value) for key, value in expected.items())
        )
    if isinstance(expected, float):
        return isinstance(got, float) and math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(got, type(expected))
            and len(got) == len(expected)
            and all(map(close, got, expected))
        )
    return equal(got, expected)
