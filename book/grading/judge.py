"""Grade one notebook: run the learner's cells in the sandbox, call their functions, judge here.

The graded notebook is built in memory from the submission (never written back): the guard
cell first, then the learner's code cells (the exercise's check cells are left out: they only
print, and nothing printed counts), then one harness cell per task. It runs in a fresh kernel
in a scratch folder, alone, with the restricted copy of the package. The expected values are
computed here from the check module's ``judge_tasks(rng)``, with ``rng`` seeded by the seed the
report records, so the hidden inputs are new at each grading and a grade can be reproduced.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import secrets
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell

from book.checks.core import PASS_LINE
from book.checks.spec import Task
from book.grading import guard, harness
from book.grading.kernel import TIME_LIMIT_KEY, run_cells
from book.grading.sandbox import Limits, Sandbox, guard_config, hidden_paths, kernel_command
from book.grading.stubs import restricted_copy
from book.grading.verdict import TaskGrade, judge_task
from book.notebooks import error_of, stdout_of

MAX_RECORD_BYTES = 64 * 1024 * 1024
PRINTED_PASS = "✔ "


@dataclass
class Grade:
    """The grade of one submission (error is set when it could not be graded at all)."""

    submission: Path
    exercise: str
    learner: str = ""
    tasks: list[TaskGrade] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""
    seed: int = 0
    seconds: float = 0.0
    sandbox: str = ""

    @property
    def points(self) -> int:
        """Points earned."""
        return sum(task.points for task in self.tasks)

    @property
    def max_points(self) -> int:
        """Points available."""
        return sum(task.max_points for task in self.tasks)

    @property
    def passed(self) -> bool:
        """True when the submission was graded and every task passed."""
        return not self.error and all(task.status == "passed" for task in self.tasks)


def new_seed() -> int:
    """A fresh seed for the hidden inputs."""
    return secrets.randbelow(2**31)


def judge_data(checks: str, seed: int) -> tuple[list[Task], tuple[str, ...]]:
    """The check module's tasks for this seed and the modules it blocks while grading."""
    module = importlib.import_module(checks)
    if not hasattr(module, "judge_tasks"):
        raise LookupError(
            f"{checks} has no judge_tasks(rng); see book.checks.core for what a check "
            "module must provide to be graded"
        )
    return module.judge_tasks(random.Random(seed)), tuple(getattr(module, "REFERENCE", ()))


def _source(module) -> str:
    """The text of one of the modules that run inside the kernel."""
    return Path(module.__file__).read_text(encoding="utf-8")


def guard_cell(config: dict) -> NotebookNode:
    """The first cell: the audit hook, before any of the learner's code."""
    tail = (
        "\nimport sys\nsys.dont_write_bytecode = True\nimport book._grading_stub as _stub\n"
        "install(CONFIG, _stub.LOG)\n"
    )
    source = (
        f"exec(compile({_source(guard) + tail!r}, '<grader>', 'exec'), {{'__name__': 'grader', "
        f"'CONFIG': __import__('json').loads({json.dumps(config)!r})}})"
    )
    return new_code_cell(source)


def task_cell(task: Task, out: Path, seconds: float) -> NotebookNode:
    """One task's harness cell: the calls' expressions and arguments, never the expected values."""
    spec = {
        "task": task.name,
        "answers": list(task.answers),
        "setup": task.setup,
        "data": harness.to_wire(task.data),
        "calls": [[call.expr, harness.to_wire(list(call.args))] for call in task.calls],
    }
    code = _source(harness) + "\nrun(USER, SPEC, OUT)\n"
    source = (
        f"exec(compile({code!r}, '<grader>', 'exec'), "
        f"{{'__name__': 'grader', 'USER': globals(), 'SPEC': {json.dumps(spec)!r}, "
        f"'OUT': {str(out)!r}}})"
    )
    cell = new_code_cell(source)
    cell.metadata[TIME_LIMIT_KEY] = seconds
    return cell


def read_record(path: Path) -> dict | None:
    """The harness's record, or None if there is none (or it is not a record at all)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_RECORD_BYTES + 1)
    try:
        record = json.loads(data) if len(data) <= MAX_RECORD_BYTES else None
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _first_line(source: str) -> str:
    """A cell's first non-empty line, cut, to name it in a note."""
    line = next((line.strip() for line in source.splitlines() if line.strip()), "")
    return line if len(line) <= 50 else line[:49] + "…"


