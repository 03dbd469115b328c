"""The check framework: run a learner's answer on cases and print one deterministic line.

A check prints exactly one line, which is what the exercise notebook stores as the check cell's
output and what ``pytest --nbval-lax`` and ``python -m book.grade`` compare against:

    ✔ char_codes: all 3 cases passed — 2/2 points
    ✘ char_codes: char_codes('é') — expected [233], got [101]. Hint: ... — 0/2 points

The passing line depends only on the check (task, number of cases, points), so it is the same
bytes in every run. The learner's prints, displays and exceptions never escape a check: a
failure is reported in the line, without a traceback.

These lines are for learning. The grade comes from the judge (``python -m book.grade``,
``book.grading``), which never believes a line the learner's kernel prints: it runs the
learner's cells in a sandbox, calls their functions on fixed and hidden cases, and compares the
plain values it gets back with values the book's reference computes in the judge's own process.
For that, a chapter's check module ``book/checks/chNN.py`` provides, besides its check functions:

- ``judge_tasks(rng: random.Random) -> list[spec.Task]``: one Task per graded task, with the same
  name and points as the check's passing line (a test compares them with the exercise), the
  names the learner defines (``answers``), and the calls: the check's fixed cases and hidden
  ones drawn from ``rng`` (``spec.function_task``, ``spec.value_task``, ``spec.calls_of``, or
  ``spec.Call`` for any expression). Expected values are computed there, with the reference;
  arguments must be plain data (str, bytes, int, float, bool, None, list, tuple, dict, set);
  what is not (a function, a tokenizer object) is built in the learner's kernel by the Task's
  ``setup`` source from ``data``, using only modules the exercise notebook may import.
  A value the learner computes (not a function) cannot have hidden cases.
- ``REFERENCE: tuple[str, ...]``: the modules of ``book`` the exercise asks the learner to
  rebuild (a package name covers its modules). While grading they are stubs that raise
  "write this yourself; the reference is not available while grading"; ``book.checks``,
  ``book.grade``, ``book.grading``, ``book.exercises`` and ``book.notebooks`` always are. Leave
  out what the notebook itself imports (data, display, an earlier chapter's tokenizer).

``book/checks/demo.py`` is the smallest complete example.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from IPython.utils.capture import capture_output

Compare = Callable[[Any, Any], bool]

# The passing line, parsed by the exercise generator to learn each task's name and points.
PASS_LINE = re.compile(r"✔ (?P<task>[\w.-]+): .+ — (?P<points>\d+)/(?P=points) points?")
TASK_NAME = re.compile(r"[\w.-]+")
NOT_ATTEMPTED = (
    "not attempted yet — replace `raise NotImplementedError()` with your code and run the cell"
)


@dataclass(frozen=True)
class Case:
    """One thing to verify: what the learner reads, how to compute the answer, what it must be."""

    label: str
    compute: Callable[[], Any]
    expected: Any


@dataclass(frozen=True)
class Result:
    """The outcome of one task: the points earned and the line to print."""

    task: str
    points: int
    max_points: int
    line: str

    @property
    def passed(self) -> bool:
        """True when every case passed."""
        return self.points == self.max_points


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


def _valid(task: str) -> str:
    """The task name, if it is one the generator can read back from the passing line."""
    if not TASK_NAME.fullmatch(task):
        raise ValueError(f"task name {task!r} must be letters, digits, '_', '.' or '-' (no spaces)")
    return task


def pass_line(task: str, n_cases: int, points: int) -> str:
    """The line a check prints when every case passed."""
    task = _valid(task)
    what = "passed" if n_cases == 1 else f"all {n_cases} cases passed"
    return f"✔ {task}: {what} — {points_text(points, points)}"


def fail_line(task: str, detail: str, points: int, hint: str = "") -> str:
    """The line a check prints for the first failing case."""
    hint_text = f" Hint: {hint}" if hint else ""
    return f"✘ {_valid(task)}: {detail}.{hint_text} — {points_text(0, points)}"


def _raised(label: str, error: Exception) -> str:
    """Say what went wrong when the learner's code raised, without a traceback."""
    message = show(str(error), 80) if str(error) else "(no message)"
    return f"{label} raised {type(error).__name__}: {message}"


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


