"""Grade exercise notebooks: a judge outside the learner's kernel decides, on inputs they never saw.

    python -m book.grade my_work/05_byte_bpe.ipynb
    python -m book.grade submissions/ --csv grades.csv --report reports/ --seed 1234 --jobs 2

For each submission (a notebook, or every notebook in a folder) the grader reads which exercise
it is from the notebook's metadata (``book.exercise``, written by the exercise generator), so
any file name works; a notebook without it is recognized by its file name, or refused with a
clear error. It runs a copy of the learner's cells in a fresh kernel, in a bubblewrap sandbox
that shows only the Python environment, the book's package with its references stubbed and the
notebook's scratch folder, with no network, with time and memory limits, and with an
environment of its own. Then it calls the learner's functions on the check's fixed cases and on
hidden cases drawn fresh from a seed, one call at a time, gets plain values back, and compares
them here with the values the book's reference computes. Nothing the kernel prints counts, and
every line it sends is checked before it is believed. The submission is never modified. Each
notebook is graded in a process of its own, ``--jobs`` at a time; whatever one notebook does,
the others are graded and every learner gets a row and a report.

Without bubblewrap the grader refuses to grade, unless ``--sandbox none`` is given (inside a
container or a virtual machine that holds nothing else); then every report says what was not
isolated.

Output: a table per submission, a class table, and with --csv one row per learner and exercise
(points, max, seed, seconds, error classes), with --tasks-csv one row per task, with --report
DIR one text file per learner saying what failed, with the hint. The seed is in every report:
--seed reproduces a grade, byte for byte, whatever the PYTHONHASHSEED of the grader.

Exit status: 0 every task of every submission passed; 1 some task failed; 2 a usage or file error
(missing path, not a notebook, unreadable JSON, a notebook that names no known exercise, no
sandbox).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from book.grading.judge import Grade, new_seed
from book.grading.report import (
    escape,
    format_class,
    format_grade,
    write_csv,
    write_reports,
    write_tasks_csv,
)
from book.grading.sandbox import SANDBOXES, Limits, Unavailable, find_sandbox, python_environment
from book.grading.submission import submissions
from book.grading.workers import Job, grade_all
from book.notebooks import NotebookError, shown

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m book.grade",
        description=__doc__.partition("\n\n")[0],
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
        help="time limit per cell, and per task's calls (default 30)",
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
        "--jobs", type=int, default=1, metavar="N", help="notebooks graded at once (default 1)"
    )
    parser.add_argument(
        "--sandbox",
        choices=SANDBOXES,
        default="bubblewrap",
        help="bubblewrap (default; the grader refuses to grade without it) or none: run "
        "learners' code unisolated, only inside a container that holds nothing else",
    )
    parser.add_argument(
        "--exercises",
        type=Path,
        metavar="DIR",
        help="folder of pristine exercise notebooks (default: generated from solutions/)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command line; the exit status is 0 all passed, 1 some failed, 2 a usage or file error."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.timeout <= 0 or args.total <= 0 or args.memory <= 0 or args.jobs <= 0:
        parser.error("--timeout, --total, --memory and --jobs must be positive")
    if args.exercises is not None and not args.exercises.is_dir():
        parser.error(f"--exercises {args.exercises}: no such folder")
    try:
        sandbox = find_sandbox(args.sandbox)
        paths = submissions(args.paths)
    except (Unavailable, NotebookError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    seed = new_seed() if args.seed is None else args.seed
    limits = Limits(args.timeout, args.total, args.memory)
    print(f"{sandbox.note}; hidden cases from seed {seed}\n", flush=True)
    exercises = str(args.exercises.resolve()) if args.exercises else None
    roots = [str(root) for root in args.paths]
    environment = dataclasses.asdict(python_environment())  # once for the whole class
    jobs = [
        Job(
            str(path), exercises, seed, dataclasses.asdict(limits), roots, args.sandbox, environment
        )
        for path in paths
    ]

    def show_grade(grade: Grade) -> None:
        if grade.error:
            print(f"error: {escape(grade.error)}\n", file=sys.stderr, flush=True)
        else:
            print(format_grade(grade), flush=True)

    def show_progress(line: str) -> None:
        if len(jobs) > 1:
            print(line, file=sys.stderr, flush=True)

    grades = grade_all(jobs, args.jobs, show_grade, show_progress)
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
