"""The catalogue of cheats: each one scores zero on the task it targets and is named in the report.

Every cheat is a copy of a correct notebook with one answer replaced by the cheat. They are
graded in one run of ``python -m book.grade`` over a folder (one fresh sandboxed kernel each),
and each test reads what the report said about its cheat. The other tasks of the same notebook
must still get their points: a cheat costs the task it targets, nothing is forgiven, nothing
else is lost. Most cheats target the demo exercise (the smallest); importing the reference
targets chapter 02, whose tokenizer the book ships.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from test_exercise_system import DEMO, fill

from book.checks import demo
from book.exercises import make_exercise
from book.grading.stubs import PACKAGE
from book.notebooks import ROOT, notebook_text, read_notebook

pytestmark = pytest.mark.slow
PASS = demo.CHAR_CODES.result(demo.char_codes_reference).line  # char_codes' passing line
# An answer written for the visible cases of char_codes: each group has hidden cases too.
VISIBLE = {
    args[0]: demo.char_codes_reference(*args)
    for group in demo.CHAR_CODES.groups
    for args, _ in group.cases()
}
SLEEP = "sleep 7391"  # a process a cheat leaves behind would show up under this name
CANARY = "GRADER-CANARY-5521"  # in the grader's environment: no report may ever show it
COPY_MARK = "COPY-OF-THE-COURSE-8837"  # in the other copy of the course: no report may show it
# Another copy of the course on the machine (a teacher's second clone, an install elsewhere),
# outside the repository and the Python environment; the fixture makes it.
COPY = Path(os.environ.get("TMPDIR", "/tmp")) / f"book-course-copy-{os.getpid()}" / "book"
# Writes a record of its own into every pipe the kernel holds: a malformed line for the call.
MALFORMED = (
    "import os, stat\nfor fd in range(3, 512):\n    try:\n"
    "        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
    '            os.write(fd, b\'{"kind": "call", "id": 1, "result": []}\\n\')\n'
    "    except OSError:\n        pass\nreturn [ord(ch) for ch in text]"
)
READ_COPY = (
    "import importlib.util\n"
    f"spec = importlib.util.spec_from_file_location('copy', {str(COPY / 'checks' / 'demo.py')!r})\n"
    "module = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(module)\n"
    "return module.char_codes_reference(text)"
)
READ_ENVIRONMENT = "import os\nraise ValueError(repr(dict(os.environ)))"
# Writes the right answer as the grader's record of this very call (its id is in the cell that
# made the call), then, with CLOSE, closes the pipes so that the guard's own record is lost.
FORGE = (
    "import json, os, stat\n"
    "call_id = get_ipython().kernel.get_parent()['content']['code'].split(\"'\")[3]\n"
    "info = {'callable': True, 'type': 'function', 'repr': 'char_codes'}\n"
    "line = {'kind': 'call', 'id': call_id, 'answers': {'char_codes': info},\n"
    "        'result': {'ok': [ord(ch) for ch in text]}}\n"
    "for fd in range(3, 512):\n    try:\n        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
    "            os.write(fd, json.dumps(line).encode() + b'\\n')\n"
    "            CLOSE and os.close(fd)\n"
    "    except OSError:\n        pass\n"
    "return [ord(ch) + 1 for ch in text]"
)
# Asks for memory a limit's worth at a time: under the 1024 MB limit (--memory below) the first
# request already fails, whatever the machine's speed or load, so the outcome never depends on
# the 5 s limit; without a limit it stops after 8 GB (returning [], not MemoryError).
HOARD = "hoard = []\nfor _ in range(8):\n    hoard.append(bytearray(2**30))\n"
# Under --sandbox none the guard alone stands between the notebook and the machine: cheats that
# went round it before (a patched os.path.realpath, C code, the hook's state found with gc) and
# one that rewrites a classmate's notebook (CLASSMATE: its path, filled in by the fixtures).
BYPASS_REALPATH = (
    "import os.path\nos.path.realpath = os.path.abspath = lambda path: '/usr/lib/python3'\n"
    f"exec(open({str(DEMO)!r}).read())\nreturn []"
)
HOOK_BY_GC = (
    "import gc\nhooks = [f for f in gc.get_objects() if getattr(f, '__name__', '') == 'hook']\n"
    "return [len(hooks)]"
)
REWRITE_CLASSMATE = "open(CLASSMATE_PATH, 'w').write('{}')\nreturn [ord(ch) for ch in text]"
CLASSMATE = "replace_check"  # the notebook the cheat rewrites, graded in the same folder
NASTY = "\\x1b[2J\\x1b]0;owned\\x07\\u202eevil\\r\\nforged"
CHEATS = {
    "replace_check": (
        f"import book.checks.demo as c\nc.check = lambda name, f: print({PASS!r})\n"
        "return [ord(ch) for ch in text]",
        "replacing book.checks.demo.check",
    ),
    "wrap_check": (
        "from book.checks import demo\n_real = demo.check\n"
        "demo.check = lambda name, f: _real(name, lambda t: [ord(c) for c in t])\nreturn []",
        "book.checks.demo.check",
    ),
    "print_pass_line": (f"print({PASS!r})\nreturn []", "printed a check's passing line"),
    "hard_coded": (f"return {VISIBLE!r}[text]", "the visible cases pass, but hidden case"),
    "read_solutions": (f"exec(open({str(DEMO)!r}).read())\nreturn []", f"reading {DEMO}"),
    "read_check_source": (
        "import book.checks.demo as c\nsource = open(c.__file__).read()\nreturn []",
        "book/checks/demo.py",
    ),
    "read_another_copy": (READ_COPY, f"reading {COPY / 'checks' / 'demo.py'}"),
    "read_the_environment": (READ_ENVIRONMENT, "raised ValueError"),
    "malformed_record": (MALFORMED, "malformed"),
    "forged_record": ("CLOSE = False\n" + FORGE, "not signed by the grader's guard"),
    "callers_frame": (
        "import sys\nhidden = sys._getframe(1).f_locals\nreturn [ord(ch) for ch in text]",
        "reading the grader's frames (sys._getframe)",
    ),
    "frame_by_traceback": (
        "try:\n    raise KeyError(text)\nexcept KeyError as error:\n"
        "    caller = error.__traceback__.tb_frame.f_back\nreturn list(caller.f_locals)",
        "reading the grader's frames (tb_frame)",
    ),
    "every_object": (
        "import gc\nreturn [len(gc.get_referrers(text))]",
        "walking every object (gc.get_referrers)",
    ),
    "keyboard_interrupt": ("raise KeyboardInterrupt", "raised KeyboardInterrupt"),
    "garble_messages": (
        "get_ipython().kernel.session.pack = lambda message: b'{broken'\n"
        "return [ord(ch) for ch in text]",
        "the kernel's messages could not be read",
    ),
    "terminal_control": (f"raise ValueError({NASTY!r})", "\\x1b[2J"),
    "sys_exit_in_call": ("import sys\nsys.exit(0)", "raised SystemExit"),
    "os_exit_in_call": ("import os\nos._exit(3)", "while grading this task, the kernel died"),
    "endless_loop": ("while True:\n    pass", "timed out"),
    "unbounded_memory": (HOARD + "return []", "raised MemoryError"),
    "outlive_kernel": (
        f"import subprocess\nsubprocess.Popen({SLEEP.split()!r}, start_new_session=True)\n"
        "return [ord(ch) for ch in text]",
        "the notebook tried starting a process (subprocess.Popen)",
    ),
    "fork": (
        "import os\nif os.fork() == 0:\n    import time; time.sleep(60)\n"
        "return [ord(ch) for ch in text]",
        "the notebook tried starting a process (os.fork)",
    ),
    "bypass_realpath": (BYPASS_REALPATH, f"reading {DEMO}"),
    "c_code": (
        "import ctypes\nctypes.CDLL('libc.so.6')\nreturn [ord(ch) for ch in text]",
        "using C code directly",
    ),
    "hook_by_gc": (HOOK_BY_GC, "walking every object (gc.get_objects)"),
    "rewrite_classmate": (REWRITE_CLASSMATE, f"{CLASSMATE}.ipynb"),
    "network": (
        "import socket\nsocket.create_connection(('pypi.org', 443), timeout=3)\nreturn []",
        "a network connection",
    ),
}
# Notebooks that do odd things without cheating: graded like any other, full points.
HARMLESS = {
    "patch_json": "import json\njson.dump = json.dumps = lambda *a, **k: '{broken'",
    "print_a_flood": "for _ in range(64):\n    print('x' * 2**20)",
    "log_and_namedtuple": (
        "import collections, logging\nlogging.warning('working')\n"
        "Pair = collections.namedtuple('Pair', 'a b')"
    ),
}
# Cheats at the top of the answer's cell, before the function: (code, what the report says).
CELL_CHEATS = {
    "sys_exit_in_cell": ("import sys\nsys.exit(1)", "raised SystemExit"),
    "os_exit_in_cell": ("import os\nos._exit(1)", "the kernel died while running this cell"),
    "write_grader_output": (None, "writing"),  # filled in with the CSV's path by the fixture
    "cell_memory": (HOARD, "raised MemoryError"),
    "cell_loop": ("while True:\n    pass", "timed out after 5 s"),
    "cell_garbles_messages": (
        "get_ipython().kernel.session.pack = lambda message: b'{broken'",
        "the kernel's messages could not be read",
    ),
}


def _grade(
    folder: Path, *args: str
) -> tuple[subprocess.CompletedProcess, dict[tuple[str, str], dict]]:
    """Grade a folder with the demo's exercises; return the process and {(file stem, task): row}."""
    tasks_csv = folder.parent / f"{folder.name}-tasks.csv"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "book.grade",
            str(folder),
            "--tasks-csv",
            str(tasks_csv),
            "--timeout",
            "5",
            "--memory",
            "1024",
            "--seed",
            "11",
            "--jobs",
            "2",
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
        check=False,
        env={**os.environ, "GRADER_TOKEN": CANARY},
    )
    with open(tasks_csv, encoding="utf-8") as file:
        rows = {(Path(row["submission"]).stem, row["task"]): row for row in csv.DictReader(file)}
    return done, rows


