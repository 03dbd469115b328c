"""The exercise system: checks, the exercise generator, the grader (the judge), and nbval.

Every property is tested on the demo notebook (tests/fixtures/solutions/99_demo.ipynb, checks in
book/checks/demo.py) and on every real solutions/NN_slug.ipynb. Kernels are slow, so each
notebook's variants are graded once, in a module-scoped fixture, and the tests read the results.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from notebook_paths import notebooks

from book import exercises, grade
from book.checks import core, demo
from book.checks.spec import Group, TaskSpec
from book.exercises import make_exercise, solution_blocks, strip_solutions
from book.grading import judge, submission
from book.grading.calls import judge_in_process
from book.notebooks import ROOT, is_check_cell, notebook_text, read_notebook

DEMO = Path(__file__).parent / "fixtures" / "solutions" / "99_demo.ipynb"
CHAPTERS = notebooks("solutions")
# Seconds per cell in the endless-loop test: short, yet many times what the demo's cells take on a
# loaded machine (they print a few numbers), so only the endless cells reach it.
ENDLESS_TIMEOUT = 10

slow = pytest.mark.slow  # runs kernels
# The demo's wrong notebook: char_codes with a known mistake (bytes, not code points). Its half
# right one: utf8_size with a known mistake, and a decode that waits for the rest of a character
# cut short at the end instead of raising (a slip no known mistake makes: one group fails).
WRONG = {"char-codes": 'return list(text.encode("utf-8"))'}
HALF = {
    "utf8-size": "return len(text)",
    "encode-decode": (
        'import codecs\n\nreturn codecs.getincrementaldecoder("utf-8")().decode(bytes(ids))'
    ),
}


# --- building variants of an exercise notebook ----------------------------------------------------


def fill(
    exercise: nbformat.NotebookNode,
    solutions: nbformat.NotebookNode,
    replace: dict[str, str] | None = None,
) -> nbformat.NotebookNode:
    """The exercise with each placeholder replaced by its solution block (or replace[cell id])."""
    nb = nbformat.reads(notebook_text(exercise), as_version=4)
    by_id = {cell.id: cell for cell in solutions.cells}
    for cell in nb.cells:
        blocks = solution_blocks(by_id[cell.id].source) if cell.cell_type == "code" else []
        solution_lines = by_id[cell.id].source.splitlines()
        for begin, end, indent in blocks:
            code = solution_lines[begin + 1 : end]
            if replace and cell.id in replace:
                code = [indent + line for line in replace[cell.id].splitlines()]
            lines = exercises.PLACEHOLDER if indent else exercises.TOP_LEVEL_PLACEHOLDER
            placeholder = "\n".join(indent + line for line in lines)
            assert placeholder in cell.source, f"cell {cell.id} lost a placeholder"
            cell.source = cell.source.replace(placeholder, "\n".join(code), 1)
    return nb


def check_indices(nb: nbformat.NotebookNode) -> list[int]:
    """Indices of the graded check cells."""
    return [index for index, cell in enumerate(nb.cells) if "book" in cell.metadata]


def passing_line(cell: nbformat.NotebookNode) -> str:
    """The stored passing line of a check cell."""
    return cell.outputs[0].text.strip()


def tamper(exercise: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The unanswered exercise with cheats that must earn nothing, taking turns over the checks:
    the check cell edited to print its passing line; the check cell replaced by a learner cell
    printing it; the line printed at the top of the answer cell above the check."""
    nb = nbformat.reads(notebook_text(exercise), as_version=4)
    for turn, index in reversed(list(enumerate(check_indices(nb)))):
        cell, cheat = (
            nb.cells[index],
            f"# NBVAL_CHECK_OUTPUT\nprint({passing_line(nb.cells[index])!r})",
        )
        answer = next(
            (k for k in range(index - 1, -1, -1) if nb.cells[k].cell_type == "code"), None
        )
        if turn % 3 == 0 or answer is None:
            cell.source = cheat
        elif turn % 3 == 1:
            nb.cells[index] = nbformat.v4.new_code_cell(cheat)
        else:
            nb.cells[answer].source = cheat.splitlines()[1] + "\n" + nb.cells[answer].source
    return nb


