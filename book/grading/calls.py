"""The judge's side of the calls: one cell per call, its inputs sent as it starts, its line read as
it ends.

A call cell holds nothing but the call's id: ``sys.audit("book.grade.call", id, globals())``
hands it to the guard's hook, which reads the call's inputs from the inbox pipe and writes the
outcome on the results pipe (see ``guard``). So the kernel never holds the inputs of a call that
has not started, and the notebook's history shows ids only. Before each call cell the judge
sends that call's inputs and gives the cell what is left of its task's time; after it, the judge
reads the lines that arrived: the call's own line (exactly one), refusals to report, and
anything else, which the notebook's code wrote itself and which counts for nothing. A task stops
at its first call that cannot be judged further (not attempted, undefined, timed out, ...).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell

from book.checks.spec import Call, Task
from book.grading import harness
from book.grading.channel import Channel
from book.grading.guard import CALL_EVENT
from book.grading.harness import to_wire
from book.grading.kernel import TIME_LIMIT_KEY
from book.grading.record import Malformed, Unread, parse_line
from book.grading.verdict import CallOutcome, TaskGrade, judge_task

MAX_EVIDENCE = 50


def ends_task(outcome: CallOutcome) -> bool:
    """Whether a call's outcome stops its task (no line, no result, not attempted, ...)."""
    line = outcome.line
    if line is None or "result" not in line or line.get("setup_error"):
        return True
    return line["result"].get("raised", [""])[:1] == ["NotImplementedError"]


def spec_of(task: Task, call: Call, call_id: str, data: Any) -> dict:
    """What the guard needs to make a call: never the expected value."""
    return {
        "id": call_id,
        "answers": list(task.answers),
        "setup": task.setup,
        "data": data,
        "expr": call.expr,
        "args": to_wire(list(call.args)),
    }


def judge_in_process(
    tasks: list[Task], answers: dict[str, Any], memo: dict | None = None
) -> list[TaskGrade]:
    """The judge's verdicts on answers (name -> object) called here, without a kernel or a
    sandbox: the same harness, the same checked lines, the same verdicts. For tests of check
    modules (a learner's notebook is always graded in a sandboxed kernel); ``memo`` keeps each
    call's outcome by the call's identity, for a test that judges one answer on many seeds."""
    verdicts, memo = [], {} if memo is None else memo
    for task in tasks:
        data, outcomes = to_wire(task.data), [None] * len(task.calls)
        for k, call in enumerate(task.calls):
            if id(call) not in memo:
                spec = json.loads(json.dumps(spec_of(task, call, f"c{k}", data)))
                body = harness.run_call(spec, answers, lambda namespace: None)
                memo[id(call)] = CallOutcome(parse_line(json.dumps(body).encode()))
            outcomes[k] = memo[id(call)]
            if ends_task(outcomes[k]):
                break
        verdicts.append(judge_task(task, outcomes))
    return verdicts


@dataclass(frozen=True)
class Planned:
    """One call cell: which task and call, and the id only the judge and this cell know."""

    task: int
    call: int
    id: str