@pytest.fixture(scope="module", autouse=True)
def another_copy():
    """Another copy of the course, outside the repository, that a cheat would read."""
    shutil.copytree(PACKAGE, COPY, ignore=shutil.ignore_patterns("__pycache__"))
    checks = COPY / "checks" / "demo.py"
    checks.write_text(
        checks.read_text(encoding="utf-8") + f"\n# {COPY_MARK}\n",
        encoding="utf-8",
    )
    yield COPY
    shutil.rmtree(COPY.parent, ignore_errors=True)


def _answer(name: str, folder: Path) -> str:
    """The code of a cheat in CHEATS, for a notebook graded in folder."""
    return CHEATS[name][0].replace("CLASSMATE_PATH", repr(str(folder / f"{CLASSMATE}.ipynb")))


def _report_of(stdout: str, stem: str) -> str:
    """The part of the grader's output about one submission."""
    return stdout.split(f"/{stem}.ipynb (exercise", 1)[1].split("\n== ", 1)[0]


@pytest.fixture(scope="module")
def demo_exercise(tmp_path_factory) -> tuple[Path, object]:
    """The demo exercise, generated, and the folder it is in (passed as --exercises)."""
    folder = tmp_path_factory.mktemp("exercises")
    exercise = make_exercise(read_notebook(DEMO), exercise="99_demo")
    (folder / "99_demo.ipynb").write_text(notebook_text(exercise), encoding="utf-8")
    return folder, exercise