def rearrange(filled: nbformat.NotebookNode) -> dict:
    """A correct notebook a learner moved things around in, saved without cell ids (nbformat 4.4):
    first check deleted, second check edited, a scratch cell added above the third check."""
    nb = json.loads(notebook_text(filled))
    first, second, third = check_indices(filled)[:3]
    nb["cells"][second]["source"] = "print('I changed the check')"
    nb["cells"].insert(
        third,
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": "scratch = encode('scratch')\nprint(scratch)",
        },
    )
    del nb["cells"][first]
    for cell in nb["cells"]:
        cell.pop("id", None)
    nb["nbformat_minor"] = 4
    return nb


# --- running the tools ----------------------------------------------------------------------------


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run a command with this Python, capturing text output."""
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=900, check=False
    )


def grade_cli(*args: str) -> tuple[subprocess.CompletedProcess, dict[tuple[str, str], dict]]:
    """Run python -m book.grade with --tasks-csv; return the process, {(file name, task): row}."""
    csv_path = (
        Path(args[0]).parent / f"grades-{hashlib.md5(repr(args).encode()).hexdigest()[:8]}.csv"
    )
    done = run("-m", "book.grade", *args, "--tasks-csv", str(csv_path))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    with open(csv_path, encoding="utf-8") as file:
        rows = {(Path(row["submission"]).name, row["task"]): row for row in csv.DictReader(file)}
    return done, rows


def nbval(mode: str, *paths: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run pytest --nbval or --nbval-lax on notebooks; return the process, the failing files."""
    done = run(
        "-m",
        "pytest",
        mode,
        "--nbval-current-env",
        "-p",
        "no:cacheprovider",
        "-q",
        "-rfE",
        "-o",
        "addopts=",
        *map(str, paths),
    )
    failing = {
        Path(match).name
        for match in re.findall(r"^(?:FAILED|ERROR) (\S+?\.ipynb)", done.stdout, re.MULTILINE)
    }
    return done, failing


def digest(path: Path) -> str:
    """SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class Graded:
    """One solutions notebook, its exercise, its variants and how they were graded."""

    name: str
    solutions: Path
    exercise: Path
    exercises_args: tuple[str, ...]  # how the grader finds the pristine exercise
    tasks: dict[str, int]  # task -> points
    variants: dict[str, Path]
    folder: subprocess.CompletedProcess
    rows: dict[tuple[str, str], dict]
    files_before: dict[str, str]  # file name -> SHA-256 of the submissions folder, before grading
    files_after: dict[str, str]
    lax: subprocess.CompletedProcess
    lax_failing: set[str]

    def row(self, variant: str, task: str) -> dict:
        """The CSV row of a variant's task."""
        return self.rows[(self.variants[variant].name, task)]


