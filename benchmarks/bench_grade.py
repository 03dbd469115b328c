"""Grading a class: the time of ``--jobs 1`` and ``--jobs N`` on one folder, and their ratio.

    .venv/bin/python benchmarks/bench_grade.py                 # 40 notebooks, --jobs 1 and 2
    .venv/bin/python benchmarks/bench_grade.py --count 4 --jobs 2

The folder holds ``--count`` copies of a solved exercise notebook (chapter 03's by default), each
under a learner's name, as a class hands them in. Both runs grade the same folder with the same
seed; the script checks that they give the same grades before it prints the times. The target on
a 2-core machine: ``--jobs 2`` takes at most 60% of the ``--jobs 1`` time.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def grade(folder: Path, jobs: int, out: Path) -> tuple[float, list[dict]]:
    """Seconds to grade folder with --jobs jobs, and the CSV rows."""
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "book.grade", str(folder), "--seed", "1", "--jobs", str(jobs)]
        + ["--csv", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    seconds = time.monotonic() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"grading failed:\n{done.stderr[-2000:]}")
    with open(out, encoding="utf-8") as file:
        rows = sorted(
            ({k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(file)),
            key=lambda row: row["learner"],
        )
    return seconds, rows


def main(argv: list[str] | None = None) -> None:
    """Make the class folder, grade it with --jobs 1 and --jobs N, print the times."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=40, help="notebooks in the class")
    parser.add_argument("--jobs", type=int, default=2, help="the parallel run's --jobs")
    parser.add_argument("--notebook", type=Path, default=ROOT / "solutions" / "03_words.ipynb")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "class"
        folder.mkdir()
        for k in range(args.count):
            name = f"learner{k:02d}_{args.notebook.stem}.ipynb"  # the name says which exercise
            (folder / name).write_bytes(args.notebook.read_bytes())
        serial, serial_rows = grade(folder, 1, Path(tmp) / "serial.csv")
        parallel, parallel_rows = grade(folder, args.jobs, Path(tmp) / "parallel.csv")
    if serial_rows != parallel_rows:
        raise SystemExit("--jobs 1 and --jobs N gave different grades")
    print(f"{args.count} notebooks ({args.notebook.name}), one seed, same grades both ways")
    print(f"--jobs 1        {serial:7.1f} s")
    share = f"{parallel / serial:.0%} of the --jobs 1 time"
    print(f"--jobs {args.jobs:<8} {parallel:7.1f} s  ({share})")


if __name__ == "__main__":
    main()