@pytest.fixture(scope="module")
def graded(demo_exercise, tmp_path_factory):
    """Every cheat of the catalogue, and the harmless oddities, graded in one run."""
    exercises_dir, exercise = demo_exercise
    folder = tmp_path_factory.mktemp("cheats")
    out = folder.parent / f"{folder.name}-tasks.csv"
    solutions = read_notebook(DEMO)
    for name in CHEATS:
        (folder / f"{name}.ipynb").write_text(
            notebook_text(fill(exercise, solutions, {"char-codes": _answer(name, folder)}))
        )
    cell_cheats = {name: code for name, (code, _) in CELL_CHEATS.items()} | HARMLESS
    for name, code in cell_cheats.items():
        nb = fill(exercise, solutions)
        if code is None:
            code = f"open({str(out)!r}, 'w').write('learner,points\\nme,100\\n')"
        cell = next(cell for cell in nb.cells if cell.get("id") == "char-codes")
        cell.source = code + "\n" + cell.source
        (folder / f"{name}.ipynb").write_text(notebook_text(nb))
    classmate = (folder / f"{CLASSMATE}.ipynb").read_bytes()
    done, rows = _grade(folder, "--exercises", str(exercises_dir))
    return done, rows, (folder / f"{CLASSMATE}.ipynb").read_bytes() == classmate


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_a_cheat_in_an_answer_scores_zero_and_is_named(graded, cheat):
    done, rows, _ = graded
    _, named = CHEATS[cheat]
    assert rows[(cheat, "char_codes")]["points"] == "0", rows[(cheat, "char_codes")]
    report = _report_of(done.stdout, cheat)
    assert named in report, report
    assert rows[(cheat, "utf8_size")]["status"] == "passed"  # the other tasks are still graded
    assert rows[(cheat, "decode")]["status"] == "passed", rows[(cheat, "decode")]


