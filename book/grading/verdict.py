"""The judge's verdict on one task: what became of each call, against the expected values.

Everything here runs in the judge's process. Each call's outcome is a line the kernel wrote,
already checked against its shape (``record``), or the reason there is none (a time limit, a
dead kernel, a malformed line); the expected values come from the check module's Task. The first
failing fixed case is reported, as the notebook's own check would, with the same hint; when every
fixed case passes and a hidden one fails, the answer fits the cases the learner could see but not
the task, which is what hard-coded answers look like, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from book.checks.core import NOT_ATTEMPTED, equal, same, show
from book.checks.spec import Call, Raises, Task

BLOCKED = "ReferenceUnavailable"
UNDEFINED = (
    "`{name}` is not defined yet — write it in the cell above and run that cell "
    "(if the cell raised an error, fix that first)"
)
NO_RESULT = (
    "the grader got no result for {label}: its cell ran, but the grader's hook never answered "
    "(did the notebook replace sys.audit or __import__, which the grader's cells use, or close "
    "the grader's pipes?)"
)


@dataclass(frozen=True)
class TaskGrade:
    """One task of one submission: points, status, what went wrong (message) and its class."""

    task: str
    points: int
    max_points: int
    status: str  # passed, failed, timed out, error, not run
    message: str = ""
    error_class: str = ""  # '' when passed; else e.g. wrong, hidden cases, undefined, timeout


@dataclass
class CallOutcome:
    """What became of one call: the kernel's checked line, or why there is none (problem, kind)."""

    line: dict | None = None
    problem: str = ""
    kind: str = ""


def _with_hint(detail: str, hint: str) -> str:
    """The detail as a sentence, then the task's hint."""
    return f"{detail}." + (f" Hint: {hint}" if hint else "")


def difference(expected: Any, got: Any, where: str = "") -> str:
    """Where got first differs from expected, for when their short reprs look the same.

    >>> difference([1, [2, 3]], [1, [2, 4]])
    'at [1][1]: expected 3, got 4'
    >>> difference({"a": 1}, {"a": 1, "b": 2}), difference((1,), [1])
    ("unexpected key 'b'", 'type list, not tuple')
    """
    at = f"at {where}: " if where else ""
    if type(got) is not type(expected):
        return f"{at}type {type(got).__name__}, not {type(expected).__name__}"
    if isinstance(expected, (list, tuple, str, bytes)):
        for index, (e, g) in enumerate(zip(expected, got)):
            if not equal(g, e):
                if isinstance(expected, (str, bytes)):
                    return f"at {where}[{index}]: expected {show(e)}, got {show(g)}"
                return difference(e, g, f"{where}[{index}]")
        return f"{at}{len(got)} items, not {len(expected)}"
    if isinstance(expected, dict):
        for key in expected:
            if key not in got:
                return f"{at}key {show(key, 40)} missing"
        for key in got:
            if key not in expected:
                return f"{at}unexpected key {show(key, 40)}"
            if not equal(got[key], expected[key]):
                return difference(expected[key], got[key], f"{where}[{show(key, 40)}]")
    return f"{at}expected {show(expected)}, got {show(got)}"


def mismatch(label: str, expected: Any, got: Any) -> str:
    """'label — expected X, got Y', with where they differ when X and Y read the same."""
    detail = f"{label} — expected {show(expected)}, got {show(got)}"
    if show(got) == show(expected) or type(got) is not type(expected):
        detail += f" ({difference(expected, got)})"
    return detail


def _raised(call: Call, result: dict) -> tuple[str, str]:
    """(error class, detail) for a call that raised where a value was expected."""
    classes, message = result["raised"], result["message"]
    name = classes[0] if classes else "?"
    if BLOCKED in classes:
        return "blocked", f"{call.label} used code that is not available while grading: {message}"
    text = show(message, 80) if message else "(no message)"
    return "raised", f"{call.label} raised {name}: {text}"


