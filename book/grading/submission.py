"""One submission: which exercise it is, who submitted it, and its grade (never an exception).

>>> learner_name(Path("class/alice_02_characters.ipynb"), "02_characters", [Path("class")])
'alice'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from book.exercises import EXERCISES, SOLUTIONS, exercise_text
from book.grading.judge import Grade, KernelUnavailable, Unreproducible, grade_cells
from book.grading.sandbox import Environment, Limits, find_sandbox, python_environment
from book.notebooks import NotebookError, read_notebook, shown


def graded_cells(nb: NotebookNode) -> dict[int, NotebookNode]:
    """{index: cell} of the check cells that carry a task and its points (metadata book.task)."""
    return {
        index: cell
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and "task" in cell.metadata.get("book", {})
    }


def check_matcher(pristine: NotebookNode) -> Callable[[int, NotebookNode], bool]:
    """is_check(index, cell): True for the exercise's check cells, moved, copied or edited.

    A cell is a check cell when it has a check cell's id, carries a task in its metadata, or
    has a check cell's exact source; the learner's own cells are everything else.
    """
    checks = graded_cells(pristine).values()
    ids = {cell.get("id") for cell in checks if cell.get("id")}
    sources = {cell.source for cell in checks}

    def is_check(index: int, cell: NotebookNode) -> bool:
        return (
            cell.get("id") in ids
            or "task" in cell.get("metadata", {}).get("book", {})
            or cell.source in sources
        )

    return is_check


def exercise_sources(exercises_dir: Path | None) -> dict[str, Callable[[], NotebookNode]]:
    """exercise name -> how to load its pristine exercise notebook."""
    if exercises_dir is not None:
        return {
            path.stem: lambda path=path: read_notebook(path)
            for path in sorted(exercises_dir.glob("*.ipynb"))
        }
    sources = {
        path.stem: lambda path=path: read_notebook(path)
        for path in sorted(EXERCISES.glob("*.ipynb"))
    }
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        sources[path.stem] = lambda path=path: nbformat.reads(exercise_text(path), as_version=4)
    return sources


def exercise_of(path: Path, nb: NotebookNode, names: list[str]) -> str:
    """The exercise a submission belongs to: its metadata book.exercise, else its file name."""
    recorded = nb.metadata.get("book", {}).get("exercise")
    if recorded in names:
        return recorded
    if recorded:
        raise NotebookError(
            f"{shown(path)}: its metadata names exercise {recorded!r}, which is not one "
            f"of: {', '.join(names)}"
        )
    inside = [name for name in names if name in path.stem]
    if not inside:
        known = ", ".join(names) or "none (no exercises found)"
        raise NotebookError(
            f"{shown(path)}: cannot tell which exercise this is: its metadata has no "
            f"book.exercise (download a fresh exercise notebook and copy your work into "
            f"it) and its file name contains none of: {known}"
        )
    return max(inside, key=len)


def checks_module(pristine: NotebookNode, exercise: str) -> str:
    """The check module of an exercise: from its metadata, else from its check cells' imports."""
    recorded = pristine.metadata.get("book", {}).get("checks")
    if recorded:
        return recorded
    found = {
        match
        for cell in graded_cells(pristine).values()
        for match in re.findall(r"from book\.checks import (\w+)", cell.source)
    }
    if len(found) != 1:
        raise NotebookError(
            f"exercise {exercise}: cannot tell its check module; regenerate it with "
            "python -m book.exercises"
        )
    return f"book.checks.{found.pop()}"


def learner_name(path: Path, exercise: str, roots: list[Path]) -> str:
    """Who submitted: the file name without the exercise name, else the folder it is in."""
    name = path.stem.replace(exercise, "").strip("_-. ")
    if name:
        return name
    parent = path.resolve().parent
    return parent.name if parent not in {root.resolve() for root in roots} else path.stem


def submissions(paths: list[Path]) -> list[Path]:
    """The notebooks to grade: files as given, folders searched recursively (not checkpoints)."""
    found = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
            if not inside:
                raise NotebookError(f"{shown(path)} contains no notebooks (.ipynb)")
            found.extend(inside)
        elif path.exists():
            found.append(path)
        else:
            raise NotebookError(f"{shown(path)} does not exist")
    return found


def grade_file(
    path: Path,
    exercises_dir: Path | None,
    seed: int,
    limits: Limits,
    roots: list[Path],
    sandbox: str = "bubblewrap",
    environment: Environment | None = None,
) -> Grade:
    """Grade one submission file; whatever goes wrong becomes Grade.error, never an exception.

    environment: what the kernel sees of Python (computed here when not given)."""
    sources = exercise_sources(exercises_dir)
    try:
        submission = read_notebook(path)
        exercise = exercise_of(path, submission, sorted(sources))
        pristine = sources[exercise]()
        if not graded_cells(pristine):
            raise NotebookError(
                f"exercise {exercise} has no graded check cells (metadata book.task); "
                "regenerate it with python -m book.exercises"
            )
        checks = checks_module(pristine, exercise)
    except NotebookError as error:
        return Grade(path, "", error=str(error), seed=seed, sandbox=find_sandbox(sandbox).note)
    learner = learner_name(path, exercise, roots)

    def failed(why: str) -> Grade:
        return Grade(
            path, exercise, learner, error=why, seed=seed, sandbox=find_sandbox(sandbox).note
        )

    try:
        grade = grade_cells(
            path,
            exercise,
            submission,
            check_matcher(pristine),
            checks,
            seed,
            limits,
            find_sandbox(sandbox),
            environment or python_environment(),
        )
    except (ImportError, LookupError) as error:  # the grader's own installation or checks
        return failed(f"the checks of exercise {exercise} ({checks}) cannot be loaded: {error}")
    except (KernelUnavailable, Unreproducible) as error:
        return failed(str(error))
    except Exception as error:  # the class must go on: say what failed, grade the others
        return failed(
            f"the grader failed on this notebook ({type(error).__name__}: {str(error)[:300]}); "
            "please report it with the notebook"
        )
    grade.learner = learner
    expected = {
        cell.metadata.book["task"]: cell.metadata.book["points"]
        for cell in graded_cells(pristine).values()
    }
    judged = {task.task: task.max_points for task in grade.tasks}
    if judged != expected:
        grade.notes.append(
            f"the grader's tasks {judged} differ from the exercise's {expected}: "
            "regenerate the exercise or fix the check module"
        )
    return grade