@pytest.mark.parametrize("cheat", sorted(CELL_CHEATS))
def test_a_cheat_in_an_answers_cell_scores_zero_and_is_named(graded, cheat):
    done, rows, _ = graded
    report = _report_of(done.stdout, cheat)
    assert CELL_CHEATS[cheat][1] in report, report
    assert rows[(cheat, "char_codes")]["points"] == "0", rows[(cheat, "char_codes")]
    assert rows[(cheat, "utf8_size")]["status"] == "passed"
    assert rows[(cheat, "decode")]["status"] == "passed"


def test_the_grader_output_stays_the_graders(graded):
    done, rows, _ = graded  # rows were read from the very file the cheat tried to write
    assert len({stem for stem, _ in rows}) == len(CHEATS) + len(CELL_CHEATS) + len(HARMLESS)
    assert all(row["learner"] != "me" for row in rows.values())


def test_a_classmates_notebook_stays_as_it_was_handed_in(graded):
    _, _, classmate_unchanged = graded
    assert classmate_unchanged


# What the grader used to say about these, and must not: a misleading reason.
MISLEADING = {
    "keyboard_interrupt": "did the notebook replace",
    "malformed_record": "ipykernel",
}


@pytest.mark.parametrize("cheat", sorted(MISLEADING))
def test_a_report_gives_the_real_reason(graded, cheat):
    done, _, _ = graded
    assert MISLEADING[cheat] not in _report_of(done.stdout, cheat)


@pytest.mark.parametrize("name", sorted(HARMLESS))
def test_odd_but_honest_notebooks_get_full_points(graded, name):
    _, rows, _ = graded
    for task in ("char_codes", "utf8_size", "decode"):
        assert rows[(name, task)]["status"] == "passed", rows[(name, task)]


def test_nothing_of_the_grader_or_of_another_copy_reaches_a_report(graded):
    done, rows, _ = graded
    everything = done.stdout + done.stderr + repr(rows)
    assert CANARY not in everything and "GRADER_TOKEN" not in everything
    assert COPY_MARK not in everything
    assert not {"\x1b", "\x07", "\u202e"} & set(everything)


def test_no_process_outlives_the_grading(graded):
    listing = subprocess.run(
        ["ps", "-eo", "args"], capture_output=True, text=True, check=True
    ).stdout
    assert SLEEP not in listing


def test_the_sandbox_is_named_in_every_report(graded):
    done, _, _ = graded
    assert done.stdout.count("note: sandbox") == len(CHEATS) + len(CELL_CHEATS) + len(HARMLESS)


def _chapter02(tmp_path: Path, answer: str) -> Path:
    """Chapter 02's exercise with build_vocab answered by answer, under another file name."""
    nb = read_notebook(ROOT / "exercises" / "02_characters.ipynb")
    cell = next(cell for cell in nb.cells if "def build_vocab" in cell.source)
    cell.source = cell.source.replace("# YOUR CODE HERE\n    raise NotImplementedError()", answer)
    path = tmp_path / "cheater.ipynb"
    path.write_text(notebook_text(nb))
    return path


