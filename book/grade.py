"""Grade exercise notebooks: restore the check cells, run in a fresh kernel, count the points.

    python -m book.grade my_work/01_text_to_numbers.ipynb
    python -m book.grade submissions/ --csv grades.csv --timeout 30

For each submission (a notebook, or every notebook in a folder) the grader finds its exercise by
the stem in the file name (``alice_01_text_to_numbers.ipynb`` is exercise 01_text_to_numbers),
puts back the pristine check cells (a check cell the learner edited is replaced, a deleted one is
re-inserted where it belongs), runs a copy in a fresh kernel of this Python with a time limit per
cell, and awards a task's points only when its check cell printed the stored passing line. Only
check cells count: printing the passing line anywhere else earns nothing. The submission file is
never modified.

The pristine exercise is generated from solutions/NN_slug.ipynb (so a learner who edited the
repository's exercises/ in place is still graded against the original), or read from
exercises/NN_slug.ipynb when there is no solutions notebook, or from --exercises DIR.

Exit status: 0 every task of every submission passed; 1 some task failed; 2 a usage or file error
(missing path, not a notebook, unreadable JSON, a name that matches no exercise).
Grading runs the learner's code: run it in a sandbox (a container) for code you do not trust. It
defends against accidents and simple cheats (edited, deleted or imitated check cells, answers that
print the passing line), not against code written to subvert the checks themselves.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from book.checks.core import points_text
from book.exercises import EXERCISES, SOLUTIONS, exercise_text
from book.notebooks import NotebookError, error_of, execute, read_notebook, shown, stdout_of


@dataclass(frozen=True)
class TaskGrade:
    """One task of one submission: points earned, status (passed/failed/timed out/error/not run), detail."""

    task: str
    points: int
    max_points: int
    status: str
    message: str


@dataclass
class Grade:
    """The grade of one submission (error is set when it could not be graded at all)."""

    submission: Path
    exercise: str
    tasks: list[TaskGrade] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str = ""

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


def graded_cells(nb: NotebookNode) -> dict[int, NotebookNode]:
    """{index: cell} of the check cells that carry a task and its points (metadata book.task/points)."""
    return {index: cell for index, cell in enumerate(nb.cells)
            if cell.cell_type == "code" and "task" in cell.metadata.get("book", {})}


def _pristine_index(submission: NotebookNode, pristine: NotebookNode) -> list[int | None]:
    """For each submission cell, the index of the pristine cell it is (by id, else by source), or None."""
    by_id = {cell.get("id"): index for index, cell in enumerate(pristine.cells) if cell.get("id")}
    by_task = {cell.metadata.book["task"]: index for index, cell in graded_cells(pristine).items()}
    unclaimed = {index: cell.source for index, cell in enumerate(pristine.cells)}
    found: list[int | None] = []
    for cell in submission.cells:
        index = by_id.get(cell.get("id"))
        if index is None:
            index = by_task.get(cell.get("metadata", {}).get("book", {}).get("task"))
        if index is None:
            index = next((k for k, source in unclaimed.items() if source == cell.get("source")), None)
        unclaimed.pop(index, None)
        found.append(index)
    return found


def restore_checks(submission: NotebookNode, pristine: NotebookNode) -> tuple[list[NotebookNode], dict[int, int]]:
    """The submission's cells with the pristine check cells put back, and {pristine index: new position}.

    A check cell the learner kept (even edited) is replaced in place and copies of it are dropped;
    a deleted one is inserted before the first later pristine cell the submission still has, that
    is after the learner's own cells that follow the task.
    """
    checks = graded_cells(pristine)
    cells: list[tuple[int | None, NotebookNode]] = []
    placed: set[int] = set()
    for index, cell in zip(_pristine_index(submission, pristine), submission.cells):
        if index in checks:
            if index in placed:
                continue  # a copy of a check cell
            placed.add(index)
            cell = checks[index]
        cells.append((index, cell))
    for index, check in checks.items():
        if index not in placed:
            at = next((k for k, (seen, _) in enumerate(cells) if seen is not None and seen > index), len(cells))
            cells.insert(at, (index, check))
    return [_unrun(cell) for _, cell in cells], {index: k for k, (index, _) in enumerate(cells) if index in checks}


def _unrun(cell: NotebookNode) -> NotebookNode:
    """A copy of the cell without outputs: only what the grader's run prints may count."""
    fresh = NotebookNode(dict(cell))
    if fresh.cell_type == "code":
        fresh.outputs, fresh.execution_count = [], None
    return fresh