def case_failure(call: Call, result: dict, compare) -> tuple[str, str] | None:
    """None when the call's result is right, else (error class, detail)."""
    if result.get("raised", [""])[:1] == ["NotImplementedError"]:
        return "not attempted", NOT_ATTEMPTED
    expected = call.expected
    if isinstance(expected, Raises):
        if expected.name in result.get("raised", []):
            return None
        if "raised" in result:
            kind, detail = _raised(call, result)
            return kind, f"{detail} (expected {expected.name})"
        return (
            "wrong",
            f"{call.label} should raise {expected.name}, but returned {show(result['ok'])}",
        )
    if "raised" in result:
        return _raised(call, result)
    if same(compare, result["ok"], expected):
        return None
    return "wrong", mismatch(call.label, expected, result["ok"])


def _stopped(task: Task, outcome: CallOutcome, call: Call) -> TaskGrade:
    """The grade of a task whose call has no usable line: why, as the report says it."""
    problem, kind = outcome.problem, outcome.kind
    if kind == "timeout":
        return TaskGrade(
            task.name, 0, task.points, "timed out", f"grading this task {problem}", kind
        )
    if kind == "not run":
        return TaskGrade(task.name, 0, task.points, "not run", problem, kind)
    if kind == "kernel died":
        return TaskGrade(
            task.name, 0, task.points, "error", f"while grading this task, {problem}", kind
        )
    return TaskGrade(
        task.name,
        0,
        task.points,
        "error",
        problem or NO_RESULT.format(label=call.label),
        kind or "no result",
    )


def _line_problem(task: Task, line: dict) -> TaskGrade | None:
    """The grade when a call's line shows the task cannot be called at all, else None."""
    values = {call.expr for call in task.calls}
    answers = line.get("answers", {})
    for name in task.answers:
        if name not in answers:
            message = UNDEFINED.format(name=name) + "."
            return TaskGrade(task.name, 0, task.points, "failed", message, "undefined")
        if name not in values and not answers[name]["callable"]:
            info = answers[name]
            message = (
                f"`{name}` should be a function, but it is {info['type']} {info['repr'][:40]}."
            )
            return TaskGrade(task.name, 0, task.points, "failed", message, "not a function")
    if line.get("setup_error"):
        message = f"the grader could not prepare this task: {line['setup_error']}"
        return TaskGrade(task.name, 0, task.points, "error", message, "grader")
    return None


def judge_task(task: Task, outcomes: list[CallOutcome | None]) -> TaskGrade:
    """The verdict for one task from its calls' outcomes (None: a call not made, because the task
    had already stopped)."""
    made = [(call, outcome) for call, outcome in zip(task.calls, outcomes) if outcome is not None]
    failures = []
    for call, outcome in made:
        if outcome.line is None:
            return _stopped(task, outcome, call)
        stop = _line_problem(task, outcome.line)
        if stop:
            return stop
        if "result" not in outcome.line:
            error = outcome.line.get("error", "")
            failed = (
                f"the grader's call {call.label} failed in the kernel: {error}" if error else ""
            )
            return _stopped(task, CallOutcome(None, failed, "grader" if error else ""), call)
        failure = case_failure(call, outcome.line["result"], task.compare)
        if failure:
            failures.append((call, *failure))
            if failure[0] == "not attempted":
                break
    fixed = [failure for failure in failures if not failure[0].hidden]
    if fixed:
        _, kind, detail = fixed[0]
        if kind == "not attempted":
            return TaskGrade(task.name, 0, task.points, "failed", f"{detail}.", kind)
        return TaskGrade(task.name, 0, task.points, "failed", _with_hint(detail, task.hint), kind)
    if failures:
        _, kind, detail = failures[0]
        n_fixed = sum(not call.hidden for call in task.calls)
        note = (
            f"all {n_fixed} cases of the notebook's check pass, but a hidden case fails, as an "
            f"answer written for those cases would: hidden case {detail}"
        )
        return TaskGrade(
            task.name, 0, task.points, "failed", _with_hint(note, task.hint), "hidden cases"
        )
    if len(made) < len(task.calls):
        return TaskGrade(task.name, 0, task.points, "not run", "not every case was run", "not run")
    return TaskGrade(task.name, task.points, task.points, "passed")
