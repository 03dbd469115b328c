"""The judge's verdict on one task: what became of each call, against the expected values.

Everything here runs in the judge's process. Each call's outcome is a line the kernel wrote,
already checked against its shape (``record``), or the reason there is none (a time limit, a
dead kernel, a malformed line); the expected values come from the check module's Task. A task
whose answer can be called is scored as the notebook's check scores it (``book.checks.outcomes``):
the points of its groups whose every call passed, the first failure (a hidden one says so: an
answer written for the visible cases fails there) and the known mistake it agrees with, or the
task's hint.
"""

from __future__ import annotations

from dataclasses import dataclass

from book.checks.outcomes import score
from book.checks.spec import Call, Task

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
    had already stopped): the points of the groups whose every call passed, the groups named in
    the message, with the first failure and its diagnosis."""
    made = [(call, outcome) for call, outcome in zip(task.calls, outcomes) if outcome is not None]
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
    scored = score(task, [(call, outcome.line["result"]) for call, outcome in made])
    if len(made) < len(task.calls) and scored.kind != "not attempted":
        return TaskGrade(task.name, 0, task.points, "not run", "not every case was run", "not run")
    status = "passed" if scored.points == task.points else "failed"
    return TaskGrade(task.name, scored.points, task.points, status, scored.summary(), scored.kind)