def build(solutions_path: Path, tmp: Path) -> Graded:
    """Generate the exercise, write the variants, grade them, run nbval-lax on them."""
    stem = solutions_path.stem
    solutions = read_notebook(solutions_path)
    if solutions_path == DEMO:
        exercise_dir = tmp / "exercises"
        exercise_dir.mkdir()
        done = run("-m", "book.exercises", str(DEMO), "--out", str(exercise_dir))
        assert done.returncode == 0, done.stderr
        exercises_args = ("--exercises", str(exercise_dir))
    else:
        exercise_dir, exercises_args = ROOT / "exercises", ()
    exercise_path = exercise_dir / f"{stem}.ipynb"
    exercise = read_notebook(exercise_path)
    filled = fill(exercise, solutions)
    folder = tmp / "submissions"
    folder.mkdir()
    variants = {
        name: folder / f"{name}_{stem}.ipynb" for name in ("exercise", "tampered", "filled")
    }
    variants["exercise"].write_text(exercise_path.read_text(encoding="utf-8"), encoding="utf-8")
    variants["tampered"].write_text(notebook_text(tamper(exercise)), encoding="utf-8")
    variants["filled"].write_text(notebook_text(filled), encoding="utf-8")
    if solutions_path == DEMO:
        variants["rearranged"] = folder / f"rearranged_{stem}.ipynb"
        variants["rearranged"].write_text(
            json.dumps(rearrange(filled), indent=1, ensure_ascii=False)
        )
        for name, answers in (("wrong", WRONG), ("half", HALF)):
            variants[name] = folder / f"{name}_{stem}.ipynb"
            variants[name].write_text(
                notebook_text(fill(exercise, solutions, answers)), encoding="utf-8"
            )
    variants["renamed"] = folder / "alice.ipynb"  # any file name: the metadata says which exercise
    variants["renamed"].write_text(notebook_text(filled), encoding="utf-8")
    before = {path.name: digest(path) for path in folder.iterdir()}
    folder_run, rows = grade_cli(str(folder), *exercises_args)
    after = {path.name: digest(path) for path in folder.iterdir()}
    lax, lax_failing = nbval(
        "--nbval-lax",
        *(path for name, path in variants.items() if name not in ("tampered", "renamed")),
    )
    tasks = {
        cell.metadata.book["task"]: cell.metadata.book["points"]
        for cell in exercise.cells
        if "book" in cell.metadata
    }
    return Graded(
        stem,
        solutions_path,
        exercise_path,
        exercises_args,
        tasks,
        variants,
        folder_run,
        rows,
        before,
        after,
        lax,
        lax_failing,
    )


NOTEBOOKS = [DEMO, *CHAPTERS]
_BUILT: dict[Path, Graded] = {}


def built(path: Path, tmp_path_factory) -> Graded:
    """The notebook's variants, graded once per test session."""
    if path not in _BUILT:
        _BUILT[path] = build(path, tmp_path_factory.mktemp(path.stem))
    return _BUILT[path]


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def graded(request, tmp_path_factory) -> Graded:
    """Each notebook, graded once for all the tests below."""
    return built(request.param, tmp_path_factory)


# --- properties of every notebook -----------------------------------------------------------------