def _task_grade(check: NotebookNode, ran: NotebookNode, problem: str | None) -> TaskGrade:
    """Grade one check cell from its output after the run."""
    task, points = check.metadata.book["task"], check.metadata.book["points"]
    printed = stdout_of(ran)
    if printed == stdout_of(check):
        return TaskGrade(task, points, points, "passed", "")
    if problem:
        status = "not run" if problem.startswith("not run") else "timed out" if problem.startswith("timed out") else "error"
        return TaskGrade(task, 0, points, status, f"the check cell {problem}")
    if printed.startswith("✘"):
        line = printed.strip().removeprefix(f"✘ {task}: ").removesuffix(f" — {points_text(0, points)}")
        return TaskGrade(task, 0, points, "failed", line)
    error = error_of(ran)
    return TaskGrade(task, 0, points, "error", f"the check cell raised {error}" if error else "the check printed nothing")


def grade_notebook(submission: NotebookNode, pristine: NotebookNode, path: Path, exercise: str,
                   timeout: float = 30) -> Grade:
    """Grade a submission (already read) against its pristine exercise; nothing is written."""
    cells, positions = restore_checks(submission, pristine)
    runnable = NotebookNode({**pristine, "cells": cells})
    with tempfile.TemporaryDirectory(prefix="book-grade-") as workdir:
        problems = execute(runnable, timeout=timeout, cwd=Path(workdir))
    tasks = [_task_grade(check, cells[positions[index]], problems.get(positions[index]))
             for index, check in graded_cells(pristine).items()]
    notes = [f"cell {index} ({_cut(cells[index].source, 40)!r}) {problem}"
             for index, problem in sorted(problems.items()) if index not in positions.values()]
    return Grade(path, exercise, tasks, notes)


def exercise_sources(exercises_dir: Path | None) -> dict[str, Callable[[], NotebookNode]]:
    """stem -> how to load its pristine exercise notebook."""
    if exercises_dir is not None:
        return {path.stem: lambda path=path: read_notebook(path) for path in sorted(exercises_dir.glob("*.ipynb"))}
    sources = {path.stem: lambda path=path: read_notebook(path) for path in sorted(EXERCISES.glob("*.ipynb"))}
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        sources[path.stem] = lambda path=path: nbformat.reads(exercise_text(path), as_version=4)
    return sources


def exercise_of(path: Path, stems: list[str]) -> str:
    """The exercise stem a submission's file name names: itself, or the longest stem it contains."""
    if path.stem in stems:
        return path.stem
    inside = [stem for stem in stems if stem in path.stem]
    if not inside:
        known = ", ".join(stems) or "none (no exercises found)"
        raise NotebookError(f"{shown(path)}: cannot tell which exercise this is; its file name must contain "
                            f"one of: {known}")
    return max(inside, key=len)


def submissions(paths: list[Path]) -> list[Path]:
    """The notebooks to grade: files as given, folders searched recursively (checkpoints skipped)."""
    found = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
            if not inside:
                raise NotebookError(f"{shown(path)} contains no notebooks (.ipynb)")
            found.extend(inside)
        elif path.exists():
            found.append(path)
        else:
            raise NotebookError(f"{shown(path)} does not exist")
    return found


def grade_file(path: Path, sources: dict[str, Callable[[], NotebookNode]], timeout: float) -> Grade:
    """Grade one submission file; a file problem becomes Grade.error instead of an exception."""
    try:
        exercise = exercise_of(path, sorted(sources))
        submission = read_notebook(path)
        pristine = sources[exercise]()
        if not graded_cells(pristine):
            raise NotebookError(f"exercise {exercise} has no graded check cells (metadata book.task); "
                                "regenerate it with python -m book.exercises")
    except NotebookError as error:
        return Grade(path, "", error=str(error))
    try:
        return grade_notebook(submission, pristine, path, exercise, timeout)
    except (RuntimeError, OSError) as error:  # the kernel would not start: the environment, not the learner
        return Grade(path, exercise, error=f"could not run {shown(path)} in a Python kernel ({error}); "
                                           "check that ipykernel is installed in this environment")


