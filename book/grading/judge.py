"""Grade one notebook: run the learner's cells in the sandbox, make the calls, judge here.

The graded notebook is built in memory from the submission (never written back): the guard
cell first, then the learner's code cells (the exercise's check cells are left out: they only
print, and nothing printed counts), then one cell per call (see ``calls``). It runs in a fresh
kernel in a scratch folder, alone, with the restricted copy of the package. The expected values
are computed here from the check module's ``judge_tasks(rng)``, with ``rng`` seeded by the seed
the report records, so the hidden inputs are new at each grading and a grade can be reproduced:
they are drawn in a process whose hash seed comes from the seed too (``hash_seed``), so that no
check module drawing from a set can make them depend on anything else. The kernel's own hash
seed comes from the seed and a key that only the grader's machine holds (``kernel_hash_seed``):
the same seed grades the same way again, and the kernel can learn nothing of the seed from it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
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
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell

from book.checks.core import PASS_LINE
from book.checks.spec import Task
from book.grading import guard, harness
from book.grading.calls import Calls
from book.grading.channel import Channel
from book.grading.kernel import run_cells
from book.grading.sandbox import (
    KERNEL_FOLDER,
    Environment,
    Limits,
    Sandbox,
    View,
    kernel_command,
)
from book.grading.stubs import restricted_copy
from book.grading.verdict import TaskGrade, judge_task
from book.notebooks import error_of, stdout_of

MAX_CHANNEL_BYTES = 64 * 1024 * 1024  # the most the grader keeps of what one kernel writes to it


class Unreproducible(RuntimeError):
    """Hidden cases asked for in a process whose hash seed does not come from the seed."""


class KernelUnavailable(RuntimeError):
    """The graded kernel could not be started or reached: the grader's installation, not the
    notebook."""


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
    cases: str = ""  # a digest of every call and expected value: equal digests, equal cases
    refused: bool = False  # error says why the submission itself was not graded (not the grader)

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

    def to_json(self) -> str:
        """The grade as JSON (how a grading worker hands it back)."""
        return json.dumps({**dataclasses.asdict(self), "submission": str(self.submission)})

    @classmethod
    def from_json(cls, text: str) -> Grade:
        """The grade to_json wrote."""
        data = json.loads(text)
        data["submission"] = Path(data["submission"])
        data["tasks"] = [TaskGrade(**task) for task in data["tasks"]]
        return cls(**data)


def new_seed() -> int:
    """A fresh seed for the hidden inputs."""
    return secrets.randbelow(2**31)


def hash_seed(seed: int) -> int:
    """The PYTHONHASHSEED of the processes that draw the hidden cases of seed (never the kernel's:
    ``kernel_hash_seed``).

    >>> hash_seed(0), hash_seed(-1) == hash_seed(4294967294)
    (1, True)
    """
    return 1 + seed % 4294967295


def grader_key_path() -> Path:
    """Where this machine's grader key lives: outside every folder the sandbox shows a kernel."""
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "book-grader" / "key"


def grader_key(path: Path | None = None) -> bytes:
    """This machine's secret for the kernels' hash seeds: 32 random bytes, made on first use.

    Made under a temporary name and linked into place, so graders started together agree on one.
    """
    path = path or grader_key_path()
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as made:
        made.write(secrets.token_bytes(32))
    try:
        os.chmod(made.name, 0o600)
        os.link(made.name, path)
    except FileExistsError:
        pass  # another grader made it first: theirs is the key
    finally:
        os.unlink(made.name)
    return path.read_bytes()


def kernel_hash_seed(seed: int, key: bytes) -> int:
    """The PYTHONHASHSEED of the kernel that runs a notebook graded with seed: a keyed hash of it.

    The kernel never sees the key, so its hash seed tells nothing of the hidden cases' seed, and
    the same seed gives the same kernel again (a grade reproduces). 1 to 4294967295: 0 would turn
    hashing's randomization off.

    >>> kernel_hash_seed(5, b"k") == kernel_hash_seed(5, b"k") != kernel_hash_seed(5, b"other")
    True
    """
    digest = hmac.new(key, str(seed).encode(), hashlib.sha256).digest()
    return 1 + int.from_bytes(digest[:8], "big") % 4294967295


def judge_data(checks: str, seed: int) -> tuple[list[Task], tuple[str, ...]]:
    """The check module's tasks for this seed and the modules it blocks while grading."""
    if os.environ.get("PYTHONHASHSEED") != str(hash_seed(seed)):
        raise Unreproducible(
            f"hidden cases of seed {seed} must be drawn with PYTHONHASHSEED={hash_seed(seed)} "
            "(python -m book.grade starts such a process for every notebook)"
        )
    module = importlib.import_module(checks)
    if not hasattr(module, "judge_tasks"):
        raise LookupError(
            f"{checks} has no judge_tasks(rng); see book.checks for what a check "
            "module must provide to be graded"
        )
    return module.judge_tasks(random.Random(seed)), tuple(getattr(module, "REFERENCE", ()))