@slow
@pytest.mark.parametrize("solutions", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_solutions_are_stored_executed_and_pass_strict_nbval(solutions):
    nb = read_notebook(solutions)
    unrun = [
        index
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and cell.execution_count is None
    ]
    assert not unrun, (
        f"{solutions.name}: cells {unrun} have no stored outputs; "
        "run python -m book.notebooks execute"
    )
    done, failing = nbval("--nbval", solutions)
    assert done.returncode == 0 and not failing, done.stdout[-3000:]


@slow
def test_graded_check_cells_have_points(graded):
    assert graded.tasks and all(points > 0 for points in graded.tasks.values())
    solutions = read_notebook(graded.solutions)
    assert len(graded.tasks) == sum(is_check_cell(cell) for cell in solutions.cells)


@slow
def test_generated_exercise_scores_zero(graded):
    for task, points in graded.tasks.items():
        row = graded.row("exercise", task)
        assert (row["points"], row["max_points"], row["status"]) == ("0", str(points), "failed"), (
            row
        )


@slow
def test_filled_exercise_scores_full_marks(graded):
    for task, points in graded.tasks.items():
        row = graded.row("filled", task)
        assert (row["points"], row["status"]) == (str(points), "passed"), row


@slow
def test_a_renamed_notebook_is_graded_as_its_exercise(graded):
    for task, points in graded.tasks.items():
        row = graded.row("renamed", task)
        assert (row["exercise"], row["learner"], row["points"]) == (
            graded.name,
            "alice",
            str(points),
        ), row


@slow
def test_the_judge_grades_exactly_the_exercise_tasks(graded):
    assert {
        task: int(graded.row("filled", task)["max_points"]) for task in graded.tasks
    } == graded.tasks
    assert "differ from the exercise's" not in graded.folder.stdout


@slow
def test_tampering_earns_nothing(graded):
    for task in graded.tasks:
        row = graded.row("tampered", task)
        assert (row["points"], row["status"]) == ("0", "failed"), row


@slow
def test_grader_never_modifies_submissions(graded):
    assert graded.files_after == graded.files_before


@slow
def test_folder_with_failing_submissions_exits_1_with_class_table(graded):
    assert graded.folder.returncode == 1
    total = sum(graded.tasks.values())
    table = graded.folder.stdout.split("tasks passed", 1)[1]  # the class table comes last
    assert re.search(rf"filled_{graded.name}\.ipynb\s+{graded.name}\s+{total}/{total}\s", table)
    assert re.search(rf"exercise_{graded.name}\.ipynb\s+{graded.name}\s+0/{total}\s", table)


@slow
def test_demo_all_passed_exits_0(demo_graded):
    done, _ = grade_cli(str(demo_graded.variants["filled"]), *demo_graded.exercises_args)
    assert done.returncode == 0, done.stdout
    total = sum(demo_graded.tasks.values())
    assert f"total {total}/{total}" in " ".join(done.stdout.split())


@slow
def test_nbval_lax_passes_exactly_when_answers_are_right(graded):
    expected_failing = {
        path.name for name, path in graded.variants.items() if name in ("exercise", "wrong", "half")
    }
    assert graded.lax_failing == expected_failing, graded.lax.stdout[-3000:]


@slow
def test_exercise_is_what_the_generator_makes(graded):
    assert graded.exercise.read_text(encoding="utf-8") == exercises.exercise_text(graded.solutions)


def test_committed_exercises_are_up_to_date():
    done = run("-m", "book.exercises", "--check")
    assert done.returncode == 0, done.stdout + done.stderr


# --- the demo notebook: cases that need a known set of tasks --------------------------------------


@pytest.fixture(scope="module")
def demo_graded(tmp_path_factory) -> Graded:
    """The demo notebook, graded (the same run as the parametrized tests use)."""
    return built(DEMO, tmp_path_factory)


@slow
def test_demo_rearranged_correct_work_scores_full_marks(demo_graded):
    for task, points in demo_graded.tasks.items():
        assert demo_graded.row("rearranged", task)["points"] == str(points)


@slow
def test_demo_wrong_answer_fails_that_task_with_expected_got_and_the_mistake(demo_graded):
    row = demo_graded.row("wrong", "char_codes")
    assert (row["points"], row["status"], row["error_class"]) == ("0", "failed", "wrong")
    assert row["message"] == (
        "groups passed: none; failed: short texts, long texts — char_codes('é€') — expected "
        "[233, 8364], got [195, 169, 226, 130, 172] (at [0]: expected 233, got 195). Hint: "
        "a code point numbers a character, not its bytes: 'é' is one code point and two bytes "
        "of UTF-8"
    )
    assert demo_graded.row("wrong", "decode")["status"] == "passed"


@slow
def test_demo_half_right_work_gets_the_points_of_its_right_groups_and_names_the_mistake(
    demo_graded,
):
    points = {task: demo_graded.row("half", task)["points"] for task in demo_graded.tasks}
    assert points == {"char_codes": "2", "utf8_size": "0", "decode": "2"}
    size = demo_graded.row("half", "utf8_size")["message"]
    assert size.endswith(f"Hint: {demo.UTF8_SIZE.mistakes[0].says}"), size
    decode = demo_graded.row("half", "decode")["message"]
    assert decode == (
        "groups passed: the examples, random texts; failed: cut characters — decode([195, 169, "
        "195]) ['é', then the first of its two bytes] should raise ValueError, but returned 'é'. "
        f"Hint: {demo.DECODE.hint}"
    )
    table = demo_graded.folder.stdout.split("tasks passed", 1)[1]
    assert re.search(r"half_99_demo\.ipynb\s+99_demo\s+4/7\s", table), table


@slow
def test_demo_endless_loops_and_a_dying_kernel_cost_only_their_task(demo_graded, tmp_path):
    solutions = read_notebook(DEMO)
    exercise = read_notebook(demo_graded.exercise)
    nb = fill(exercise, solutions, {"char-codes": "while True:\n    pass"})
    stubborn = (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)  # ignores the interrupt\n"
        "while True:\n    pass"
    )
    after_second_check = check_indices(nb)[1] + 1
    nb.cells.insert(after_second_check, nbformat.v4.new_code_cell(stubborn))
    nb.cells.insert(after_second_check, nbformat.v4.new_code_cell("import os\nos._exit(1)"))
    path = tmp_path / "99_demo.ipynb"
    path.write_text(notebook_text(nb), encoding="utf-8")
    # The per-cell limit, not the notebook's (default 600 s), must stop the loops: the statuses
    # and notes below are the per-cell limit's; the total limit would say "not run".
    done, rows = grade_cli(
        str(path), *demo_graded.exercises_args, "--timeout", str(ENDLESS_TIMEOUT)
    )
    assert done.returncode == 1
    assert rows[(path.name, "char_codes")]["status"] == "timed out"
    assert rows[(path.name, "utf8_size")]["status"] == "passed"
    # after two kernel restarts and replays
    assert rows[(path.name, "decode")]["status"] == "passed"
    assert "ignored the interrupt; kernel restarted" in done.stdout
    assert "the kernel died while running this cell" in done.stdout


