"""Grade exercise notebooks: a judge outside the learner's kernel decides, on inputs they never saw.

    python -m book.grade my_work/05_byte_bpe.ipynb
    python -m book.grade submissions/ --csv grades.csv --report reports/ --seed 1234

For each submission (a notebook, or every notebook in a folder) the grader reads which exercise
it is from the notebook's metadata (``book.exercise``, written by the exercise generator), so
any file name works; a notebook without it is recognized by its file name, or refused with a
clear error. It runs a copy of the learner's cells in a fresh kernel, in a sandbox (bubblewrap
where available: read-only file system, no network, its own processes) with time and memory
limits, where the book's reference implementations, checks and solutions are out of reach.
Then it calls the learner's functions on the check's fixed cases and on hidden cases drawn
fresh from a seed, gets plain values back, and compares them here with the values the book's
reference computes. Nothing the kernel prints counts. The submission is never modified.

Output: a table per submission, a class table, and with --csv one row per learner and exercise
(points, max, seed, seconds, error classes), with --tasks-csv one row per task, with --report
DIR one text file per learner saying what failed, with the hint. The seed is in every report:
--seed reproduces a grade.

Exit status: 0 every task of every submission passed; 1 some task failed; 2 a usage or file error
(missing path, not a notebook, unreadable JSON, a notebook that names no known exercise).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from book.exercises import EXERCISES, SOLUTIONS, exercise_text
from book.grading.judge import Grade, grade_cells, new_seed
from book.grading.report import (
    format_class,
    format_grade,
    write_csv,
    write_reports,
    write_tasks_csv,
)
from book.grading.sandbox import Limits, find_sandbox
from book.notebooks import NotebookError, read_notebook, shown

__all__ = ["Grade", "main"]


def graded_cells(nb: NotebookNode) -> dict[int, NotebookNode]:
    """{index: cell} of the check cells that carry a task and its points (metadata book.task)."""
    return {
        index: cell
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and "task" in cell.metadata.get("book", {})
    }


def check_matcher(pristine: NotebookNode) -> Callable[[int, NotebookNode], bool]:
    """is_check(index, cell): True for the exercise's check cells, moved, copied or edited.

    A cell is a check cell when it has a check cell's id, carries a task in its metadata, or
    has a check cell's exact source; the learner's own cells are everything else.
    """
    checks = graded_cells(pristine).values()
    ids = {cell.get("id") for cell in checks if cell.get("id")}
    sources = {cell.source for cell in checks}

    def is_check(index: int, cell: NotebookNode) -> bool:
        return (
            cell.get("id") in ids
            or "task" in cell.get("metadata", {}).get("book", {})
            or cell.source in sources
        )

    return is_check


def exercise_sources(exercises_dir: Path | None) -> dict[str, Callable[[], NotebookNode]]:
    """exercise name -> how to load its pristine exercise notebook."""
    if exercises_dir is not None:
        return {
            path.stem: lambda path=path: read_notebook(path)
            for path in sorted(exercises_dir.glob("*.ipynb"))
        }
    sources = {
        path.stem: lambda path=path: read_notebook(path)
        for path in sorted(EXERCISES.glob("*.ipynb"))
    }
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        sources[path.stem] = lambda path=path: nbformat.reads(exercise_text(path), as_version=4)
    return sources


def exercise_of(path: Path, nb: NotebookNode, names: list[str]) -> str:
    """The exercise a submission belongs to: its metadata book.exercise, else its file name."""
    recorded = nb.metadata.get("book", {}).get("exercise")
    if recorded in names:
        return recorded
    if recorded:
        raise NotebookError(
            f"{shown(path)}: its metadata names exercise {recorded!r}, which is not one "
            f"of: {', '.join(names)}"
        )
    inside = [name for name in names if name in path.stem]
    if not inside:
        known = ", ".join(names) or "none (no exercises found)"
        raise NotebookError(
            f"{shown(path)}: cannot tell which exercise this is: its metadata has no "
            f"book.exercise (download a fresh exercise notebook and copy your work into "
            f"it) and its file name contains none of: {known}"
        )
    return max(inside, key=len)


def checks_module(pristine: NotebookNode, exercise: str) -> str:
    """The check module of an exercise: from its metadata, else from its check cells' imports."""
    recorded = pristine.metadata.get("book", {}).get("checks")
    if recorded:
        return recorded
    found = {
        match
        for cell in graded_cells(pristine).values()
        for match in re.findall(r"from book\.checks import (\w+)", cell.source)
    }
    if len(found) != 1:
        raise NotebookError(
            f"exercise {exercise}: cannot tell its check module; regenerate it with "
            "python -m book.exercises"
        )
    return f"book.checks.{found.pop()}"


def learner_name(path: Path, exercise: str, roots: list[Path]) -> str:
    """Who submitted: the file name without the exercise name, else the folder it is in."""
    name = path.stem.replace(exercise, "").strip("_-. ")
    if name:
        return name
    parent = path.resolve().parent
    return parent.name if parent not in {root.resolve() for root in roots} else path.stem


def submissions(paths: list[Path]) -> list[Path]:
    """The notebooks to grade: files as given, folders searched recursively (not checkpoints)."""
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


