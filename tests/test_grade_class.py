"""A class at a time: whatever one notebook does, every learner is graded, and --seed reproduces.

The class is a folder with two correct notebooks, one that writes a malformed record, one that
reads another copy of the course and one that reads the environment, graded two at a time. Then
one notebook is graded twice with one --seed under two PYTHONHASHSEED values (chapters 04 and
09 draw hidden cases from sets): the reports are the same bytes. Then a notebook that prints a
flood: the grader's memory does not grow with it.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import pytest
from test_cheats import CANARY, COPY_MARK, MALFORMED, READ_COPY, READ_ENVIRONMENT, another_copy
from test_exercise_system import DEMO, fill

from book.checks import demo
from book.exercises import make_exercise
from book.grading.kernel import CELL_OUTPUT
from book.notebooks import ROOT, notebook_text, read_notebook

pytestmark = pytest.mark.slow
__all__ = ["another_copy"]  # the fixture that makes the other copy of the course
ANSWERS = {"dave": READ_COPY, "carol": MALFORMED, "erin": READ_ENVIRONMENT}


def grade(*args: str, hash_seed: str = "random") -> subprocess.CompletedProcess:
    """python -m book.grade with args, the grader's environment holding a canary."""
    env = {**os.environ, "GRADER_TOKEN": CANARY, "PYTHONHASHSEED": hash_seed}
    return subprocess.run(
        [sys.executable, "-m", "book.grade", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=900,
        check=False,
    )


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, another_copy):
    """The class folder, graded with --jobs 2; (process, CSV rows, tasks rows, reports folder)."""
    root = tmp_path_factory.mktemp("class")
    exercises = root / "exercises"
    exercises.mkdir()
    exercise = make_exercise(read_notebook(DEMO), exercise="99_demo")
    (exercises / "99_demo.ipynb").write_text(notebook_text(exercise), encoding="utf-8")
    folder = root / "submissions"
    folder.mkdir()
    solutions = read_notebook(DEMO)
    for learner in ("alice", "bob", *ANSWERS):
        replace = {"char-codes": ANSWERS[learner]} if learner in ANSWERS else None
        nb = fill(exercise, solutions, replace)
        (folder / f"{learner}.ipynb").write_text(notebook_text(nb), encoding="utf-8")
    out = root / "out"
    done = grade(
        str(folder),
        "--exercises",
        str(exercises),
        "--seed",
        "5",
        "--jobs",
        "2",
        "--csv",
        str(out / "grades.csv"),
        "--tasks-csv",
        str(out / "tasks.csv"),
        "--report",
        str(out / "reports"),
    )
    with open(out / "grades.csv", encoding="utf-8") as file:
        rows = {row["learner"]: row for row in csv.DictReader(file)}
    with open(out / "tasks.csv", encoding="utf-8") as file:
        tasks = {(row["learner"], row["task"]): row for row in csv.DictReader(file)}
    return done, rows, tasks, out / "reports"


def test_every_learner_has_a_row_and_a_report(graded_class):
    done, rows, _, reports = graded_class
    learners = {"alice", "bob", *ANSWERS}
    assert set(rows) == learners, done.stderr
    assert {path.stem for path in reports.glob("*.txt")} == learners
    assert "graded 5 of 5 (0 remaining" in done.stderr


def test_correct_notebooks_get_full_points_and_the_others_zero_on_those_tasks(graded_class):
    _, rows, tasks, _ = graded_class
    total = str(sum(spec.points for spec in demo.SPECS))
    assert rows["alice"]["points"] == rows["bob"]["points"] == rows["alice"]["max_points"] == total
    for learner in ANSWERS:
        assert tasks[(learner, "char_codes")]["points"] == "0", tasks[(learner, "char_codes")]
        assert tasks[(learner, "decode")]["status"] == "passed"
    assert tasks[("carol", "char_codes")]["error_class"] == "malformed"
    assert "reading" in (graded_class[3] / "dave.txt").read_text(encoding="utf-8")


def test_nothing_leaked_into_any_output(graded_class):
    done, _, _, reports = graded_class
    outputs = [done.stdout, done.stderr] + [
        path.read_text(encoding="utf-8") for path in reports.parent.rglob("*.*") if path.is_file()
    ]
    for text in outputs:
        assert CANARY not in text and "GRADER_TOKEN" not in text and COPY_MARK not in text


@pytest.mark.parametrize(
    "notebooks",
    [("exercises/04_char_bpe.ipynb", "solutions/10_fast_bpe.ipynb")],
    ids=["chapters 04 and 09"],
)
def test_one_seed_gives_the_same_reports_under_any_hash_seed(tmp_path, notebooks):
    reports = []
    for hash_seed in ("1", "2"):
        out = tmp_path / hash_seed
        done = grade(*notebooks, "--seed", "7", "--report", str(out), hash_seed=hash_seed)
        assert "cases " in done.stdout, done.stderr
        reports.append({path.name: path.read_bytes() for path in sorted(out.iterdir())})
    assert reports[0] == reports[1] and len(reports[0]) == 2


MEASURE = """
import sys
from pathlib import Path
from nbformat.v4 import new_code_cell
from book.grading.kernel import run_cells
flood = "import time\\nfor _ in range(150):\\n    print('x' * 2**20, flush=True)"
cells = [new_code_cell(flood), new_code_cell("print('y' * 150 * 2**20)"), new_code_cell("1 + 1")]
command = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
problems, _ = run_cells(cells, (command, {}), Path(sys.argv[1]), 120, 300)
kept = max(sum(len(out.get("text", "")) for out in cell.outputs) for cell in cells)
# VmHWM: the peak of this process image (ru_maxrss would count the forking parent's too)
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(int(peak.split()[1]) // 1024, kept, problems)
"""


def test_a_flood_of_output_does_not_grow_the_grader(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        cwd=ROOT,
    )
    peak_mb, kept, problems = done.stdout.split(maxsplit=2)
    assert problems.strip() == "{}"
    assert 0 < int(kept) <= CELL_OUTPUT + 100  # each cell's output, capped
    assert int(peak_mb) < 150, f"the grader peaked at {peak_mb} MB for 300 MB of output"


def test_the_reports_name_the_cases_they_were_graded_on(graded_class):
    _, _, _, reports = graded_class
    texts = [path.read_text(encoding="utf-8") for path in reports.glob("*.txt")]
    lines = [line for text in texts for line in text.splitlines() if "cases " in line]
    digests = {line.split("cases ")[1] for line in lines}
    assert len(digests) == 1  # one seed, one set of cases for the whole class


def test_the_class_table_lists_everyone(graded_class):
    done, _, _, _ = graded_class
    table = done.stdout.split("tasks passed", 1)[1]
    assert all(f"{learner}.ipynb" in table for learner in ("alice", "bob", *ANSWERS))