def test_demo_exercise_generation_is_deterministic_and_checked(tmp_path):
    first = run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path))
    assert first.returncode == 0 and "wrote" in first.stdout
    out = tmp_path / "99_demo.ipynb"
    text = out.read_text(encoding="utf-8")
    assert text.endswith("}\n") and text == exercises.exercise_text(DEMO)
    again = run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path))
    assert "unchanged" in again.stdout and out.read_text(encoding="utf-8") == text
    assert run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path), "--check").returncode == 0
    out.write_text(text.replace("YOUR CODE HERE", "my code"), encoding="utf-8")
    stale = run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path), "--check")
    assert stale.returncode == 1 and "99_demo.ipynb differs" in stale.stdout


def _generated_demo(tmp_path: Path) -> tuple[Path, nbformat.NotebookNode]:
    """The demo exercise, generated into tmp_path, and its notebook."""
    assert run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path)).returncode == 0
    out = tmp_path / "99_demo.ipynb"
    return out, nbformat.read(out, as_version=4)


def _first_task_cell(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return next(
        cell
        for cell in nb.cells
        if cell.cell_type == "code" and "raise NotImplementedError()" in cell.source
    )


@pytest.mark.parametrize("how", ["answered", "ran", "wrote an answer"])
def test_regenerating_never_overwrites_a_learners_work(tmp_path, how):
    out, nb = _generated_demo(tmp_path)
    if how == "answered":
        cell = _first_task_cell(nb)
        cell.source = cell.source.replace(
            "raise NotImplementedError()", "return [ord(c) for c in text]"
        )
    elif how == "ran":
        _first_task_cell(nb).execution_count = 1
    else:
        prompt = next(cell for cell in nb.cells if exercises.YOUR_ANSWER in cell.source)
        prompt.source = "Four bytes: code points above U+FFFF."
    nbformat.write(nb, out)
    work = out.read_bytes()
    refused = run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path))
    assert refused.returncode == 2 and "holds your work" in refused.stderr
    assert out.read_bytes() == work
    forced = run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path), "--force")
    assert forced.returncode == 0 and "kept your work as" in forced.stdout
    backups = list(tmp_path.glob("99_demo.backup-*.ipynb"))
    assert len(backups) == 1 and backups[0].read_bytes() == work
    assert out.read_text(encoding="utf-8") == exercises.exercise_text(DEMO)