def _cut(text: str, width: int) -> str:
    """text on one line, cut to width."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


SYMBOL = {"passed": "✔", "failed": "✘", "timed out": "⏱", "error": "!", "not run": "–"}


def format_grade(grade: Grade) -> str:
    """A submission's table: one row per task, then the total and any notes."""
    width = max([len(task.task) for task in grade.tasks] + [5])
    rows = [f"== {shown(grade.submission)} (exercise {grade.exercise})",
            f"{'task':<{width}}  {'points':>6}  result"]
    for task in grade.tasks:
        result = f"{SYMBOL[task.status]} {task.status}" + (f": {_cut(task.message, 150)}" if task.message else "")
        rows.append(f"{task.task:<{width}}  {f'{task.points}/{task.max_points}':>6}  {result}")
    rows.append(f"{'total':<{width}}  {f'{grade.points}/{grade.max_points}':>6}")
    rows += [f"note: {note}" for note in grade.notes]
    return "\n".join(rows) + "\n"


def format_class(grades: list[Grade]) -> str:
    """One row per submission: exercise, points, tasks passed."""
    names = [shown(grade.submission) for grade in grades]
    width = max(len(name) for name in names + ["submission"])
    rows = [f"{'submission':<{width}}  {'exercise':<24}  {'points':>7}  tasks passed"]
    for name, grade in zip(names, grades):
        passed = sum(task.status == "passed" for task in grade.tasks)
        score = "error" if grade.error else f"{grade.points}/{grade.max_points}"
        rows.append(f"{name:<{width}}  {grade.exercise:<24}  {score:>7}  {passed}/{len(grade.tasks)}")
    return "\n".join(rows) + "\n"


def write_csv(grades: list[Grade], path: Path) -> None:
    """One row per task (and one per submission that could not be graded)."""
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["submission", "exercise", "task", "points", "max_points", "status", "message"])
        for grade in grades:
            if grade.error:
                writer.writerow([shown(grade.submission), "", "", 0, 0, "error", grade.error])
            for task in grade.tasks:
                writer.writerow([shown(grade.submission), grade.exercise, task.task, task.points,
                                 task.max_points, task.status, task.message])


def main(argv: list[str] | None = None) -> int:
    """Command line; returns the exit status (0 all passed, 1 some failed, 2 usage or file error)."""
    first = __doc__.partition("\n\n")[0]
    parser = argparse.ArgumentParser(prog="python -m book.grade", description=first,
                                     epilog="Exit status: 0 every task passed, 1 some task failed, "
                                            "2 usage or file error.")
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="submitted notebooks or folders of them")
    parser.add_argument("--csv", type=Path, metavar="FILE", help="also write one row per task to FILE")
    parser.add_argument("--timeout", type=float, default=30, metavar="SECONDS",
                        help="time limit per cell (default 30)")
    parser.add_argument("--exercises", type=Path, metavar="DIR",
                        help="folder of pristine exercise notebooks (default: generated from solutions/)")
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error("--timeout must be a positive number of seconds")
    if args.exercises is not None and not args.exercises.is_dir():
        parser.error(f"--exercises {args.exercises}: no such folder")
    try:
        paths = submissions(args.paths)
    except NotebookError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sources = exercise_sources(args.exercises)
    grades = []
    for path in paths:
        grade = grade_file(path, sources, args.timeout)
        if grade.error:
            print(f"error: {grade.error}\n", file=sys.stderr, flush=True)
        else:
            print(format_grade(grade), flush=True)
        grades.append(grade)
    if len(grades) > 1:
        print(format_class(grades))
    if args.csv:
        write_csv(grades, args.csv)
        print(f"wrote {shown(args.csv)}")
    if any(grade.error for grade in grades):
        return 2
    return 0 if all(grade.passed for grade in grades) else 1


if __name__ == "__main__":
    sys.exit(main())
