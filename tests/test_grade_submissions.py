"""What the grader takes from a class folder before it grades: files, learners, exercise, CSV.

Adversarial names go through the learner rule under a hard time limit (an alarm, not a speed
assertion): any set of names ends with one row per learner and exercise and one report file
each. Links, special files, oversized notebooks and a string in metadata.book are refused with
the reason; a command line where an option is also a file's name is refused before grading.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import random
import signal
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book import grade
from book.grading import harness, judge
from book.grading.channel import Channel
from book.grading.judge import Grade
from book.grading.record import MAX_LINE_BYTES, TooLarge
from book.grading.report import csv_cell, format_class, learner_report, report_names, write_csv
from book.grading.sandbox import NO_SANDBOX, Limits, Sandbox, python_environment
from book.grading.submission import (
    MAX_NOTEBOOK_MB,
    assign,
    class_exercise,
    learner_key,
    read_submission,
)
from book.notebooks import NotebookError, notebook_text

EXERCISES = ["04_char_bpe", "01_text_to_numbers"]
SECONDS = 10  # for one example of a few dozen names: far beyond what it needs, short of a hang


@contextlib.contextmanager
def time_limit(seconds: int):
    """Raise TimeoutError in the block after seconds (a loop that never ends fails the test)."""

    def stop(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: a loop that does not end?")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


NAME = st.text(alphabet="aAbB0_-. =+@~ßSs\u0130i", min_size=0, max_size=6)
FILE = st.builds(
    lambda folders, name, exercise, sep: Path("c", *folders, f"{name}{sep}{exercise}.ipynb"),
    st.lists(st.sampled_from(["mallory", "Mallory", "bob", "0a"]), max_size=2),
    NAME,
    st.sampled_from(["", *EXERCISES]),
    st.sampled_from(["", "_", "-", " "]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FILE, max_size=40), st.randoms(use_true_random=False))
def test_any_set_of_names_gives_one_row_per_learner_and_exercise(paths, rng):
    exercise = {path: next((e for e in EXERCISES if e in path.stem), "") for path in paths}
    with time_limit(SECONDS):
        chosen = assign(paths, [Path("c")], EXERCISES, exercise.get)
        shuffled = assign(rng.sample(paths, len(paths)), [Path("c")], EXERCISES, exercise.get)
        names = report_names([learner_key(submission.learner) for submission in chosen])
    assert chosen == shuffled  # a fixed order, whatever the order the files were found in
    listed = [path for submission in chosen for path in (submission.path, *submission.others)]
    assert sorted(listed) == sorted(set(paths))  # every file graded or named, once
    rows = [(learner_key(s.learner), exercise[s.path]) for s in chosen]
    assert len(rows) == len(set(rows))
    assert all(s.note() and "not graded" in s.note() for s in chosen if s.others)
    files = {name.casefold() for name in names.values()}
    assert len(files) == len(names) and all(len(name) <= 97 for name in files)


def test_case_copies_and_nested_folders_resolve_as_documented():
    paths = [
        Path("c/Bob_04_char_bpe.ipynb"),
        Path("c/bob-3_04_char_bpe.ipynb"),
        Path("c/bob_04_char_bpe.ipynb"),
        Path("c/0A_04_char_bpe.ipynb"),
        Path("c/0a-2_04_char_bpe.ipynb"),
        Path("c/0a_04_char_bpe.ipynb"),
        Path("c/mallory/bob_04_char_bpe.ipynb"),
    ]
    chosen = assign(paths, [Path("c")], EXERCISES, lambda path: "04_char_bpe")
    graded = {s.learner: (s.path.name, [p.name for p in s.others]) for s in chosen}
    assert graded == {
        "bob": ("bob_04_char_bpe.ipynb", ["Bob_04_char_bpe.ipynb"]),
        "bob-3": ("bob-3_04_char_bpe.ipynb", []),
        "0a": ("0a_04_char_bpe.ipynb", ["0A_04_char_bpe.ipynb"]),
        "0a-2": ("0a-2_04_char_bpe.ipynb", []),
        "mallory": ("bob_04_char_bpe.ipynb", []),
    }
    # Given one by one (as `*` gives them), mallory's folder is a folder given: her file is bob's.
    roots = [Path(p.parts[1]) for p in paths]
    inside = [Path(*p.parts[1:]) for p in paths]
    by_learner = {s.learner: s for s in assign(inside, roots, EXERCISES, lambda p: "x")}
    assert by_learner["bob"].others == (
        Path("Bob_04_char_bpe.ipynb"),
        Path("mallory/bob_04_char_bpe.ipynb"),
    )


def test_a_learners_notebook_of_the_class_exercise_is_graded_before_another():
    paths = [Path("c/frank_01_text_to_numbers.ipynb"), Path("c/frank_04_char_bpe.ipynb")]
    (chosen,) = assign(paths, [Path("c")], EXERCISES, lambda p: "04", lambda p: "04" in p.stem)
    assert chosen.path == paths[1] and chosen.others == (paths[0],)


def test_the_class_exercise_is_the_one_most_notebooks_carry():
    assert (
        class_exercise(["04_char_bpe", "01_text_to_numbers", "04_char_bpe", None]) == "04_char_bpe"
    )
    assert (
        class_exercise(["04_char_bpe", "01_text_to_numbers"]) == "01_text_to_numbers"
    )  # tie: name
    assert class_exercise([None]) is None


def notebook(tmp_path: Path, name: str = "alice_04_char_bpe.ipynb", **metadata) -> Path:
    path = tmp_path / name
    path.write_text(notebook_text(nbformat.v4.new_notebook(metadata=metadata)), encoding="utf-8")
    return path


def test_a_regular_notebook_is_read_and_a_link_is_refused(tmp_path):
    path = notebook(tmp_path, book={"exercise": "04_char_bpe"})
    data, nb = read_submission(path)
    assert data == path.read_bytes() and nb.metadata.book.exercise == "04_char_bpe"
    (tmp_path / "sym.ipynb").symlink_to(path)
    with pytest.raises(NotebookError, match="is a symbolic link .* only regular files"):
        read_submission(tmp_path / "sym.ipynb")
    os.link(path, tmp_path / "hard.ipynb")
    for linked in (path, tmp_path / "hard.ipynb"):  # both names of the file are refused
        with pytest.raises(NotebookError, match="is a hard link .*2 names"):
            read_submission(linked)


def test_a_pipe_an_oversized_notebook_and_a_string_book_are_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.ipynb")
    with pytest.raises(NotebookError, match="not a regular file"):  # and it does not wait
        read_submission(tmp_path / "pipe.ipynb")
    big = tmp_path / "big.ipynb"
    with open(big, "wb") as file:
        file.truncate((MAX_NOTEBOOK_MB + 1) * 2**20)  # sparse: its size, none of its bytes
    with pytest.raises(
        NotebookError, match=f"is 21 MB, over the grader's limit of {MAX_NOTEBOOK_MB}"
    ):
        read_submission(big)
    with pytest.raises(NotebookError, match="its metadata.book is a str, not the mapping"):
        read_submission(notebook(tmp_path, book="04_char_bpe"))


@pytest.mark.parametrize(
    "argv, says",
    [
        (["{file}", "a.ipynb"], "reads as an option but is also the name of a file here"),
        (["--sandbox=none", "a.ipynb"], "write --sandbox none as two words"),
    ],
)
def test_a_command_line_that_may_be_misread_is_refused(tmp_path, monkeypatch, capsys, argv, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--jobs=9").write_text("")
    argv = [arg.format(file="--jobs=9") for arg in argv]
    with pytest.raises(SystemExit) as stopped:
        grade.main(argv)
    assert stopped.value.code == 2 and says in capsys.readouterr().err
    assert grade.misread(["--", "--jobs=9", "--sandbox=none"]) == ""  # after --, paths only


def test_an_abbreviated_sandbox_option_is_not_read(capsys):
    with pytest.raises(SystemExit):
        grade.main(["--sand", "none", "a.ipynb"])
    assert "unrecognized arguments: --sand" in capsys.readouterr().err


@pytest.mark.parametrize(
    "cell, written",
    [
        ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
        ("+1", "'+1"),
        ("-cmd", "'-cmd"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\\x09=1"),
        ("\r=1", "'\\x0d=1"),
        ("bob", "bob"),
        (13, 13),
    ],
)
def test_a_csv_cell_that_a_spreadsheet_would_run_is_escaped(cell, written):
    assert csv_cell(cell) == written


def test_a_set_whose_items_share_one_hash_is_refused_quickly():
    colliding = {"s": [k * (2**61 - 1) for k in range(20_000)]}
    with time_limit(SECONDS), pytest.raises(ValueError, match="share one hash"):
        harness.from_wire(json.loads(json.dumps(colliding)))
    keys = {"d": [[k * (2**61 - 1), 0] for k in range(100)]}
    with pytest.raises(ValueError, match="share one hash"):
        harness.from_wire(keys)
    assert harness.from_wire({"s": [-1, -2, 1]}) == {-1, -2, 1}  # a few may: hash(-1) == hash(-2)


def test_a_line_over_the_cap_is_dropped_unread(tmp_path):
    channel = Channel(tmp_path, 64 * 2**20)
    channel.open()
    writer = os.open(channel.results_path, os.O_WRONLY)
    try:
        for _ in range(MAX_LINE_BYTES // 2**15 + 1):  # the pipe holds 64 KB: read as it goes
            os.write(writer, b"x" * 2**15)
            channel.drain()
        assert channel.partial == b"" and channel.skipping  # dropped before its end came
        os.write(writer, b"y" * 100 + b"\n" + b'{"kind": "hello", "pid": 1, "key": "00"}\n')
        taken = channel.take()
    finally:
        os.close(writer)
        channel.close()
    assert isinstance(taken[0], TooLarge) and taken[1]["kind"] == "hello" and len(taken) == 2
    assert channel.kept < 100


def test_the_kernel_hash_seed_is_not_the_seed_s(tmp_path, monkeypatch):
    commands = []

    def run_cells(cells, command, *args):
        commands.append(command[0])
        raise OSError("stopped here")

    monkeypatch.setattr(judge, "run_cells", run_cells)
    monkeypatch.setenv("PYTHONHASHSEED", str(judge.hash_seed(5)))
    path = notebook(tmp_path)
    for state in ("a", "a", "b"):  # the same machine twice, then another machine's key
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / state))
        with pytest.raises(judge.KernelUnavailable):
            judge.grade_cells(
                path,
                path.read_bytes(),
                "04_char_bpe",
                nbformat.v4.new_notebook(),
                lambda index, cell: False,
                "book.checks.ch04",
                5,
                Limits(),
                Sandbox("", "none"),
                python_environment(),
            )
    seeds = [
        arg.partition("=")[2]
        for command in commands
        for arg in command
        if arg.startswith("PYTHONHASHSEED=")
    ]
    assert len(seeds) == 3 and str(judge.hash_seed(5)) not in seeds
    assert seeds[0] == seeds[1] != seeds[2]  # reproducible with the key, unknowable without it
    assert all(1 <= int(seed) <= 4294967295 for seed in seeds)


def test_the_grader_key_is_made_once_and_kept(tmp_path):
    path = tmp_path / "state" / "book-grader" / "key"
    first = judge.grader_key(path)
    assert len(first) == 32 and judge.grader_key(path) == first
    assert path.stat().st_mode & 0o777 == 0o600 and list(path.parent.iterdir()) == [path]


def test_report_names_are_distinct_without_a_loop():
    learners = ["bob", "Bob", "b o b", "b_o_b", "", "a" * 300, "a" * 301, "b_o_b~x"]
    random.Random(0).shuffle(learners)
    with time_limit(SECONDS):
        names = report_names(learners)
    assert len({name.casefold() for name in names.values()}) == len(learners)


def test_an_unisolated_class_says_so_in_its_table_its_csv_and_every_report(tmp_path):
    grades = [
        Grade(Path(f"{name}.ipynb"), "04_char_bpe", name, sandbox=NO_SANDBOX.note)
        for name in ("alice", "=bob")
    ]
    write_csv(grades, tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert [row["learner"] for row in rows] == ["alice", "'=bob"]
    assert all("NOT isolated" in row["sandbox"] for row in rows)
    assert "NOT isolated" in format_class(grades).splitlines()[-1]
    assert all(
        "note: sandbox: none (--sandbox none): NOT isolated" in learner_report([g]) for g in grades
    )