def test_an_out_of_date_exercise_without_learner_work_is_regenerated(tmp_path):
    out, nb = _generated_demo(tmp_path)
    nb.cells[0].source += "\n\nAn older wording of the introduction."
    nbformat.write(nb, out)
    again = run("-m", "book.exercises", str(DEMO), "--out", str(tmp_path))
    assert again.returncode == 0 and "wrote" in again.stdout
    assert out.read_text(encoding="utf-8") == exercises.exercise_text(DEMO)


def test_demo_exercise_content():
    nb = make_exercise(read_notebook(DEMO))
    sources = [cell.source for cell in nb.cells]
    assert "### BEGIN SOLUTION" not in "".join(sources) and "ord(ch)" not in "".join(sources)
    assert sources[2].endswith('"""\n    # YOUR CODE HERE\n    raise NotImplementedError()')
    assert "Model answer" not in "".join(sources) and sources[-1].startswith("**Your answer:**")
    for cell in nb.cells:
        if cell.cell_type == "code" and "book" in cell.metadata:
            assert cell.execution_count and cell.outputs[0].text.startswith("✔ ")
        elif cell.cell_type == "code":
            assert cell.execution_count is None and cell.outputs == []


# --- no kernel: the generator's and the grader's rules, the checks' lines -------------------------


@pytest.mark.parametrize("solutions", notebooks("solutions"), ids=lambda path: path.stem)
def test_solutions_and_exercises_have_titles_of_their_own(solutions):
    exercise = make_exercise(read_notebook(solutions), solutions.name, solutions.stem)
    number = int(solutions.stem[:2])
    solutions_title = next(c for c in read_notebook(solutions).cells if c.cell_type == "markdown")
    exercise_title = next(c for c in exercise.cells if c.cell_type == "markdown")
    assert solutions_title.source.startswith(f"# Solutions {number}: ")
    assert exercise_title.source.startswith(f"# Exercises {number}: ")
    assert "Worked answers" in solutions_title.source and "Worked" not in exercise_title.source
    assert f"../chapters/{solutions.stem}" in exercise_title.source
    assert "YOUR CODE HERE" in exercise_title.source


def test_a_solutions_notebook_without_its_title_is_refused():
    nb = read_notebook(DEMO)
    nb.cells[0].source = "# Exercises 99: demo"
    with pytest.raises(exercises.ExerciseError, match="'# Solutions N: name'"):
        make_exercise(nb, "99_demo")


def test_strip_solutions_keeps_indentation_and_code_around():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    y = x\n    ### END SOLUTION\n    return y"
    assert (
        strip_solutions(source)
        == "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n    return y"
    )


def test_a_top_level_answer_becomes_a_comment_that_runs():
    # An ungraded answer written in the cell itself: raising there would stop "Run all".
    source = "# Ungraded: count.\n### BEGIN SOLUTION\nprint(1)\n### END SOLUTION"
    stripped = strip_solutions(source)
    assert stripped == "# Ungraded: count.\n# YOUR CODE HERE"
    exec(compile(stripped, "<cell>", "exec"), {})


def test_code_written_in_a_top_level_answer_cell_is_a_learners_work():
    cell = nbformat.v4.new_code_cell("# Ungraded: count.\n# YOUR CODE HERE", id="answer")
    generated = nbformat.v4.new_notebook(cells=[cell])
    existing = copy.deepcopy(generated)
    assert exercises.learner_work(existing, generated) == []
    existing.cells[0].source += "\nprint(len(text))"
    assert exercises.learner_work(existing, generated) == [
        "cell 0 has code where it says `# YOUR CODE HERE`"
    ]


