"""What the judge believes of the kernel, and what it tells the teacher, without a kernel.

Every line from the kernel is checked against its shape (a malformed one is named, never
trusted, never a crash); the judge keeps a bounded amount of what the kernel writes; a call's
line must be its own and arrive once; reports escape whatever a notebook put in a grade; hidden
cases are drawn only where the hash seed comes from the seed.
"""

from __future__ import annotations

import csv
import hmac
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from book.checks.spec import Call, Task
from book.grading import calls as calls_module
from book.grading import judge
from book.grading.calls import Calls
from book.grading.channel import Channel
from book.grading.judge import Grade, Unreproducible, judge_data
from book.grading.record import CALL, Malformed, parse_line, unsigned
from book.grading.report import format_class, format_grade, learner_report, write_csv
from book.grading.verdict import TaskGrade
from book.grading.workers import progress


@pytest.mark.parametrize(
    "line, says",
    [
        (b"not json", "line: not JSON"),
        (b"[" * 100_000, "line: not JSON"),  # deeper than the parser goes: no RecursionError
        (b"[]", "line.kind: one of hello, refused, used, call expected"),
        (b'{"kind": "refused"}', "line: what missing"),
        (b'{"kind": "refused", "what": ["a"]}', "line.what: text expected, got list"),
        (b'{"kind": "call", "id": "c", "result": {"ok": 1, "raised": []}}', "one of ok, raised"),
        (b'{"kind": "call", "id": "c", "result": {"ok": {"evil": 1}}}', "line.result.ok: not a"),
        (b'{"kind": "call", "id": "c", "result": {"ok": {"d": [[[1], 2]]}}}', "line.result.ok"),
        (b'{"kind": "call", "id": "c", "result": {"raised": "x", "message": ""}}', "a list"),
        (b'{"kind": "call", "id": "c", "answers": {"f": {"callable": 1}}}', "line.answers.f"),
        (b'{"kind": "call", "id": "c", "printed": ' + b'["x"]' * 1 + b"}", None),
    ],
)
def test_every_malformed_line_is_named(line, says):
    if says is None:
        assert parse_line(line)["printed"] == ["x"]
        return
    with pytest.raises(Malformed) as error:
        parse_line(line)
    assert str(error.value).startswith(says) or says in str(error.value), error.value


def test_a_wire_value_nested_too_deeply_is_malformed_not_a_crash():
    deep = {"ok": 0}
    for _ in range(5000):
        deep = {"t": [deep]}
    with pytest.raises(Malformed, match="nested too deeply"):
        CALL.check({"kind": "call", "id": "c", "result": {"ok": deep}}, "line")


class Guard:
    """Writes on a channel's results pipe as the guard does: a greeting with a key, then signed
    lines; or, as a notebook's code would, lines of its own."""

    key = bytes(range(32))

    def __init__(self, channel: Channel) -> None:
        self.fd = os.open(channel.results_path, os.O_WRONLY | os.O_NONBLOCK)
        os.write(self.fd, self.line({"kind": "hello", "pid": 1, "key": self.key.hex()}, False))

    def line(self, body: dict | bytes, signed: bool = True) -> bytes:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        if signed:
            data = hmac.digest(self.key, data, "sha256").hex().encode() + b" " + data
        return data + b"\n"

    def write(self, *bodies, signed: bool = True) -> None:
        os.write(self.fd, b"".join(self.line(body, signed) for body in bodies))


def test_the_channel_keeps_at_most_its_limit(tmp_path):
    channel = Channel(tmp_path, limit=1000)
    channel.open()
    guard = Guard(channel)
    try:
        guard.write({"kind": "used", "what": "a"}, {"kind": "used", "what": "x" * 5000})
        guard.write({"kind": "used", "what": "y" * 5000}, {"kind": "used", "what": "c"})
        os.write(guard.fd, b'{"kind": "used", "wh')  # a line cut short: never read
        taken = channel.take()
    finally:
        os.close(guard.fd)
        channel.close()
    assert [line["what"] for line in taken if line["kind"] == "used"] == ["a", "c"]
    assert channel.dropped == 2 and channel.kept <= 1000


def test_a_calls_line_counts_once_and_only_in_its_own_cell(tmp_path):
    calls = [
        Call("f(1)", "f(a0)", (1,), 2, group="all"),
        Call("f(2)", "f(a0)", (2,), 4, group="all"),
    ]
    task = Task("t", 2, ("f",), calls, (("all", 2),))
    channel = Channel(tmp_path, 1 << 20)
    calls = Calls([task], channel, 1, 30)
    cells = calls.cells()
    calls.kernel_started()
    guard = Guard(channel)
    first, second = (calls.plan[1].id, calls.plan[2].id)
    line = {"kind": "call", "id": first, "answers": {}, "result": {"ok": 2}}
    try:
        guard.write(line)  # before its cell: stray
        guard.write(b"[1, 2]", signed=False)  # not the guard's: stray
        assert calls.before(1, cells[0])
        guard.write(line, line)  # twice: malformed
        guard.write({"kind": "refused", "what": "reading /etc/passwd"})
        calls.after(1, interrupted=False, failed=False)
        assert calls.before(2, cells[1]) is False  # the task stopped at its malformed call
    finally:
        os.close(guard.fd)
        calls.finish({}, set())
    assert calls.outcomes[0][0].kind == "malformed" and calls.outcomes[0][1] is None
    notes = calls.notes()
    assert "the notebook tried reading /etc/passwd" in notes
    assert any("wrote 2 line(s) of its own" in note for note in notes), notes
    assert second != first and calls.ready


