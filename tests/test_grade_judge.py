"""The judge's parts, without a kernel: the wire, the verdicts, the tasks, the stubs, the guard.

The end-to-end behaviour (a sandboxed kernel grading real notebooks) is tested in
test_exercise_system.py and test_cheats.py; here each part is pinned down on its own, fast.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
import sysconfig
from collections import Counter
from pathlib import Path

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from notebook_paths import notebooks

from book import grade
from book.checks.spec import Call, Raises, Task
from book.grading import sandbox, stubs, submission
from book.grading.calls import Calls
from book.grading.harness import Opaque, from_wire, to_wire
from book.grading.verdict import CallOutcome, judge_task
from book.notebooks import ROOT, NotebookError, read_notebook

CHAPTERS = notebooks("exercises")

# --- the wire ------------------------------------------------------------------------------------

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary()
)
hashable = st.recursive(
    scalars, lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3), max_leaves=8
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(hashable, inner, max_size=4)
        | st.sets(hashable, max_size=4)
    ),
    max_leaves=20,
)


def through_json(value):
    """value sent over the wire and back."""
    return from_wire(json.loads(json.dumps(to_wire(value))))


def same_shape(a, b) -> bool:
    """Equal, with the same types all the way down and dict keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same_shape, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_shape(a[k], b[k]) for k in a)
    return a == b or (a != a and b != b)


@given(values)
def test_plain_values_cross_the_wire_unchanged_with_their_types_and_order(value):
    assert same_shape(through_json(value), value)


