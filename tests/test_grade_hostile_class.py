"""A class with hostile learners in it: every learner one row, the honest ones full points.

The class of chapter 04 is two honest copies of the solution beside the hostile submissions of
issue 29: names that clash by case (Bob_/bob-3_/bob_, 0A/0a-2/0a), a nested mallory/bob_…, a
symbolic link to the solutions, a hard link, a file named ``--sandbox=none``, a chapter-01
solution, a name that starts with ``=``, an answer of 20,000 integers with one hash, an answer
too large to read, a 21 MB attachment, a notebook that fills its scratch folder and one whose
metadata.book is a string. Every notebook is made here, from the committed ones. The class is
graded as a teacher would in that folder, ``python -m book.grade --jobs 2 --csv --report -- *``,
once; then the same ``*`` without ``--`` must not start at all.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from book.grading.record import MAX_LINE_BYTES
from book.grading.submission import MAX_NOTEBOOK_MB
from book.notebooks import ROOT, notebook_text, read_notebook

pytestmark = pytest.mark.slow
SOLUTION = ROOT / "solutions" / "04_char_bpe.ipynb"
EXERCISE = ROOT / "exercises" / "04_char_bpe.ipynb"
FULL_POINTS = "14"  # exercise 04: the sum of its tasks' points
COLLIDING = (  # 20,000 integers with one hash: a set of them is quadratic to build
    "M = 2**61 - 1\n"
    "ONE_HASH = {k * M for k in range(20_000)}\n"
    "def merge_and_save(splits, word_freqs, pair):\n"
    "    return ONE_HASH\n"
)
HUGE = (  # about 24 MB once encoded
    "def merge_and_save(splits, word_freqs, pair):\n    return [0] * 8_000_000\n"
)
FILL_SCRATCH = (
    "written = 0\n"
    "with open('fill.bin', 'wb') as file:\n"
    "    while written < 2**32:\n"
    "        file.write(b'x' * 2**20)\n"
    "        file.flush()\n"
    "        written += 2**20\n"
)


def exercise_with(*sources: str) -> nbformat.NotebookNode:
    """The chapter-04 exercise (nothing solved) with the cells of sources at its end."""
    nb = read_notebook(EXERCISE)
    nb.cells += [new_code_cell(source) for source in sources]
    return nb


def write(path, nb: nbformat.NotebookNode) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(notebook_text(nb), encoding="utf-8")


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    """The class folder, graded once; (process, CSV rows by learner, reports folder, folder)."""
    root = tmp_path_factory.mktemp("hostile")
    folder = root / "class"
    folder.mkdir()
    solution = read_notebook(SOLUTION)
    for name in ("alice", "bob"):
        write(folder / f"{name}_04_char_bpe.ipynb", solution)
    for name in ("Bob", "bob-3", "0A", "0a-2", "0a", "=1+1"):
        write(folder / f"{name}_04_char_bpe.ipynb", exercise_with())
    write(folder / "mallory" / "bob_04_char_bpe.ipynb", exercise_with())
    (folder / "sym_04_char_bpe.ipynb").symlink_to(SOLUTION)
    write(root / "elsewhere.ipynb", solution)
    os.link(root / "elsewhere.ipynb", folder / "hard_04_char_bpe.ipynb")
    (folder / "--sandbox=none").write_text("", encoding="utf-8")
    write(
        folder / "frank_01_text_to_numbers.ipynb",
        read_notebook(ROOT / "solutions" / "01_text_to_numbers.ipynb"),
    )
    write(folder / "collide_04_char_bpe.ipynb", exercise_with(COLLIDING))
    write(folder / "huge_04_char_bpe.ipynb", exercise_with(HUGE))
    write(folder / "scratch_04_char_bpe.ipynb", exercise_with(FILL_SCRATCH))
    attached = exercise_with()
    picture = "A" * (MAX_NOTEBOOK_MB + 1) * 2**20
    attached.cells.append(
        new_markdown_cell(
            "![](attachment:big.png)", attachments={"big.png": {"image/png": picture}}
        )
    )
    write(folder / "attach_04_char_bpe.ipynb", attached)
    stringly = exercise_with()
    stringly.metadata["book"] = "04_char_bpe"
    write(folder / "book_04_char_bpe.ipynb", stringly)
    out = root / "out"
    done = grade(
        folder,
        "--jobs",
        "2",
        "--seed",
        "3",
        "--csv",
        str(out / "grades.csv"),
        "--report",
        str(out / "reports"),
        "--",
        *sorted(os.listdir(folder)),
    )
    with open(out / "grades.csv", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    return done, rows, out / "reports", folder


def grade(folder, *args: str, timeout: float = 1200) -> subprocess.CompletedProcess:
    """python -m book.grade with args, run in folder (as `python -m book.grade ... *` there)."""
    return subprocess.run(
        [sys.executable, "-m", "book.grade", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=timeout,
        check=False,
    )


def by_learner(rows: list[dict]) -> dict[str, dict]:
    return {row["learner"]: row for row in rows}


def test_every_learner_has_one_row_and_one_report(hostile_class):
    done, rows, reports, _ = hostile_class
    learners = [row["learner"] for row in rows]
    assert sorted(learners) == sorted(
        [
            "alice",
            "bob",
            "bob-3",
            "0a",
            "0a-2",
            "'=1+1",
            "sym",
            "hard",
            "sandbox=none",
            "frank",
            "collide",
            "huge",
            "scratch",
            "attach",
            "book",
        ]
    ), done.stderr
    assert len({path.name.casefold() for path in reports.glob("*.txt")}) == len(rows)
    assert done.returncode == 1, done.stderr  # some failed or were refused; the grader did not
    print(done.stdout[done.stdout.index("learner  ") :])  # the class table, for the record


def test_the_honest_two_get_full_points_and_their_reports(hostile_class):
    _, rows, reports, _ = hostile_class
    rows = by_learner(rows)
    for learner in ("alice", "bob"):
        assert rows[learner]["points"] == rows[learner]["max_points"] == FULL_POINTS, rows[learner]
        assert f"{FULL_POINTS}/{FULL_POINTS} points" in (reports / f"{learner}.txt").read_text()
    bob = (reports / "bob.txt").read_text(encoding="utf-8")  # the other "bob"s: named, not graded
    assert "Bob_04_char_bpe.ipynb" in bob and "mallory/bob_04_char_bpe.ipynb" in bob
    assert "0A_04_char_bpe.ipynb" in (reports / "0a.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "learner, why",
    [
        ("sym", "is a symbolic link"),
        ("hard", "is a hard link"),
        ("sandbox=none", "is not a notebook"),
        ("frank", "this is exercise 01_text_to_numbers, not 04_char_bpe"),
        ("attach", f"over the grader's limit of {MAX_NOTEBOOK_MB} MB"),
        ("book", "its metadata.book is a str"),
    ],
)
def test_a_refused_submission_gets_a_row_that_says_why(hostile_class, learner, why):
    _, rows, reports, _ = hostile_class
    row = by_learner(rows)[learner]
    assert row["points"] == "0" and why in row["error"], row
    assert why in (reports / f"{learner.replace('=', '_')}.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "learner, says",
    [
        ("collide", "share one hash (building it would take time in the square of its size)"),
        ("huge", f"over {MAX_LINE_BYTES // 2**20} MB once encoded"),
        ("scratch", "No space left on device"),
        ("bob-3", "(not attempted)"),
        ("0a-2", "(not attempted)"),
        ("'=1+1", "(not attempted)"),
    ],
)
def test_each_hostile_notebook_gets_zero_and_its_report_says_why(hostile_class, learner, says):
    _, rows, reports, _ = hostile_class
    row = by_learner(rows)[learner]
    assert row["points"] == "0" and row["max_points"] == FULL_POINTS and not row["error"], row
    name = learner.lstrip("'").replace("=", "_").replace("+", "_")
    assert says in (reports / f"{name}.txt").read_text(encoding="utf-8")


def test_the_sandbox_stayed_on_and_every_output_says_so(hostile_class):
    done, rows, reports, _ = hostile_class
    assert all(row["sandbox"].startswith("sandbox: bubblewrap") for row in rows)
    assert "NOT isolated" not in done.stdout + done.stderr
    assert "sandbox: bubblewrap" in done.stdout.split("learner  ")[-1]  # the class table
    assert all("note: sandbox: bubblewrap" in path.read_text() for path in reports.glob("*.txt"))


def test_a_spreadsheet_reads_no_formula_in_the_csv(hostile_class):
    _, rows, _, _ = hostile_class
    for row in rows:
        for cell in row.values():
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), row


def test_an_option_named_file_among_the_paths_stops_the_grader_before_it_starts(hostile_class):
    folder = hostile_class[3]
    done = grade(folder, *sorted(os.listdir(folder)), timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert "'--sandbox=none' reads as an option but is also the name of a file here" in done.stderr
    assert "after --" in done.stderr
