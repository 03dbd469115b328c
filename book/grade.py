"""Grade exercise notebooks: a judge outside the learner's kernel decides, on inputs they never saw.

    python -m book.grade my_work/05_byte_bpe.ipynb
    python -m book.grade submissions/ --csv grades.csv --report reports/ --seed 1234 --jobs 2
    python -m book.grade --exercise 04_char_bpe --csv grades.csv -- *

Paths come after the options; after ``--`` every argument is a path, even one that starts with
``-``. The grader refuses to start when an argument it would read as an option is also the
name of an existing file (a file named ``--sandbox=none`` among ``*``): put the paths after
``--``. Only regular files are graded: a symbolic link, a hard link (a file with other names)
or a notebook over 20 MB gets a row that says why it was refused, and is never read.

For each submission (a notebook, or every notebook in a folder) the grader reads which exercise
it is from the notebook's metadata (``book.exercise``, written by the exercise generator), so
any file name works; a notebook without it is recognized by its file name, or refused with a
clear error. A class is graded as one exercise: ``--exercise``, else the one most notebooks
carry; a notebook of another exercise gets 0 with "this is exercise 01_..., not 04_...",
unless ``--any-exercise`` grades each as the exercise it carries.

Who submitted a notebook: the folder it is in, when it is in a folder under a folder given on
the command line (a folder per learner); else its file name without the exercise's name
(``alice_04_char_bpe.ipynb``: alice). Names that differ only in case are one learner. A
learner gets one row per exercise: of several files, the one graded is the first of a fixed
order (``submission.CHOICE``), and the row names the others.

The grader runs a copy of the learner's cells in a fresh kernel, in a bubblewrap sandbox that
shows only the Python environment, the book's package with its references stubbed and the
notebook's scratch folder (a tmpfs of 128 MB), with no network, with time and memory limits, and
with an environment of its own (its hash seed too: a keyed hash of the seed, with a key the
kernel never sees). Then it calls the learner's functions on the check's fixed cases and on
hidden cases drawn fresh from a seed, one call at a time, gets plain values back (at most 4 MB
each, read in time linear in their size, counted in the task's time limit), and compares them
here with the values the book's reference computes. Nothing the kernel prints counts, and every
line it sends is checked before it is believed. The submission is never modified. Each notebook
is graded in a process of its own, ``--jobs`` at a time; whatever one notebook does, the others
are graded and every learner gets a row and a report.

Without bubblewrap the grader refuses to grade, unless ``--sandbox none`` is given, as two
words before any ``--`` (inside a container or a virtual machine that holds nothing else); then
the class table, the CSV and every report say what was not isolated.

Output: a table per submission, a class table, and with --csv one row per learner and exercise
(points, max, seed, seconds, error classes), with --tasks-csv one row per task, with --report
DIR one text file per learner saying what failed, with the hint. The seed is in every report:
--seed reproduces a grade, byte for byte, whatever the PYTHONHASHSEED of the grader.

Exit status: 0 every task of every submission passed; 1 some task failed or some submission
was refused (its row says why); 2 a usage or file error (missing path, an option that is also a
file's name, no sandbox, no submission that could be graded) or the grader failed on a notebook.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
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
from book.grading.submission import (
    assign,
    carried_exercise,
    class_exercise,
    exercise_sources,
    submissions,
)
from book.grading.workers import Job, grade_all
from book.notebooks import NotebookError, shown

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m book.grade",
        description=__doc__.partition("\n\n")[0],
        epilog="Put the paths after -- when one may start with '-'. Exit status: 0 every task "
        "passed, 1 some task failed or a submission was refused, 2 usage or file error.",
        allow_abbrev=False,  # '--sand none' is not '--sandbox none'
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
        help="bubblewrap (default; the grader refuses to grade without it) or none (as two "
        "words): run learners' code unisolated, only inside a container that holds nothing else",
    )
    parser.add_argument(
        "--exercise",
        metavar="NN_SLUG",
        help="the class's exercise, e.g. 04_char_bpe (default: the one most notebooks carry)",
    )
    parser.add_argument(
        "--any-exercise",
        action="store_true",
        help="grade each notebook as the exercise it carries (default: a notebook of another "
        "exercise than the class's gets 0)",
    )
    parser.add_argument(
        "--exercises",
        type=Path,
        metavar="DIR",
        help="folder of pristine exercise notebooks (default: generated from solutions/)",
    )
    return parser


def misread(argv: list[str]) -> str:
    """Why the command line cannot be trusted as typed ('' when it can): an argument read as an
    option that is also an existing file's name, or --sandbox=none written as one word.

    >>> misread(["--sandbox=none", "a.ipynb"])[:40]
    'write --sandbox none as two words, after'
    """
    options = argv[: argv.index("--")] if "--" in argv else argv
    for arg in options:
        if arg.startswith("-") and arg != "-" and os.path.lexists(arg):
            return (
                f"{arg!r} reads as an option but is also the name of a file here; put the paths "
                "after -- (python -m book.grade [OPTIONS] -- PATH...) or rename the file"
            )
        if arg.startswith("--sandbox="):
            return (
                "write --sandbox none as two words, after which come the paths "
                f"(or put {arg!r} after --)"
            )
    return ""


def main(argv: list[str] | None = None) -> int:
    """Command line; the exit status is 0 all passed, 1 some failed, 2 a usage or file error."""
    parser = _parser()
    argv = sys.argv[1:] if argv is None else argv
    if misread(argv):
        parser.error(misread(argv))
    args = parser.parse_args(argv)
    if args.timeout <= 0 or args.total <= 0 or args.memory <= 0 or args.jobs <= 0:
        parser.error("--timeout, --total, --memory and --jobs must be positive")
    if args.exercises is not None and not args.exercises.is_dir():
        parser.error(f"--exercises {args.exercises}: no such folder")
    names = sorted(exercise_sources(args.exercises))
    if args.exercise is not None and args.exercise not in names:
        parser.error(f"--exercise {args.exercise}: not one of {', '.join(names)}")
    try:
        sandbox = find_sandbox(args.sandbox)
        paths = submissions(args.paths)
    except (Unavailable, NotebookError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    carried = {path: carried_exercise(path, names) for path in paths}
    exercise = args.exercise or class_exercise(list(carried.values()))
    expected = None if args.any_exercise else exercise
    chosen = assign(
        paths,
        args.paths,
        names,
        lambda path: expected or carried[path] or "",
        lambda path: carried[path] is not None and carried[path] == (expected or carried[path]),
    )
    seed = new_seed() if args.seed is None else args.seed
    limits = Limits(args.timeout, args.total, args.memory)
    graded_as = f"exercise {expected}" if expected else "each notebook as its exercise"
    print(f"{sandbox.note}; hidden cases from seed {seed}; {graded_as}\n", flush=True)
    exercises = str(args.exercises.resolve()) if args.exercises else None
    roots = [str(root) for root in args.paths]
    environment = dataclasses.asdict(python_environment())  # once for the whole class
    jobs = [
        Job(
            str(submission.path),
            exercises,
            seed,
            dataclasses.asdict(limits),
            roots,
            args.sandbox,
            environment,
            expected,
            submission.learner,
            tuple(filter(None, [submission.note()])),
        )
        for submission in chosen
    ]

    def show_grade(grade: Grade) -> None:
        if grade.error:
            where = "" if shown(grade.submission) in grade.error else f"{shown(grade.submission)}: "
            print(f"error: {escape(where + grade.error)}\n", file=sys.stderr, flush=True)
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
    if any(grade.error and not grade.refused for grade in grades) or all(
        grade.refused for grade in grades
    ):
        return 2
    return 0 if all(grade.passed for grade in grades) else 1


if __name__ == "__main__":
    sys.exit(main())