@pytest.mark.parametrize(
    "source, message",
    [
        ("### BEGIN SOLUTION\nx = 1", "has no ### END SOLUTION"),
        ("x = 1\n### END SOLUTION", "without ### BEGIN SOLUTION"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "a second ### BEGIN SOLUTION"),
    ],
    ids=["no-end", "no-begin", "two-begins"],
)
def test_unbalanced_markers_are_reported(source, message):
    with pytest.raises(exercises.ExerciseError, match=message):
        strip_solutions(source, "solutions/x.ipynb, cell 3")


def test_model_answer_blocks_become_prompts():
    text = "Why?\n\n:::{dropdown} Model answer\nBecause.\n:::\n\n```{note}\nkept\n```"
    assert (
        exercises.hide_model_answers(text)
        == f"Why?\n\n{exercises.YOUR_ANSWER}\n\n```{{note}}\nkept\n```"
    )


def test_check_cell_without_passing_line_is_rejected():
    nb = read_notebook(DEMO)
    nb.cells[3].outputs[0].text = "✘ char_codes: oops — 0/2 points\n"
    with pytest.raises(exercises.ExerciseError, match="must store exactly its passing line"):
        make_exercise(nb, "99_demo")


def test_generator_refuses_to_write_outside_exercises_without_out(capsys):
    assert exercises.main([str(DEMO)]) == 2
    assert "pass --out DIR" in capsys.readouterr().err
    assert not (ROOT / "exercises" / "99_demo.ipynb").exists()


def test_check_cells_are_left_out_wherever_they_are_and_however_edited():
    pristine = nbformat.reads(
        notebook_text(make_exercise(read_notebook(DEMO), exercise="99_demo")), as_version=4
    )
    learner = nbformat.reads(notebook_text(pristine), as_version=4)
    learner.cells[3].source = "print('edited')"  # the check of char_codes, edited (same id)
    learner.cells.append(copy.deepcopy(learner.cells[9]))  # a copy of a check (same metadata)
    learner.cells.append(
        nbformat.v4.new_code_cell(learner.cells[6].source)
    )  # its source, in a new cell
    del learner.cells[6]  # the check of utf8_size, deleted
    learner.cells.insert(6, nbformat.v4.new_code_cell("utf8_size = len"))  # an answer in its place
    cells, numbers = judge.learner_cells(learner, submission.check_matcher(pristine))
    assert [cell.source for cell in cells] == [
        cell.source
        for k, cell in enumerate(learner.cells)
        if cell.cell_type == "code" and k in numbers
    ]
    assert "utf8_size = len" in [cell.source for cell in cells]
    assert not any(
        "book.checks" in cell.source or cell.source == "print('edited')" for cell in cells
    )
    assert all(cell.outputs == [] for cell in cells)  # stored lines never count


def test_exercise_identity_is_in_the_metadata():
    nb = make_exercise(read_notebook(DEMO), exercise="99_demo")
    assert nb.metadata.book == {"exercise": "99_demo", "checks": "book.checks.demo"}
    for path in CHAPTERS:
        stem = path.stem
        meta = read_notebook(ROOT / "exercises" / path.name).metadata.book
        assert meta == {"exercise": stem, "checks": f"book.checks.ch{stem[:2]}"}


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("notes.ipynb", None, "cannot tell which exercise"),
        ("99_demo.txt", "hello", "is not a notebook"),
        ("99_demo.ipynb", "{not json", "is not valid notebook JSON"),
        ("99_demo.ipynb", '{"cells": []}', "not a Jupyter notebook in format 4"),
    ],
    ids=["unknown-stem", "not-ipynb", "bad-json", "not-format-4"],
)
def test_grader_file_errors_exit_2(tmp_path, capsys, name, content, message):
    exercise_dir = tmp_path / "exercises"
    exercise_dir.mkdir()
    (exercise_dir / "99_demo.ipynb").write_text(notebook_text(make_exercise(read_notebook(DEMO))))
    path = tmp_path / name
    path.write_text(content if content is not None else notebook_text(read_notebook(DEMO)))
    assert grade.main([str(path), "--exercises", str(exercise_dir)]) == 2
    assert message in capsys.readouterr().err