def cell_notes(
    cells: list[NotebookNode],
    numbers: list[int],
    problems: dict[int, str],
    skipped: set[int],
    offset: int,
) -> list[str]:
    """What happened in the learner's cells: errors, time-outs, printed passing lines."""
    notes = []
    for k, (cell, number) in enumerate(zip(cells, numbers)):
        where = f"cell {number} ({_first_line(cell.source)!r})"
        problem = problems.get(k + offset)
        if k + offset in skipped:
            notes.append(f"{where} was not run: the notebook's total time limit was reached")
        elif problem:
            notes.append(f"{where} {problem}")
        elif error_of(cell):
            notes.append(f"{where} raised {error_of(cell)[:200]}")
        printed = [line for line in stdout_of(cell).splitlines() if PASS_LINE.search(line)]
        if printed:
            notes.append(
                f"{where} printed a check's passing line ({printed[0][:60]!r}): printed lines "
                "never count, the grade is the judge's"
            )
    return notes


def blocked_notes(records: list[dict | None]) -> list[str]:
    """The uses of blocked code and refused operations the kernel's log recorded."""
    seen = []
    for record in records:
        for entry in (record or {}).get("blocked", []):
            if isinstance(entry, str) and entry not in seen:
                seen.append(entry)
    return [f"the notebook tried {entry}" for entry in seen]


def learner_cells(submission: NotebookNode, is_check) -> tuple[list[NotebookNode], list[int]]:
    """Copies of the learner's code cells without outputs (checks left out), and their numbers."""
    cells, numbers = [], []
    for number, cell in enumerate(submission.cells):
        if cell.cell_type == "code" and not is_check(number, cell):
            cells.append(new_code_cell(cell.source))
            numbers.append(number)
    return cells, numbers


def grade_cells(
    path: Path,
    exercise: str,
    submission: NotebookNode,
    is_check,
    checks: str,
    seed: int,
    limits: Limits,
    sandbox: Sandbox,
    hide: list[Path],
) -> Grade:
    """Grade a submission (already read) whose check cells is_check(index, cell) recognizes."""
    start = time.monotonic()
    tasks, blocked = judge_data(checks, seed)
    nonce = secrets.token_hex(8)
    work = Path(tempfile.mkdtemp(prefix="book-grade-"))
    try:
        lib, scratch = restricted_copy(work / "lib", blocked), work / "scratch"
        (scratch / "tmp").mkdir(parents=True)
        hidden = hidden_paths([path.resolve().parent, *hide])
        mine, numbers = learner_cells(submission, is_check)
        outs = [scratch / f".grader-{nonce}-{k}.json" for k in range(len(tasks))]
        cells = [
            guard_cell(guard_config(sandbox, scratch, lib, hidden)),
            *mine,
            *(task_cell(task, out, limits.cell_seconds) for task, out in zip(tasks, outs)),
        ]
        command = kernel_command(sandbox, limits, scratch, lib, hidden)
        problems, skipped = run_cells(
            cells, command, scratch, limits.cell_seconds, limits.total_seconds
        )
        records = [read_record(out) for out in outs]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if problems.get(0) or error_of(cells[0]):  # unprotected grading must not count
        return Grade(
            path,
            exercise,
            error=f"the grader could not prepare the kernel: "
            f"{problems.get(0) or error_of(cells[0])}",
            seed=seed,
            sandbox=sandbox.note,
        )
    first = 1 + len(mine)
    verdicts = []
    for k, (task, record) in enumerate(zip(tasks, records)):
        problem = problems.get(first + k)
        if first + k in skipped:
            problem = "not run: the notebook's total time limit was reached"
        verdicts.append(judge_task(task, record, problem))
    notes = [
        sandbox.note,
        *cell_notes(cells[1:first], numbers, problems, skipped, 1),
        *blocked_notes(records),
    ]
    notes += [
        f"while grading {task.name}, the answer printed a check's passing line "
        f"({str(record['printed'][0])[:60]!r}): printed lines never count, the grade is the judge's"
        for task, record in zip(tasks, records)
        if record and record.get("printed")
    ]
    return Grade(
        path,
        exercise,
        tasks=verdicts,
        notes=notes,
        seed=seed,
        seconds=round(time.monotonic() - start, 1),
        sandbox=sandbox.note,
    )
