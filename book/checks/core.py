"""The check line, and how answers compare: what every check cell and the judge share.

A check cell (``chNN.check("name", globals().get("name"))``, from the chapter's specs, see
``book.checks``) prints exactly one line, which the exercise notebook stores as the cell's output
and which ``pytest --nbval-lax`` and ``python -m book.grade`` compare against:

    ✔ char_codes: all 2 groups passed (10 cases) — 2/2 points
    ✘ utf8_size: groups passed: none; failed: the examples, random texts — utf8_size('é') —
    expected 2, got 1. Hint: count bytes, not characters: ... — 0/2 points

The passing line depends only on the task (its groups, cases and points), so it is the same
bytes in every run. The learner's prints, displays and exceptions never escape a check: a
failure is reported in the line, without a traceback.

These lines are for learning. The grade comes from the judge (``python -m book.grade``,
``book.grading``), which never believes a line the learner's kernel prints: it runs the
learner's cells in a sandbox, calls their functions on the same cases and on hidden ones drawn
afresh, and compares the plain values it gets back, with the same scoring
(``book.checks.outcomes``), against the values the reference computes in the judge's own process.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Compare = Callable[[Any, Any], bool]

# The passing line, parsed by the exercise generator to learn each task's name and points.
PASS_LINE = re.compile(r"✔ (?P<task>[\w.-]+): .+ — (?P<points>\d+)/(?P=points) points?")
NOT_ATTEMPTED = (
    "not attempted yet — replace `raise NotImplementedError()` with your code and run the cell"
)


@dataclass(frozen=True)
class Result:
    """The outcome of one task: the points earned and the line to print."""

    task: str
    points: int
    max_points: int
    line: str


def show(value: Any, limit: int = 100) -> str:
    """A short, deterministic repr: sets sorted, long reprs cut.

    >>> show({'b', 'a'})
    "{'a', 'b'}"
    """
    if isinstance(value, (set, frozenset)) and value:
        text = "{" + ", ".join(sorted(map(show, value))) + "}"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def points_text(points: int, max_points: int) -> str:
    """'2/2 points', '0/1 point'."""
    return f"{points}/{max_points} point{'' if max_points == 1 else 's'}"


def equal(got: Any, expected: Any) -> bool:
    """Structural ==: a list is not a tuple, 3.0 is not 3, a Counter may stand for a dict.

    Containers are compared item by item and everything else with the expected type's own ==, so
    an answer cannot pass by overriding __eq__.
    """
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(got, type(expected))
            and len(got) == len(expected)
            and all(map(equal, got, expected))
        )
    if isinstance(expected, dict):
        return (
            isinstance(got, dict)
            and got.keys() == expected.keys()
            and all(equal(got[key], expected[key]) for key in expected)
        )
    return type(got) is type(expected) and bool(expected == got)


def same(compare: Compare, got: Any, expected: Any) -> bool:
    """compare(got, expected), where a comparison that raises counts as different."""
    try:
        return bool(compare(got, expected))
    except Exception:
        return False


def pass_line(task: str, n_groups: int, n_cases: int, points: int) -> str:
    """The line of a task whose every group passed: it depends on nothing the answer does."""
    return (
        f"✔ {task}: all {n_groups} groups passed ({n_cases} cases) — {points_text(points, points)}"
    )


def fail_line(task: str, detail: str, points: int, max_points: int) -> str:
    """The line of a task that lost points: what went wrong, then the points it kept."""
    return f"✘ {task}: {detail} — {points_text(points, max_points)}"


def unusable(task: str, points: int, name: str, answer: Any) -> Result | None:
    """A failing Result when the answer is not defined (None) or not a function, else None."""
    if answer is None:
        detail = (
            f"`{name}` is not defined yet — write it in the cell above and run that cell "
            "(if the cell raised an error, fix that first)."
        )
    elif not callable(answer):
        kind = type(answer).__name__
        detail = f"`{name}` should be a function, but it is {kind} {show(answer, 40)}."
    else:
        return None
    return Result(task, 0, points, fail_line(task, detail, 0, points))


def report(result: Result) -> None:
    """Print the result's line (and return None, so the check cell shows nothing else)."""
    print(result.line)