def cases_digest(tasks: list[Task]) -> str:
    """A short digest of every task's calls and expected values, byte for byte.

    Two gradings with the same digest made the same calls and expected the same values.
    """
    digest = hashlib.sha256()
    for task in tasks:
        digest.update(
            json.dumps([task.name, task.points, task.setup, canonical(task.data)]).encode()
        )
        for call in task.calls:  # not the label: it shows a set in the process's hash order
            wire = [call.expr, canonical(call.args), call.hidden]
            digest.update(json.dumps(wire).encode() + repr(canonical(call.expected)).encode())
    return digest.hexdigest()[:12]


def canonical(value: Any) -> Any:
    """value's wire form with every set's items sorted: equal values give equal forms, whatever
    order the process's hash seed gives a set.

    >>> canonical({"b", "a"}) == canonical({"a", "b"}), canonical((1, {2}))
    (True, {'t': [1, {'s': [2]}]})
    """
    return _sorted_sets(harness.to_wire(value))


def _sorted_sets(wire: Any) -> Any:
    if isinstance(wire, list):
        return [_sorted_sets(item) for item in wire]
    if not isinstance(wire, dict):
        return wire
    if set(wire) in ({"s"}, {"f"}):
        ((kind, items),) = wire.items()
        return {kind: sorted((_sorted_sets(item) for item in items), key=json.dumps)}
    return {key: _sorted_sets(item) for key, item in wire.items()}


def _source(module) -> str:
    """The text of one of the modules that run inside the kernel."""
    return Path(module.__file__).read_text(encoding="utf-8")


def guard_cell(config: dict) -> NotebookNode:
    """The first cell: the audit hook, before any of the learner's code."""
    config = {**config, "harness": _source(harness)}
    tail = "\nimport sys\nsys.dont_write_bytecode = True\ninstall(CONFIG)\n"
    source = (
        f"exec(compile({_source(guard) + tail!r}, '<grader>', 'exec'), {{'__name__': 'grader', "
        f"'CONFIG': __import__('json').loads({json.dumps(config)!r})}})"
    )
    return new_code_cell(source)


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
    data: bytes,
    exercise: str,
    submission: NotebookNode,
    is_check,
    checks: str,
    seed: int,
    limits: Limits,
    sandbox: Sandbox,
    environment: Environment,
) -> Grade:
    """Grade a submission (already read: data its bytes) whose check cells is_check(index, cell)
    recognizes; environment: what the kernel sees of Python (``sandbox.python_environment()``)."""
    start = time.monotonic()
    tasks, blocked = judge_data(checks, seed)
    work = Path(tempfile.mkdtemp(prefix="book-grade-"))
    try:
        scratch = work / "scratch"
        (scratch / "tmp").mkdir(parents=True)
        (scratch / KERNEL_FOLDER).mkdir()
        (scratch / path.name).write_bytes(data)  # the notebook's own copy, for its code to read
        view = View(environment, scratch, restricted_copy(work / "lib", blocked), path.name)
        mine, numbers = learner_cells(submission, is_check)
        calls = Calls(
            tasks,
            Channel(scratch / KERNEL_FOLDER, MAX_CHANNEL_BYTES),
            1 + len(mine),
            limits.cell_seconds,
        )
        config = {
            **view.guard_config(sandbox),
            "results": str(calls.channel.results_path),
            "inbox": str(calls.channel.inbox_path),
        }
        cells = [guard_cell(config), *mine, *calls.cells()]
        command = kernel_command(sandbox, limits, view, kernel_hash_seed(seed, grader_key()))
        try:
            problems, skipped = run_cells(
                cells, command, scratch, limits.cell_seconds, limits.total_seconds, calls
            )
        except (RuntimeError, OSError) as error:
            if isinstance(error, RecursionError):
                raise
            raise KernelUnavailable(
                f"the graded kernel could not be started or reached ({error}); check that "
                "ipykernel is installed in this Python and that bubblewrap can start it"
            ) from error
        calls.finish(problems, skipped)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if (
        problems.get(0) or error_of(cells[0]) or not calls.ready
    ):  # unprotected grading must not count
        why = problems.get(0) or error_of(cells[0]) or "the guard did not start"
        return Grade(
            path,
            exercise,
            error=f"the grader could not prepare the kernel: {why}",
            seed=seed,
            sandbox=sandbox.note,
        )
    verdicts = [judge_task(task, outcomes) for task, outcomes in zip(tasks, calls.outcomes)]
    notes = [
        *cell_notes(cells[1 : 1 + len(mine)], numbers, problems, skipped, 1),
        *calls.notes(),
    ]
    return Grade(
        path,
        exercise,
        tasks=verdicts,
        notes=notes,
        seed=seed,
        seconds=round(time.monotonic() - start, 1),
        sandbox=sandbox.note,
        cases=cases_digest(tasks),
    )