class Calls:
    """The calls of one graded notebook: their cells, and what became of each."""

    def __init__(self, tasks: list[Task], channel: Channel, first: int, task_seconds: float):
        self.tasks, self.channel, self.task_seconds = tasks, channel, task_seconds
        self.plan: dict[int, Planned] = {}
        index = first
        for k, task in enumerate(tasks):
            for c in range(len(task.calls)):
                self.plan[index] = Planned(k, c, secrets.token_hex(8))
                index += 1
        self.data = [to_wire(task.data) for task in tasks]  # each task's data, encoded once
        self.outcomes: list[list[CallOutcome | None]] = [[None] * len(t.calls) for t in tasks]
        self.spent = [0.0] * len(tasks)  # seconds from each call's start to its line read
        self.reading = [0.0] * len(tasks)  # of which reading the lines
        self.stopped: set[int] = set()
        self.current: Planned | None = None
        self.started = 0.0
        self.evidence: list[str] = []
        self.printed: dict[int, str] = {}
        self.stray = 0
        self.kernels = 0
        self.hellos = 0

    def cells(self) -> list[NotebookNode]:
        """One cell per call, in order."""
        cells = []
        for planned in self.plan.values():
            cell = new_code_cell(
                f"__import__('sys').audit({CALL_EVENT!r}, {planned.id!r}, globals())"
            )
            cell.metadata[TIME_LIMIT_KEY] = self.task_seconds
            cells.append(cell)
        return cells

    def kernel_started(self) -> None:
        """A new kernel: fresh pipes for its guard."""
        self.channel.open()
        self.kernels += 1

    def is_call(self, index: int) -> bool:
        """Whether cell index is a call (after a restart, calls are not run again)."""
        return index in self.plan

    def before(self, index: int, cell: NotebookNode) -> bool:
        """Whether to run this cell; for a call, send its inputs and set its time limit."""
        self._read()
        planned = self.plan.get(index)
        if planned is None:
            return True
        if planned.task in self.stopped:
            return False
        task = self.tasks[planned.task]
        call = task.calls[planned.call]
        self.channel.send(spec_of(task, call, planned.id, self.data[planned.task]))
        cell.metadata[TIME_LIMIT_KEY] = self.task_seconds - self.spent[planned.task]
        self.current, self.started = planned, time.monotonic()
        return True

    def after(self, index: int, interrupted: bool, failed: bool) -> None:
        """Read what the cell's run left on the pipe; judge whether its task goes on. Reading its
        calls' lines counts in a task's time: once reading them took longer than the task's time
        limit, the task has timed out."""
        planned, self.current = self.current, None
        reading = time.monotonic()
        self._read(planned)
        read = time.monotonic() - reading
        if planned is None or self.plan.get(index) != planned:
            return
        self.reading[planned.task] += read
        self.spent[planned.task] += time.monotonic() - self.started
        outcome = self.outcomes[planned.task][planned.call]
        limit = self.task_seconds
        if interrupted:
            outcome = CallOutcome(
                None,
                f"did not finish within the task's {limit:g} s (the call, or the encoding of its "
                "result for the grader) and was interrupted",
                "timeout",
            )
        elif self.reading[planned.task] > limit and outcome is not None and outcome.line:
            outcome = CallOutcome(
                None,
                f"returned results that took the grader {self.reading[planned.task]:.0f} s to "
                f"read, more than the task's {limit:g} s",
                "timeout",
            )
        elif failed:
            outcome = CallOutcome(None, "the kernel died while running this cell", "kernel died")
        elif outcome is None:
            outcome = CallOutcome(kind="no result")
        self.outcomes[planned.task][planned.call] = outcome
        if ends_task(outcome):
            self.stopped.add(planned.task)

    def finish(self, problems: dict[int, str], skipped: set[int]) -> None:
        """Say why calls the kernel loop gave up on have no outcome."""
        for index, planned in self.plan.items():
            outcome = self.outcomes[planned.task][planned.call]
            if index in skipped and planned.task not in self.stopped:
                why = "the notebook's total time limit was reached before this task's calls"
                self.outcomes[planned.task][planned.call] = CallOutcome(None, why, "not run")
                self.stopped.add(planned.task)
            elif index in problems and outcome is None and planned.task not in self.stopped:
                why = problems[index].removeprefix("not run: ")
                self.outcomes[planned.task][planned.call] = CallOutcome(None, why, "not run")
                self.stopped.add(planned.task)
            elif index in problems and outcome is not None and outcome.kind == "kernel died":
                outcome.problem = problems[index]
        self.channel.close()

    def _read(self, planned: Planned | None = None) -> None:
        """Sort the lines that arrived: planned's own line, evidence, and stray lines."""
        for line in self.channel.take():
            if isinstance(line, Malformed):
                if planned is None:
                    self.stray += 1
                elif isinstance(line, Unread):
                    self._set(planned, CallOutcome(None, str(line), line.kind))
                else:
                    problem = f"the kernel's record of this call is malformed ({line})"
                    self._set(planned, CallOutcome(None, problem, "malformed"))
            elif line["kind"] in ("refused", "used"):
                if line["what"] not in self.evidence and len(self.evidence) < MAX_EVIDENCE:
                    self.evidence.append(line["what"])
            elif line["kind"] == "hello" and self.hellos < self.kernels:
                self.hellos += 1
            elif line["kind"] == "call" and planned is not None and line["id"] == planned.id:
                if self.outcomes[planned.task][planned.call] is not None:
                    problem = "two records arrived for this call: the notebook wrote one itself"
                    self._set(planned, CallOutcome(None, problem, "malformed"))
                else:
                    self._set(planned, CallOutcome(line))
                    if line.get("printed"):
                        self.printed.setdefault(planned.task, line["printed"][0])
            else:
                self.stray += 1

    def _set(self, planned: Planned, outcome: CallOutcome) -> None:
        current = self.outcomes[planned.task][planned.call]
        if current is None or current.kind != "malformed":
            self.outcomes[planned.task][planned.call] = outcome

    @property
    def ready(self) -> bool:
        """Whether the guard greeted the judge in every kernel it started."""
        return self.kernels > 0 and self.hellos == self.kernels

    def notes(self) -> list[str]:
        """What the report says about the calls: refusals, stray lines, dropped lines."""
        notes = [f"the notebook tried {what}" for what in self.evidence]
        notes += [
            f"while grading {self.tasks[k].name}, the answer printed a check's passing line "
            f"({text[:60]!r}): printed lines never count, the grade is the judge's"
            for k, text in sorted(self.printed.items())
        ]
        if self.stray:
            notes.append(
                f"the notebook's code wrote {self.stray} line(s) of its own to the grader's "
                "channel: they count for nothing"
            )
        if self.channel.dropped:
            notes.append(
                f"the kernel wrote more than {self.channel.limit // 2**20} MB to the grader: "
                f"{self.channel.dropped} line(s) were dropped"
            )
        return notes