def run_cases(
    task: str, cases: Iterable[Case], points: int, hint: str = "", compare: Compare = equal
) -> Result:
    """Run cases in order and stop at the first failure; the learner's output is swallowed."""
    n_cases = 0
    for case in cases:
        n_cases += 1
        try:
            with capture_output():  # the learner's prints would break the stored line
                got = case.compute()
        except NotImplementedError:
            return Result(task, 0, points, fail_line(task, NOT_ATTEMPTED, points))
        except (
            Exception
        ) as error:  # not BaseException: KeyboardInterrupt (a timeout) must stop the cell
            return Result(
                task, 0, points, fail_line(task, _raised(case.label, error), points, hint)
            )
        if not same(compare, got, case.expected):
            detail = f"{case.label} — expected {show(case.expected)}, got {show(got)}"
            if show(got) == show(case.expected) or not isinstance(got, type(case.expected)):
                detail += f" (type {type(got).__name__}, not {type(case.expected).__name__})"
            return Result(task, 0, points, fail_line(task, detail, points, hint))
    if n_cases == 0:
        raise ValueError(f"check {task!r} has no cases; give it at least one")
    return Result(task, points, points, pass_line(task, n_cases, points))


def raised(function: Callable, *args: Any) -> str:
    """The name of the exception function(*args) raises, or 'no error': for expected errors.

    Case("f(-1) should raise", lambda: raised(f, -1), "ValueError")
    """
    try:
        function(*args)
    except NotImplementedError:
        raise  # reported as "not attempted", not as a wrong exception
    except Exception as error:
        return type(error).__name__
    return "no error"


def missing(task: str, points: int, **answers: Any) -> Result | None:
    """A failing Result naming the first answer that is not defined (None), else None."""
    for name, answer in answers.items():
        if answer is None:
            detail = (
                f"`{name}` is not defined yet — write it in the cell above and run that cell "
                f"(if the cell raised an error, fix that first)"
            )
            return Result(task, 0, points, fail_line(task, detail, points))
    return None


def not_callable(task: str, points: int, **functions: Any) -> Result | None:
    """A failing Result naming the first of functions that is not a function, else None."""
    for name, function in functions.items():
        if not callable(function):
            kind = type(function).__name__
            detail = f"`{name}` should be a function, but it is {kind} {show(function, 40)}"
            return Result(task, 0, points, fail_line(task, detail, points))
    return None


def report(result: Result) -> None:
    """Print the result's line (and return None, so the check cell shows nothing else)."""
    print(result.line)


def call_label(name: str, args: tuple) -> str:
    """How a call reads to the learner: call_label('f', ('a', 1)) -> "f('a', 1)"."""
    return f"{name}({', '.join(show(arg, 60) for arg in args)})"


def function_cases(name: str, func: Callable, calls: Iterable[tuple[tuple, Any]]) -> list[Case]:
    """Cases calling func(*args) for each (args, expected), on copies: func may mutate them."""
    cases = []
    for args, expected in calls:
        if not isinstance(args, tuple):
            raise TypeError(
                f"the arguments of a case of {name} must be a tuple, like ({args!r},), not {args!r}"
            )
        cases.append(
            Case(call_label(name, args), lambda args=args: func(*copy.deepcopy(args)), expected)
        )
    return cases


def check_function(
    task: str,
    func: Any,
    calls: Iterable[tuple[tuple, Any]],
    points: int,
    hint: str = "",
    compare: Compare = equal,
    name: str | None = None,
) -> None:
    """Check func(*args) == expected for each (args, expected) and print one line.

    check_function("utf8_length", utf8_length, [(("a",), 1), (("é",), 2)], points=2)
    """
    name = name or task
    result = (
        missing(task, points, **{name: func})
        or not_callable(task, points, **{name: func})
        or run_cases(task, function_cases(name, func, calls), points, hint, compare)
    )
    report(result)


def check_value(
    task: str,
    value: Any,
    expected: Any,
    points: int,
    hint: str = "",
    compare: Compare = equal,
    name: str | None = None,
) -> None:
    """Check a value the learner computed (a variable, not a function) and print one line."""
    name = name or task
    result = missing(task, points, **{name: value}) or run_cases(
        task, [Case(name, lambda: value, expected)], points, hint, compare
    )
    report(result)


def check_cases(
    task: str,
    answers: dict[str, Any],
    cases: Iterable[Case],
    points: int,
    hint: str = "",
    compare: Compare = equal,
) -> None:
    """Check custom cases that use the learner's answers (name -> object; all must be defined).

    A Case computes lazily, so its compute may call answers that turn out to be undefined.
    """
    result = missing(task, points, **answers) or run_cases(task, cases, points, hint, compare)
    report(result)
