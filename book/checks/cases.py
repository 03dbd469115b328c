"""Checks as tables of cases: the learner's function against the reference, argument by argument.

A case is ``(arguments, note)``; the note says what mistake the case targets and shows in its
label (``train_bpe(...) [a pair that overlaps itself]``). The same cases feed the notebook's
instant check (:func:`check_on_cases`) and the judge's calls (:func:`judge_calls`), whose
expected values the reference computes in the judge's own process.

>>> case_label("merge", ([1, 2, 1, 2], (1, 2)), "twice")
'merge([1, 2, 1, 2], (1, 2)) [twice]'
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from book.checks.core import Case, Compare, check_cases, equal
from book.checks.spec import Call, Cases, Raises, case_label, short_arg  # noqa: F401 (chapters import them here)


def outcome(function: Callable, *args: Any) -> Any:
    """function(*args), or Raises('ValueError') when it raises a ValueError (or a subclass)."""
    try:
        return function(*args)
    except NotImplementedError:
        raise  # "not attempted", not a wrong answer
    except ValueError:
        return Raises("ValueError")


def check_on_cases(
    task: str,
    answer: Any,
    reference: Callable,
    cases: Cases,
    points: int,
    hint: str,
    extra: Sequence[Case] = (),
    compare: Compare = equal,
) -> None:
    """Check answer(*args) against reference(*args) on each case, on copies of the arguments."""
    checks = [
        Case(
            case_label(task, args, note),
            lambda args=args: outcome(answer, *copy.deepcopy(args)),
            outcome(reference, *copy.deepcopy(args)),
        )
        for args, note in cases
    ]
    check_cases(task, {task: answer}, [*checks, *extra], points, hint, compare)


def judge_calls(name: str, reference: Callable, cases: Cases, hidden: bool) -> list[Call]:
    """The judge's calls for the cases, expected values computed by the reference."""
    return [
        Call(
            case_label(name, args, note),
            f"{name}({', '.join(f'a{i}' for i in range(len(args)))})",
            args,
            outcome(reference, *copy.deepcopy(args)),
            hidden,
        )
        for args, note in cases
    ]