def grade_file(
    path: Path,
    sources: dict[str, Callable[[], NotebookNode]],
    seed: int,
    limits: Limits,
    hide: list[Path],
    roots: list[Path],
    sandbox: str = "auto",
) -> Grade:
    """Grade one submission file; a file problem becomes Grade.error instead of an exception."""
    try:
        submission = read_notebook(path)
        exercise = exercise_of(path, submission, sorted(sources))
        pristine = sources[exercise]()
        if not graded_cells(pristine):
            raise NotebookError(
                f"exercise {exercise} has no graded check cells (metadata book.task); "
                "regenerate it with python -m book.exercises"
            )
        checks = checks_module(pristine, exercise)
    except NotebookError as error:
        return Grade(path, "", error=str(error), seed=seed)
    learner = learner_name(path, exercise, roots)
    try:
        grade = grade_cells(
            path,
            exercise,
            submission,
            check_matcher(pristine),
            checks,
            seed,
            limits,
            find_sandbox(sandbox),
            hide,
        )
    except (ImportError, LookupError) as error:  # the grader's own installation or checks
        return Grade(
            path,
            exercise,
            learner,
            error=f"the checks of exercise {exercise} ({checks}) cannot be loaded: {error}",
            seed=seed,
        )
    except (
        RuntimeError,
        OSError,
    ) as error:  # the kernel would not start: the environment, not the learner
        return Grade(
            path,
            exercise,
            learner,
            error=f"could not run {shown(path)} in a Python kernel "
            f"({error}); check that ipykernel is installed in this environment",
            seed=seed,
        )
    grade.learner = learner
    expected = {
        cell.metadata.book["task"]: cell.metadata.book["points"]
        for cell in graded_cells(pristine).values()
    }
    judged = {task.task: task.max_points for task in grade.tasks}
    if judged != expected:
        grade.notes.append(
            f"the grader's tasks {judged} differ from the exercise's {expected}: "
            "regenerate the exercise or fix the check module"
        )
    return grade


def main(argv: list[str] | None = None) -> int:
    """Command line; the exit status is 0 all passed, 1 some failed, 2 a usage or file error."""
    first = __doc__.partition("\n\n")[0]
    parser = argparse.ArgumentParser(
        prog="python -m book.grade",
        description=first,
        epilog="Exit status: 0 every task passed, 1 some task failed, 2 usage or file error.",
    )
    parser.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="submitted notebooks or folders of them"
    )
    parser.add_argument("--csv", type=Path, metavar="FILE", help="one row per learner and exercise")
    parser.add_argument("--tasks-csv", type=Path, metavar="FILE", help="one row per task")
    parser.add_argument(
        "--report", type=Path, metavar="DIR", help="one text report per learner in DIR"
    )
    parser.add_argument("--seed", type=int, help="seed of the hidden cases (default: a fresh one)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=30,
        metavar="SECONDS",
        help="time limit per cell (default 30)",
    )
    parser.add_argument(
        "--total",
        type=float,
        default=600,
        metavar="SECONDS",
        help="time limit per notebook (default 600)",
    )
    parser.add_argument(
        "--memory",
        type=int,
        default=4096,
        metavar="MB",
        help="memory limit of the kernel (address space, default 4096)",
    )
    parser.add_argument(
        "--sandbox",
        choices=["auto", "none"],
        default="auto",
        help="auto: bubblewrap where it works (default); none: limits and audit hook only",
    )
    parser.add_argument(
        "--exercises",
        type=Path,
        metavar="DIR",
        help="folder of pristine exercise notebooks (default: generated from solutions/)",
    )
    args = parser.parse_args(argv)
    if args.timeout <= 0 or args.total <= 0 or args.memory <= 0:
        parser.error("--timeout, --total and --memory must be positive")
    if args.exercises is not None and not args.exercises.is_dir():
        parser.error(f"--exercises {args.exercises}: no such folder")
    try:
        paths = submissions(args.paths)
    except NotebookError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sources = exercise_sources(args.exercises)
    seed = new_seed() if args.seed is None else args.seed
    limits = Limits(args.timeout, args.total, args.memory)
    outputs = [path.resolve().parent for path in (args.csv, args.tasks_csv) if path] + (
        [args.report.resolve()] if args.report else []
    )
    print(f"{find_sandbox(args.sandbox).note}; hidden cases from seed {seed}\n", flush=True)
    grades = []
    for path in paths:
        grade = grade_file(path, sources, seed, limits, outputs, args.paths, args.sandbox)
        if grade.error:
            print(f"error: {grade.error}\n", file=sys.stderr, flush=True)
        else:
            print(format_grade(grade), flush=True)
        grades.append(grade)
    if len(grades) > 1:
        print(format_class(grades))
    for option, write in [
        (args.csv, write_csv),
        (args.tasks_csv, write_tasks_csv),
        (args.report, write_reports),
    ]:
        if option:
            write(grades, option)
            print(f"wrote {shown(option)}")
    if any(grade.error for grade in grades):
        return 2
    return 0 if all(grade.passed for grade in grades) else 1


if __name__ == "__main__":
    sys.exit(main())