@pytest.mark.parametrize(
    "answer, named",
    [
        (
            "from book.tokenizers.basic.characters import CharTokenizer\n"
            "    return CharTokenizer.train(text).alphabet",
            "using book.tokenizers.basic.characters.CharTokenizer",
        ),
        (
            "from book.tokenizers import CharTokenizer\n"
            "    return CharTokenizer.train(text).alphabet",
            "book.tokenizers.CharTokenizer",
        ),
    ],
    ids=["module", "package"],
)
def test_importing_the_reference_scores_zero_and_is_named(tmp_path, answer, named):
    path = _chapter02(tmp_path, answer)
    done = subprocess.run(
        [sys.executable, "-m", "book.grade", str(path), "--seed", "3"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    row = next(line for line in done.stdout.splitlines() if line.startswith("build_vocab"))
    assert (
        "0/2" in row and "write this yourself; the reference is not available while grading" in row
    )
    assert named in done.stdout


def test_with_sandbox_none_every_report_says_what_is_not_isolated(demo_exercise, tmp_path):
    exercises_dir, exercise = demo_exercise
    solutions = read_notebook(DEMO)
    names = (
        *("read_solutions", "read_another_copy", "outlive_kernel", "fork", "replace_check"),
        *("bypass_realpath", "c_code", "hook_by_gc", "callers_frame", "rewrite_classmate"),
    )
    for name in names:
        nb = fill(exercise, solutions, {"char-codes": _answer(name, tmp_path)})
        (tmp_path / f"{name}.ipynb").write_text(notebook_text(nb))
    classmate = (tmp_path / f"{CLASSMATE}.ipynb").read_bytes()
    done, rows = _grade(tmp_path, "--exercises", str(exercises_dir), "--sandbox", "none")
    assert "NOT isolated" in done.stdout.splitlines()[0]
    for name in names:
        assert rows[(name, "char_codes")]["points"] == "0", rows[(name, "char_codes")]
        report = _report_of(done.stdout, name)
        assert CHEATS[name][1] in report and "NOT isolated" in report, report
    assert (tmp_path / f"{CLASSMATE}.ipynb").read_bytes() == classmate
    listing = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True)
    assert SLEEP not in listing.stdout  # no process outlives the grading


def test_without_bubblewrap_the_grader_refuses_to_grade(tmp_path):
    path = tmp_path / "99_demo.ipynb"
    path.write_text(DEMO.read_text(encoding="utf-8"), encoding="utf-8")
    no_bwrap = tmp_path / "bin"
    no_bwrap.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "book.grade", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PATH": str(no_bwrap)},
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "bubblewrap (bwrap) is not installed" in done.stderr
    assert "apt-get install bubblewrap" in done.stderr and "--sandbox none" in done.stderr


def test_what_the_log_holds_the_notebook_cannot_take_back(demo_exercise, tmp_path):
    exercises_dir, exercise = demo_exercise
    nb = fill(exercise, read_notebook(DEMO))
    erase = (
        "from book.checks import demo\ntry:\n    demo.check('char_codes', char_codes)\n"
        "except Exception:\n    pass\nimport os, stat, sys\n"
        "for fd in range(3, 512):\n    try:\n"
        "        stat.S_ISFIFO(os.fstat(fd).st_mode) and os.close(fd)\n"
        "    except OSError:\n        pass\n"
        "sys.modules.pop('book._grading_stub', None)"
    )
    nb.cells.append(nbformat.v4.new_code_cell(erase))
    (tmp_path / "eraser.ipynb").write_text(notebook_text(nb))
    done, rows = _grade(tmp_path, "--exercises", str(exercises_dir))
    report = _report_of(done.stdout, "eraser")
    assert "the notebook tried using book.checks.demo.check" in report
    assert all(rows[("eraser", task)]["points"] == "0" for task in ("char_codes", "decode"))
    assert "close the grader's pipes" in rows[("eraser", "char_codes")]["message"]


def test_a_forged_record_counts_for_nothing_even_alone(demo_exercise, tmp_path):
    exercises_dir, exercise = demo_exercise
    nb = fill(exercise, read_notebook(DEMO), {"char-codes": "CLOSE = True\n" + FORGE})
    (tmp_path / "forger.ipynb").write_text(notebook_text(nb))
    done, rows = _grade(tmp_path, "--exercises", str(exercises_dir))
    row = rows[("forger", "char_codes")]
    assert row["points"] == "0" and "not signed by the grader's guard" in row["message"], row
