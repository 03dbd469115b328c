"""The judge's verdict on one task: the kernel's record of the calls against the expected values.

Everything here runs in the judge's process. The record comes from the harness (plain data,
see ``harness``); the expected values come from the check module's Task. The first failing
fixed case is reported, as the notebook's own check would, with the same hint; when every
fixed case passes and a hidden one fails, the answer fits the cases the learner could see but
not the task, which is what hard-coded answers look like, and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from book.checks.core import NOT_ATTEMPTED, same, show
from book.checks.spec import Call, Raises, Task
from book.grading.harness import from_wire

BLOCKED = "ReferenceUnavailable"
UNDEFINED = (
    "`{name}` is not defined yet — write it in the cell above and run that cell "
    "(if the cell raised an error, fix that first)"
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


def _with_hint(detail: str, hint: str) -> str:
    """The detail as a sentence, then the task's hint."""
    return f"{detail}." + (f" Hint: {hint}" if hint else "")


def _raised(call: Call, result: dict) -> tuple[str, str]:
    """(error class, detail) for a call that raised where a value was expected."""
    classes, message = result.get("raised", ["?"]), str(result.get("message", ""))
    name = classes[0] if classes else "?"
    if BLOCKED in classes:
        return "blocked", f"{call.label} used code that is not available while grading: {message}"
    text = show(message, 80) if message else "(no message)"
    return "raised", f"{call.label} raised {name}: {text}"


def case_failure(call: Call, result: dict | None, compare) -> tuple[str, str] | None:
    """None when the call's result is right, else (error class, detail)."""
    if result is None or result.get("raised", [""])[0] == "NotImplementedError":
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
            f"{call.label} should raise {expected.name}, but returned {show(_decoded(result))}",
        )
    if "raised" in result:
        return _raised(call, result)
    got = _decoded(result)
    if same(compare, got, expected):
        return None
    detail = f"{call.label} — expected {show(expected)}, got {show(got)}"
    if show(got) == show(expected) or not isinstance(got, type(expected)):
        detail += f" (type {type(got).__name__}, not {type(expected).__name__})"
    return "wrong", detail


def _decoded(result: dict) -> Any:
    """The value a call returned (an undecodable one becomes a description of the problem)."""
    try:
        return from_wire(result.get("ok"))
    except Exception as error:  # the record is written by the learner's process: never trust it
        return f"<unreadable result: {error}>"


def _answer_problem(task: Task, record: dict) -> str | None:
    """Why the task's answers cannot be called at all (undefined, not a function), or None."""
    answers = record.get("answers", {})
    values = {call.expr for call in task.calls}
    for name in task.answers:
        if name not in answers:
            return UNDEFINED.format(name=name)
        if name not in values and not answers[name].get("callable"):
            info = answers[name]
            return (
                f"`{name}` should be a function, but it is {info.get('type', '?')} "
                f"{str(info.get('repr', ''))[:40]}"
            )
    return None


def judge_task(task: Task, record: dict | None, problem: str | None = None) -> TaskGrade:
    """The verdict for one task from the harness's record (None when the cell produced none)."""
    zero = TaskGrade(task.name, 0, task.points, "failed")
    if record is None:
        if problem and problem.startswith("timed out"):
            return TaskGrade(
                task.name, 0, task.points, "timed out", f"grading this task {problem}", "timeout"
            )
        if problem and problem.startswith("not run"):
            return TaskGrade(task.name, 0, task.points, "not run", problem, "not run")
        if problem:
            return TaskGrade(
                task.name,
                0,
                task.points,
                "error",
                f"while grading this task, {problem}",
                "kernel died",
            )
        return TaskGrade(
            task.name,
            0,
            task.points,
            "error",
            "the grader got no result for this task "
            "(did the notebook replace a module the grader uses?)",
            "no result",
        )
    trouble = _answer_problem(task, record)
    if trouble:
        kind = "undefined" if "not defined" in trouble else "not a function"
        return TaskGrade(task.name, 0, task.points, "failed", trouble + ".", kind)
    if record.get("setup_error"):
        return TaskGrade(
            task.name,
            0,
            task.points,
            "error",
            f"the grader could not prepare this task: {record['setup_error']}",
            "grader",
        )
    results = record.get("results", [])
    failures = []
    for index, call in enumerate(task.calls):
        result = (
            results[index] if index < len(results) and isinstance(results[index], dict) else None
        )
        failure = case_failure(call, result, task.compare)
        if failure:
            failures.append((call, *failure))
            if failure[0] == "not attempted":
                break
    fixed = [failure for failure in failures if not failure[0].hidden]
    if fixed:
        _, kind, detail = fixed[0]
        if kind == "not attempted":
            return TaskGrade(task.name, 0, task.points, zero.status, f"{detail}.", kind)
        return TaskGrade(
            task.name, 0, task.points, zero.status, _with_hint(detail, task.hint), kind
        )
    if failures:
        _, kind, detail = failures[0]
        n_fixed = sum(not call.hidden for call in task.calls)
        note = (
            f"all {n_fixed} cases of the notebook's check pass, but a hidden case fails, as an "
            f"answer written for those cases would: hidden case {detail}"
        )
        return TaskGrade(
            task.name, 0, task.points, zero.status, _with_hint(note, task.hint), "hidden cases"
        )
    return TaskGrade(task.name, task.points, task.points, "passed")
