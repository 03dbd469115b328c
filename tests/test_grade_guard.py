"""The guard and the harness in a plain Python process: what the learner's code can and cannot do.

Each test runs the judge's guard cell in a fresh Python (no kernel: the cell's source is plain
Python), then code standing for the learner's cells, which may make the judge's calls through the
hook; the test reads what the guard wrote on the results pipe, as the judge does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from book.grading import judge, sandbox
from book.grading.channel import Channel
from book.grading.guard import CALL_EVENT
from book.grading.harness import to_wire
from book.grading.record import Malformed


def guarded(tmp_path: Path, code: str, calls=()) -> tuple[subprocess.CompletedProcess, list]:
    """Run the guard cell, then code, in a fresh Python; calls: (id, expr, args, setup, data)
    specs queued on the inbox. Returns the process and the lines the guard sent."""
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    channel = Channel(tmp_path, 1 << 24)
    channel.open()
    config = {
        "results": str(channel.results_path),
        "inbox": str(channel.inbox_path),
        "readable": [*sandbox.python_environment().readable, "/dev/urandom"],
        "writable": [str(scratch)],
        "hidden": [],
        "noted": [],
    }
    for call_id, expr, args, setup, data in calls:
        channel.send(
            {
                "id": call_id,
                "answers": ["f"],
                "setup": setup,
                "data": to_wire(data),
                "expr": expr,
                "args": to_wire(list(args)),
            }
        )
    script = judge.guard_cell(config).source + "\n" + code
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            cwd=scratch,
            timeout=120,
            check=False,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        lines = channel.take()
    finally:
        channel.close()
    return done, lines


def call(call_id: str) -> str:
    """The statement of a call cell."""
    return f"__import__('sys').audit({CALL_EVENT!r}, {call_id!r}, globals())\n"


def results(lines: list) -> dict:
    """{call id: result} of the call lines."""
    calls = [line for line in lines if isinstance(line, dict) and line["kind"] == "call"]
    return {line["id"]: line.get("result") for line in calls}


def refused(lines: list) -> list[str]:
    """What the guard refused, as it reported it."""
    return [line["what"] for line in lines if isinstance(line, dict) and line["kind"] == "refused"]


ATTEMPTS = {
    "read outside": "open('/etc/hostname').read()",
    "write outside": "open('/tmp/book-guard-test', 'w')",
    "process": "import subprocess; subprocess.run(['true'])",
    "shell": "import os; os.system('true')",
    "network": "import socket; socket.create_connection(('localhost', 9))",
    "gc": "import gc; gc.get_objects()",
    "trace": "import sys; sys.settrace(lambda *a: None)",
    "other threads": "import sys; sys._current_frames()",
    "ctypes": "import ctypes; ctypes.CDLL('libc.so.6')",
    "signal another process": "import os; os.kill(1, 0)",
}


def test_the_guard_refuses_and_reports_at_once(tmp_path):
    code = "outcomes = {}\n"
    for name, attempt in ATTEMPTS.items():
        code += (
            f"try:\n    {attempt}\n    outcomes[{name!r}] = 'allowed'\n"
            f"except PermissionError:\n    outcomes[{name!r}] = 'refused'\n"
        )
    code += "open('ok.txt', 'w').write('scratch is writable')\nprint(outcomes)\n"
    # Then the notebook tries to take the evidence back: it closes every pipe it holds.
    code += (
        "import os, stat\nfor fd in range(3, 256):\n"
        "    try:\n        stat.S_ISFIFO(os.fstat(fd).st_mode) and os.close(fd)\n"
        "    except OSError:\n        pass\n"
    )
    done, lines = guarded(tmp_path, code)
    assert done.returncode == 0, done.stderr
    assert eval(done.stdout) == dict.fromkeys(ATTEMPTS, "refused")
    assert (tmp_path / "scratch" / "ok.txt").exists()
    said = refused(lines)
    for what in ("reading /etc/hostname", "writing /tmp/book-guard-test", "subprocess.Popen"):
        assert any(what in line for line in said), said
    assert len(said) >= len(ATTEMPTS)


FRAME_CHEATS = {
    "caller's locals": "sys._getframe(1).f_locals",
    "own frame, then back": "sys._getframe(0).f_back.f_locals",
    "inspect": "__import__('inspect').stack()",
    "traceback": "(lambda e: e.__traceback__.tb_frame.f_back)(_raise())",
    "generator": "items.gi_frame.f_locals",
    "every object": "__import__('gc').get_referrers(items)",
}
SETUP = "def feed(items):\n    yield from items\n"


@pytest.mark.parametrize("cheat", sorted(FRAME_CHEATS))
def test_the_grader_frames_and_inputs_are_out_of_reach(tmp_path, cheat):
    code = (
        "import sys\n"
        "def _raise():\n    try:\n        raise KeyError('x')\n    except KeyError as e:\n"
        "        return e\n"
        f"def f(items):\n    found = {FRAME_CHEATS[cheat]}\n    return str(found)\n"
        "def honest(items):\n    return sum(items)\n" + call("c1")
    )
    secret = ["HIDDEN-INPUT-1", "HIDDEN-INPUT-2"]
    done, lines = guarded(
        tmp_path, code, [("c1", "f(feed(a0))", (secret,), SETUP, {"REF": "DATA"})]
    )
    assert done.returncode == 0, done.stderr
    result = results(lines)["c1"]
    assert "raised" in result, result
    assert result["raised"][0] in ("ValueError", "PermissionError")
    assert "HIDDEN-INPUT" not in json.dumps(lines) and "DATA" not in json.dumps(lines)
    assert "grader's frames" in result["message"] or "every object" in result["message"]


def test_honest_code_that_asks_for_frames_still_works_and_is_not_named(tmp_path):
    code = (
        "import logging, collections\n"
        "def f(items):\n    logging.warning('counting')\n"
        "    Pair = collections.namedtuple('Pair', 'a b')\n    return sum(items)\n" + call("c1")
    )
    done, lines = guarded(tmp_path, code, [("c1", "f(feed(a0))", ([1, 2],), SETUP, {})])
    assert results(lines) == {"c1": {"ok": 3}} and refused(lines) == [], done.stderr


def test_a_call_works_whatever_the_notebook_patched(tmp_path):
    code = (
        "import json, builtins, os\n"
        "json.dump = json.dumps = lambda *a, **k: '{bad'\n"
        "json.JSONEncoder.encode = lambda self, o: '{bad'\n"
        "os.write = lambda fd, data: len(data)\n"
        "def f(text):\n    return [ord(ch) for ch in text]\n" + call("c1") + call("c2")
    )
    calls = [("c1", "f(a0)", ("é€",), "", {}), ("c2", "f(a0)", ("",), "", {})]
    done, lines = guarded(tmp_path, code, calls)
    assert done.returncode == 0, done.stderr
    assert results(lines) == {"c1": {"ok": [233, 8364]}, "c2": {"ok": []}}


def test_a_call_from_the_notebooks_own_code_is_refused(tmp_path):
    code = "def f(x):\n    " + call("c1").strip() + "\n    return x\n" + call("c1")
    done, lines = guarded(tmp_path, code, [("c1", "f(a0)", (1,), "", {})])
    assert done.returncode == 0, done.stderr
    assert results(lines)["c1"]["raised"][0] == "PermissionError"
    assert "calling the grader from the notebook's code" in " ".join(refused(lines))


def test_signal_handlers_are_paused_during_a_call(tmp_path):
    code = (
        "import signal, time\nseen = []\n"
        "signal.signal(signal.SIGALRM, lambda number, frame: seen.append(frame))\n"
        "def f(x):\n    signal.setitimer(signal.ITIMER_REAL, 0.01)\n    time.sleep(0.2)\n"
        "    try:\n        signal.signal(signal.SIGUSR1, print)\n    except PermissionError:\n"
        "        return len(seen)\n    return -1\n" + call("c1") + "print(len(seen))\n"
    )
    done, lines = guarded(tmp_path, code, [("c1", "f(a0)", (1,), "", {})])
    assert done.returncode == 0, done.stderr
    assert results(lines)["c1"] == {"ok": 0} and done.stdout.strip() == "0"


def test_a_keyboard_interrupt_in_an_answer_is_its_outcome(tmp_path):
    code = "def f(x):\n    raise KeyboardInterrupt\n" + call("c1") + "print('went on')\n"
    done, lines = guarded(tmp_path, code, [("c1", "f(a0)", (1,), "", {})])
    assert done.stdout == "went on\n", done.stderr
    assert results(lines)["c1"]["raised"][0] == "KeyboardInterrupt"


def test_lines_the_notebook_writes_itself_are_told_apart(tmp_path):
    code = (
        "import os, stat\n"
        "for fd in range(3, 256):\n    try:\n        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
        '            os.write(fd, b\'{"kind": "call", "id": 5}\\nnot json\\n\')\n'
        "    except OSError:\n        pass\n"
    )
    done, lines = guarded(tmp_path, code)
    assert done.returncode == 0, done.stderr
    malformed = [str(line) for line in lines if isinstance(line, Malformed)]
    assert (
        malformed == ["line: not signed by the grader's guard (the notebook's code wrote it)"] * 2
    )
