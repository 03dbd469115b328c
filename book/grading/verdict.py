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

from book.checks.outcomes import case_failure, score
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


def _with_hint(detail: str, hint: str) -> str:
    """The detail as a sentence, then the task's hint."""
    return f"{detail}." + (f" Hint: {hint}" if hint else "")


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
        if task.groups:
            continue
        failure = case_failure(call, outcome.line["result"], task.compare)
        if failure:
            failures.append((call, *failure))
            if failure[0] == "not attempted":
                break
    if task.groups:
        return _by_groups(task, made)
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


def _by_groups(task: Task, made: list[tuple[Call, CallOutcome]]) -> TaskGrade:
    """The verdict of a task with groups of cases: the points of the groups that all passed,
    the groups named in the message, with the first failure and its diagnosis."""
    scored = score(task, [(call, outcome.line["result"]) for call, outcome in made])
    if len(made) < len(task.calls) and scored.kind != "not attempted":
        return TaskGrade(task.name, 0, task.points, "not run", "not every case was run", "not run")
    status = "passed" if scored.points == task.points else "failed"
    return TaskGrade(task.name, scored.points, task.points, status, scored.summary(), scored.kind)