def test_grader_missing_path_exits_2(capsys):
    assert grade.main(["no/such/notebook.ipynb"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_check_lines(capsys):
    demo.check("char_codes", demo.char_codes_reference)
    demo.check("char_codes", None)
    demo.check("char_codes", lambda text: print("debug") or 1 / 0)
    demo.check("char_codes", lambda text: [ord(ch) + 1 for ch in text])
    demo.check("utf8_size", len)
    lines = capsys.readouterr().out.splitlines()
    failed, hint = "groups passed: none; failed: short texts, long texts — ", demo.CHAR_CODES.hint
    assert lines == [
        "✔ char_codes: all 2 groups passed (10 cases) — 2/2 points",
        (
            "✘ char_codes: `char_codes` is not defined yet — write it in the cell above and run "
            "that cell (if the cell raised an error, fix that first). — 0/2 points"
        ),
        (
            f"✘ char_codes: {failed}char_codes('abc') raised ZeroDivisionError: 'division by "
            f"zero'. Hint: {hint} — 0/2 points"
        ),
        (
            f"✘ char_codes: {failed}char_codes('abc') — expected [97, 98, 99], got [98, 99, 100] "
            f"(at [0]: expected 97, got 98). Hint: {hint} — 0/2 points"
        ),
        (
            "✘ utf8_size: groups passed: none; failed: the examples, random texts — "
            "utf8_size('é') — expected 2, got 1. Hint: count bytes, not characters: a character "
            "past U+007F takes two to four bytes — 0/2 points"
        ),
    ]
    assert core.PASS_LINE.fullmatch(lines[0])["points"] == "2"


def test_not_attempted_and_not_a_function(capsys):
    def char_codes(text):
        raise NotImplementedError()

    demo.check("char_codes", char_codes)
    demo.check("char_codes", 42)
    first, second = capsys.readouterr().out.splitlines()
    assert first == f"✘ char_codes: {core.NOT_ATTEMPTED} — 0/2 points"
    assert (
        second == "✘ char_codes: `char_codes` should be a function, but it is int 42. — 0/2 points"
    )
    (grade,) = judge_in_process(
        [demo.CHAR_CODES.task(random.Random(1))], {"char_codes": char_codes}
    )
    assert (grade.points, grade.error_class, grade.message) == (
        0,
        "not attempted",
        core.NOT_ATTEMPTED,
    )


def test_equal_is_structural_and_strict_about_types():
    from collections import Counter

    class Liar(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    assert core.equal(Counter("aab"), {"a": 2, "b": 1}) and core.equal([(1, "a")], [(1, "a")])
    assert not core.equal((1, 2), [1, 2]) and not core.equal(3.0, 3) and not core.equal(True, 1)
    assert not core.equal([Liar(5)], [3]) and not core.equal({"a": Liar(0)}, {"a": 1})


def test_each_call_gets_its_own_arguments_and_a_comparison_that_raises_fails():
    def mutate(items):
        items.append(1)
        return len(items)

    shared = [0]  # both cases get this list: each call must get a copy of its own
    twice = Group("one list, twice", 1, lambda: [((shared,), ""), ((shared,), "")])
    spec = TaskSpec("mutate_once", mutate, (twice,), (), "")
    assert spec.result(mutate).points == 1 and shared == [0]
    (grade,) = judge_in_process([spec.task(random.Random(1))], {"mutate_once": mutate})
    assert grade.points == 1, grade.message

    def explode(got, expected):
        raise TypeError("incomparable")

    one = Group("one", 1, lambda: [((), "")])
    result = TaskSpec("one_explodes", lambda: 1, (one,), (), "", compare=explode).result(lambda: 1)
    assert result.points == 0 and "expected 1, got 1" in result.line
    assert core.show({"b", "a"}) == "{'a', 'b'}" and len(core.show("x" * 500)) == 100