def test_a_line_the_guard_did_not_sign_is_malformed():
    with pytest.raises(Malformed, match="not signed by the grader's guard"):
        unsigned(b"00" * 32 + b' {"kind": "used", "what": "x"}', Guard.key)


def test_hidden_cases_are_drawn_only_where_the_hash_seed_comes_from_the_seed(monkeypatch):
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    with pytest.raises(Unreproducible, match=f"PYTHONHASHSEED={judge.hash_seed(5)}"):
        judge_data("book.checks.demo", 5)
    monkeypatch.setenv("PYTHONHASHSEED", str(judge.hash_seed(5)))
    tasks, _ = judge_data("book.checks.demo", 5)
    assert judge.cases_digest(tasks) == judge.cases_digest(judge_data("book.checks.demo", 5)[0])


NASTY = "\x1b[2J\x1b]0;owned\x07\u202eevil\r\nforged line"


def test_reports_escape_what_a_notebook_put_in_them(tmp_path):
    grade = Grade(
        Path(f"class/{NASTY}.ipynb"),
        "01_text_to_numbers",
        learner=NASTY,
        tasks=[TaskGrade(NASTY, 0, 2, "failed", NASTY, "raised")],
        notes=[NASTY],
        sandbox="sandbox: test",
    )
    write_csv([grade], tmp_path / "grades.csv")
    texts = [
        format_grade(grade),
        format_class([grade]),
        learner_report([grade]),
        (tmp_path / "grades.csv").read_text(encoding="utf-8"),
    ]
    for text in texts:
        assert not {"\x1b", "\x07", "\u202e", "\r"} & set(text), repr(text)
        assert "\\x1b[2J" in text
    with open(tmp_path / "grades.csv", encoding="utf-8") as file:
        assert len(list(csv.reader(file))) == 2  # the forged line stays inside its cell


def test_the_progress_line_says_graded_remaining_and_time_left():
    assert progress(1, 40, 30.0) == "graded 1 of 40 (39 remaining, about 19 min 30 s left)"
    assert progress(40, 40, 600.0) == "graded 40 of 40 (0 remaining, about 0 s left)"


DIGESTS = """
import importlib, random, sys
from book.grading.judge import cases_digest
seed = int(sys.argv[1])
modules = [f"book.checks.ch{n:02d}" for n in range(1, 11)] + ["book.checks.demo"]
tasks = [importlib.import_module(name).judge_tasks(random.Random(seed)) for name in modules]
print([cases_digest(each) for each in tasks])
"""


@pytest.mark.slow
def test_every_chapters_cases_are_a_function_of_the_seed_alone():
    """Two fresh processes draw the same cases, byte for byte, with the seed's hash seed and with
    another one: no check module may draw from a set's order (nor from time, os.urandom or the
    addresses of objects), so the mutation tests, run under any hash seed, see the grader's
    cases."""
    seed = 20
    runs = [
        subprocess.run(
            [sys.executable, "-c", DIGESTS, str(seed)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            check=True,
        ).stdout
        for hash_seed in (str(judge.hash_seed(seed)), "0")
    ]
    assert runs[0] == runs[1] and runs[0].count("'") == 22


@pytest.mark.parametrize(
    "cell_seconds, read_seconds, kind",
    [(45, 0, ""), (0, 40, "timeout")],
    ids=["a long cell (a flood's output) is not the call's time", "reading counts"],
)
def test_reading_a_calls_line_counts_in_its_tasks_time(
    tmp_path, monkeypatch, cell_seconds, read_seconds, kind
):
    clock = types.SimpleNamespace(now=0.0)
    monkeypatch.setattr(calls_module, "time", types.SimpleNamespace(monotonic=lambda: clock.now))
    task = Task("t", 1, ("f",), [Call("f(1)", "f(a0)", (1,), 2, group="all")], (("all", 1),))
    channel = Channel(tmp_path, 1 << 20)
    calls = Calls([task], channel, 1, 30)
    cells = calls.cells()
    calls.kernel_started()
    guard = Guard(channel)
    take = channel.take

    def slow_take():  # reading the call's line, after its cell: read_seconds pass
        clock.now += read_seconds if clock.now else 0
        return take()

    monkeypatch.setattr(channel, "take", slow_take)
    try:
        assert calls.before(1, cells[0])
        clock.now += cell_seconds + 0.5
        guard.write({"kind": "call", "id": calls.plan[1].id, "answers": {}, "result": {"ok": 2}})
        calls.after(1, interrupted=False, failed=False)
    finally:
        os.close(guard.fd)
        calls.finish({}, set())
    outcome = calls.outcomes[0][0]
    assert outcome.kind == kind
    if kind:
        assert outcome.problem == (
            "returned results that took the grader 40 s to read, more than the task's 30 s"
        )