def test_the_wire_keeps_exact_types_only():
    class Liar(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    assert (
        through_json(Counter("aab")) == {"a": 2, "b": 1}
        and type(through_json(Counter("a"))) is dict
    )
    liar = through_json([Liar(3)])[0]
    assert isinstance(liar, Opaque) and liar != 3 and liar != liar and repr(liar) == "3"
    assert isinstance(through_json(iter([1])), Opaque)
    with pytest.raises(ValueError, match="not a wire value"):
        from_wire({"evil": 1})


# --- verdicts ------------------------------------------------------------------------------------


def _task() -> Task:
    """double(x): group examples holds two fixed cases and an expected error, group random one
    hidden case."""
    calls = [
        Call("double(1)", "double(a0)", (1,), 2, group="examples"),
        Call("double(2)", "double(a0)", (2,), 4, group="examples"),
        Call("double(50)", "double(a0)", (50,), 100, hidden=True, group="random"),
        Call("double('x')", "double(a0)", ("x",), Raises("TypeError"), group="examples"),
    ]
    groups = (("examples", 1), ("random", 1))
    return Task("double", 2, ("double",), calls, groups, hint="add x to itself.")


def _record(*results, answers=None) -> list[CallOutcome]:
    """The calls' outcomes of double: one checked line per result."""
    info = {"double": {"callable": True, "type": "function", "repr": "f"}}
    return [
        CallOutcome(
            {
                "kind": "call",
                "id": f"c{k}",
                "answers": info if answers is None else answers,
                "setup_error": "",
                "printed": [],
                "result": result,
            }
        )
        for k, result in enumerate(results)
    ]


def ok(value) -> dict:
    return {"ok": value}


def raised(*classes: str, message: str = "boom") -> dict:
    return {"raised": list(classes), "message": message}


def test_right_answers_pass():
    grade_ = judge_task(_task(), _record(ok(2), ok(4), ok(100), raised("TypeError", "Exception")))
    assert (grade_.points, grade_.status, grade_.error_class) == (2, "passed", "")


def test_a_wrong_fixed_case_costs_its_group_and_is_reported_with_expected_got_and_hint():
    grade_ = judge_task(_task(), _record(ok(2), ok(5), ok(100), raised("TypeError")))
    assert (grade_.points, grade_.status, grade_.error_class) == (1, "failed", "wrong")
    assert grade_.message == (
        "groups passed: random; failed: examples — double(2) — expected 4, got 5. "
        "Hint: add x to itself."
    )


def test_passing_only_the_visible_cases_is_named():
    grade_ = judge_task(_task(), _record(ok(2), ok(4), ok(0), raised("TypeError")))
    assert grade_.points == 1 and grade_.error_class == "hidden cases"
    assert "the visible cases pass, but hidden case double(50) — expected 100, got 0" in (
        grade_.message
    )


def test_the_hint_names_the_known_mistake_closest_to_the_answer():
    # Both mistakes give the learner's 5 for double(2); only "plus one" also gives its 2 for
    # double(1), so the hint names it, though "plus three halves" comes first.
    calls = [
        Call("double(1)", "double(a0)", (1,), 2, group="examples", mistaken=(1, 2)),
        Call("double(2)", "double(a0)", (2,), 4, group="examples", mistaken=(5, 5)),
    ]
    task = Task("double", 1, ("double",), calls, (("examples", 1),), ("halves", "plus one"))
    assert judge_task(task, _record(ok(2), ok(5))).message.endswith("Hint: plus one")
    assert judge_task(task, _record(ok(1), ok(5))).message.endswith("Hint: halves")


TYPE_ERROR = raised("TypeError")


@pytest.mark.parametrize(
    "results, kind, text",
    [
        ([raised("NotImplementedError")], "not attempted", "not attempted yet"),
        (
            [ok(2), ok(4), ok(100), ok("xx")],
            "wrong",
            "double('x') should raise TypeError, but returned 'xx'",
        ),
        (
            [ok(2), raised("ValueError", "Exception", message="bad"), ok(100), TYPE_ERROR],
            "raised",
            "double(2) raised ValueError: 'bad'",
        ),
        (
            [
                raised("ReferenceUnavailable", "ImportError", message="write this yourself"),
                *(ok(4), ok(100), TYPE_ERROR),
            ],
            "blocked",
            "used code that is not available while grading",
        ),
        ([ok(2), ok(4.0), ok(100), TYPE_ERROR], "wrong", "(type float, not int)"),
    ],
    ids=["not-attempted", "should-raise", "raised", "blocked", "type"],
)
def test_failures_say_what_went_wrong(results, kind, text):
    grade_ = judge_task(_task(), _record(*results))
    points = 0 if kind == "not attempted" else 1  # otherwise only group random passed
    assert grade_.points == points and grade_.error_class == kind and text in grade_.message


def test_calls_not_made_leave_the_task_not_run_unless_it_was_not_attempted():
    grade_ = judge_task(_task(), _record(ok(2), ok(4)) + [None, None])
    assert (grade_.points, grade_.status) == (0, "not run")


def test_a_task_scores_only_by_its_groups():
    calls = [Call("f(1)", "f(a0)", (1,), 1, group="examples")]
    with pytest.raises(ValueError, match="must be split over groups"):
        Task("f", 1, ("f",), calls, ())
    with pytest.raises(ValueError, match="must be split over groups"):
        Task("f", 2, ("f",), calls, (("examples", 1),))
    with pytest.raises(ValueError, match="must belong to one of"):
        Task("f", 1, ("f",), [*calls, Call("f(2)", "f(a0)", (2,), 2)], (("examples", 1),))


def test_undefined_and_uncallable_answers():
    assert judge_task(_task(), _record(ok(2), answers={})).message.startswith(
        "`double` is not defined yet"
    )
    info = {"double": {"callable": False, "type": "int", "repr": "42"}}
    assert (
        judge_task(_task(), _record(ok(2), answers=info)).message
        == "`double` should be a function, but it is int 42."
    )


@pytest.mark.parametrize(
    "problem, kind, status, says",
    [
        ("timed out after 5 s (an endless loop?) and was interrupted", "timeout", "timed out", ""),
        ("the kernel died while running this cell; kernel restarted", "kernel died", "error", ""),
        ("not run: the notebook's total time limit was reached", "not run", "not run", ""),
        ("", "no result", "error", "did the notebook replace sys.audit"),
        (
            "the kernel's record of this call is malformed (line.id: text expected)",
            "malformed",
            "error",
            "malformed (line.id",
        ),
    ],
)
def test_no_usable_line_means_zero_and_says_why(problem, kind, status, says):
    grade_ = judge_task(_task(), [CallOutcome(None, problem, kind)])
    assert (grade_.points, grade_.status, grade_.error_class) == (0, status, kind)
    assert says in grade_.message and "ipykernel" not in grade_.message


def test_a_keyboard_interrupt_the_answer_raises_is_named_as_such():
    interrupt = raised("KeyboardInterrupt", "BaseException", message="")
    grade_ = judge_task(_task(), _record(interrupt, ok(4), ok(100), TYPE_ERROR))
    assert "— double(1) raised KeyboardInterrupt" in grade_.message
    assert "replace" not in grade_.message


def test_values_that_read_the_same_say_where_they_differ():
    long = list(range(200))
    task = Task("f", 1, ("f",), [Call("f(0)", "f(a0)", (0,), long, group="all")], (("all", 1),))
    info = {"f": {"callable": True, "type": "function", "repr": "f"}}
    line = {
        "kind": "call",
        "id": "c",
        "answers": info,
        "result": ok(long[:150] + [-1] + long[151:]),
    }
    message = judge_task(task, [CallOutcome(line)]).message
    assert "(at [150]: expected 150, got -1)" in message and "type list, not list" not in message
    line["result"] = ok(tuple(long))
    assert "(type tuple, not list)" in judge_task(task, [CallOutcome(line)]).message


# --- what the check modules give the judge -------------------------------------------------------


@pytest.mark.parametrize("exercise", CHAPTERS, ids=[path.stem for path in CHAPTERS])
def test_judge_tasks_are_the_exercise_tasks_with_hidden_cases_per_seed(exercise):
    nb = read_notebook(exercise)
    module = importlib.import_module(nb.metadata.book["checks"])
    expected = {
        cell.metadata.book["task"]: cell.metadata.book["points"]
        for cell in nb.cells
        if "book" in cell.metadata
    }
    first, again, other = (module.judge_tasks(random.Random(seed)) for seed in (1, 1, 2))
    assert {task.name: task.points for task in first} == expected
    assert [task.calls for task in first] == [task.calls for task in again]
    hidden = [[call.args for call in task.calls if call.hidden] for task in first]
    assert hidden != [[call.args for call in task.calls if call.hidden] for task in other]
    for task in first:
        assert task.calls and all(name.isidentifier() for name in task.answers)
        assert any(call.hidden for call in task.calls) or [
            call.expr for call in task.calls
        ] == list(task.answers)
        for name in module.REFERENCE:
            assert name.startswith("book.")


def test_expected_values_never_reach_the_kernel(tmp_path):
    class Recorder:
        sent: list = []

        def send(self, message):
            self.sent.append(json.dumps(message))

        def take(self):
            return []

    call = Call("f(1)", "f(a0)", (1,), "EXPECTED-VALUE-2718", group="all")
    task = Task("secret", 1, ("f",), [call] * 2, (("all", 1),))
    calls = Calls([task], Recorder(), 1, 5)
    sources = [cell.source for cell in calls.cells()]
    assert calls.before(1, calls.cells()[0])
    assert "EXPECTED-VALUE-2718" not in "".join(sources + Recorder.sent)
    assert "f(a0)" in Recorder.sent[0] and "f(a0)" not in "".join(sources)
    assert len(Recorder.sent) == 1  # the second call's inputs wait for its own cell


# --- the restricted package and the guard --------------------------------------------------------


def _run_python(code: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """Run code in a fresh Python, outside the repository (with the restricted copy on its path)."""
    env = {**os.environ, **({"PYTHONPATH": str(pythonpath)} if pythonpath else {})}
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=pythonpath or Path.home(),
    )


@pytest.fixture(scope="module")
def restricted(tmp_path_factory) -> Path:
    """A restricted copy of the package, the tokenizers blocked."""
    return stubs.restricted_copy(tmp_path_factory.mktemp("lib"), ("book.tokenizers",))


def test_stubs_import_but_refuse_every_use_and_report_it(restricted):
    code = """
import sys
reported = []
sys.addaudithook(lambda event, args: reported.append(args[0]) if event == "book.grade.used" else 0)
import book._grading_stub as log
from book import corpora
from book.tokenizers import CharTokenizer
from book.tokenizers.basic.characters import CharTokenizer as Direct
import book.checks.ch02 as checks
class Mine(CharTokenizer):  # a module that derives from a stub still imports
    pass
outcomes = []
for attempt in (lambda: CharTokenizer.train("ab"), lambda: Direct(["a"]), lambda: Mine(),
                lambda: setattr(checks, "check_encode", print), lambda: checks.check_encode(None)):
    try:
        attempt()
        outcomes.append("allowed")
    except log.ReferenceUnavailable as error:
        outcomes.append(str(error))
print(len(corpora.english("train")) > 1000, outcomes, reported, sep="\\n")
"""
    done = _run_python(code, restricted)
    assert done.returncode == 0, done.stderr
    data_ok, outcomes, entries = done.stdout.splitlines()
    assert data_ok == "True" and "allowed" not in outcomes
    assert (
        "book.tokenizers.CharTokenizer.train: write this yourself; the reference is not available"
        in outcomes
    )
    assert (
        "replacing book.checks.ch02.check_encode" in entries
        and "using book.checks.ch02.check_encode" in entries
    )
    stubbed = restricted / "book" / "tokenizers" / "basic" / "characters.py"
    assert not stubbed.read_text().count("def ")


def test_the_sandbox_is_an_allow_list(tmp_path):
    box = sandbox.Sandbox("/usr/bin/bwrap", "test")
    environment = sandbox.python_environment()
    scratch = tmp_path / "scratch"
    view = sandbox.View(environment, scratch, tmp_path / "lib", "alice.ipynb")
    args = view.bwrap_args(box, scratch_mb=64)
    mounted = {args[k + 2] for k, arg in enumerate(args) if arg in ("--ro-bind", "--bind")}
    assert "/" not in mounted and str(Path.home()) not in mounted and "/tmp" not in mounted
    assert {str(Path(sys.prefix).resolve()), str(stubs.PACKAGE)} <= mounted
    # The scratch folder is a tmpfs of 64 MB: only the notebook's copy and the sockets come in.
    tmpfs = args.index("--tmpfs", args.index("--size"))
    assert args[tmpfs - 2 : tmpfs + 2] == ["--size", str(64 * 2**20), "--tmpfs", str(scratch)]
    assert args[args.index(str(scratch / "alice.ipynb")) - 1] == "--ro-bind"
    assert {path for path in mounted if Path(path).is_relative_to(scratch)} == {
        str(scratch / "alice.ipynb"),
        str(scratch / sandbox.KERNEL_FOLDER),
    }
    environment_root = Path(sys.prefix).resolve()  # .venv may live in the repository
    assert not any(
        Path(path).is_relative_to(ROOT) and not Path(path).is_relative_to(environment_root)
        for path in mounted - {str(stubs.PACKAGE)}
    )
    assert args[args.index(str(stubs.PACKAGE)) - 2 : args.index(str(stubs.PACKAGE))] == [
        "--ro-bind",
        str(tmp_path / "lib" / "book"),
    ]
    assert {"--unshare-all", "--die-with-parent"} <= set(args)
    base = Path(sysconfig.get_paths()["stdlib"]) / "site-packages"
    if base.is_dir() and str(base.resolve()) not in map(os.path.realpath, sys.path):
        assert str(base.resolve()) in environment.masked  # a site-packages not on the path: hidden


def test_a_copy_of_the_course_among_the_packages_is_hidden(tmp_path):
    (tmp_path / "course_copy" / "grading").mkdir(parents=True)
    (tmp_path / "course_copy" / "grading" / "judge.py").write_text("")
    (tmp_path / "numpy").mkdir()
    assert sandbox._course_copies(tmp_path) == [tmp_path / "course_copy"]


def test_the_kernel_environment_is_clean(tmp_path):
    env = sandbox.kernel_env(tmp_path, tmp_path / "lib", 7, 1)
    assert env["PYTHONHASHSEED"] == "7" and env["HOME"] == str(tmp_path)
    assert not set(env) & {"USER", "LOGNAME", "SSH_AUTH_SOCK", "VIRTUAL_ENV", "PWD"}
    done = subprocess.run(
        [sys.executable, "-m", "book.grading.launch", "--env", "ONLY=this", "--", "/usr/bin/env"],
        capture_output=True,
        text=True,
        env={**os.environ, "GRADER_SECRET": "s3cr3t"},
        check=True,
    )
    assert done.stdout == "ONLY=this\n"


def test_without_bubblewrap_the_grader_refuses_and_says_what_to_do(monkeypatch):
    sandbox.find_sandbox.cache_clear()
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    try:
        with pytest.raises(sandbox.Unavailable, match="apt-get install bubblewrap.*--sandbox none"):
            sandbox.find_sandbox("bubblewrap")
        assert "NOT isolated" in sandbox.find_sandbox("none").note
    finally:
        sandbox.find_sandbox.cache_clear()


# --- identity and learners -----------------------------------------------------------------------


def test_exercise_from_metadata_then_file_name_else_a_clear_error():
    nb = nbformat.v4.new_notebook(metadata={"book": {"exercise": "02_characters"}})
    names = ["01_text_to_numbers", "02_characters"]
    assert submission.exercise_of(Path("alice.ipynb"), nb, names) == "02_characters"
    assert submission.exercise_of(
        Path("bob_01_text_to_numbers.ipynb"), nbformat.v4.new_notebook(), names
    ) == ("01_text_to_numbers")
    with pytest.raises(NotebookError, match="its metadata has no book.exercise"):
        submission.exercise_of(Path("carol.ipynb"), nbformat.v4.new_notebook(), names)
    for path, learner in [
        ("s/alice_02_characters.ipynb", "alice"),
        ("s/bob/02_characters.ipynb", "bob"),
        ("s/mallory/bob_02_characters.ipynb", "mallory"),  # a folder per learner comes first
        ("s/02_characters.ipynb", "02_characters"),
    ]:
        assert submission.learner_name(Path(path), [Path("s")], names) == learner


def test_a_check_module_without_judge_data_is_a_clear_grading_error(tmp_path, capsys):
    exercises_dir = tmp_path / "exercises"
    exercises_dir.mkdir()
    nb = read_notebook(ROOT / "exercises" / "01_text_to_numbers.ipynb")
    nb.metadata.book["checks"] = "book.checks.core"  # a module with checks but no judge_tasks
    (exercises_dir / "01_text_to_numbers.ipynb").write_text(nbformat.writes(nb))
    (tmp_path / "work.ipynb").write_text(nbformat.writes(nb))
    assert grade.main([str(tmp_path / "work.ipynb"), "--exercises", str(exercises_dir)]) == 2
    assert "book.checks.core has no judge_tasks(rng)" in capsys.readouterr().err
