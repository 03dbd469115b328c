"""One submission: which exercise it is, who submitted it, and its grade (never an exception).

Only a regular file of its own is read: a symbolic link, a file with other names (a hard link),
a special file or a notebook over ``MAX_NOTEBOOK_MB`` is refused, with the reason, before a byte
of it is read.

>>> learner_name(Path("class/alice_02_characters.ipynb"), [Path("class")], ["02_characters"])
'alice'
>>> learner_name(Path("class/bob/mine.ipynb"), [Path("class")], ["02_characters"])
'bob'
"""

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from book.exercises import EXERCISES, SOLUTIONS, exercise_text
from book.grading.judge import Grade, KernelUnavailable, Unreproducible, grade_cells
from book.grading.sandbox import Environment, Limits, find_sandbox, python_environment
from book.notebooks import NotebookError, parse_notebook, read_notebook, shown

MAX_NOTEBOOK_MB = 20  # outputs and attachments included


def book_of(node: NotebookNode) -> dict:
    """A notebook's or cell's metadata.book, or {} when it has none or it is not a mapping."""
    metadata = node.get("metadata", {})
    book = metadata.get("book", {}) if isinstance(metadata, dict) else {}
    return book if isinstance(book, dict) else {}


def read_submission(path: Path, limit_mb: int = MAX_NOTEBOOK_MB) -> tuple[bytes, NotebookNode]:
    """The bytes and the notebook of a submission; NotebookError when it is not a regular file of
    its own (a symbolic or hard link, a folder, a pipe) or is over limit_mb, before reading it."""
    if path.suffix != ".ipynb":
        raise NotebookError(f"{shown(path)} is not a notebook: expected a .ipynb file")
    try:  # O_NOFOLLOW: the file itself, never what a link points to; O_NONBLOCK: a pipe never waits
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise NotebookError(f"{shown(path)} does not exist") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotebookError(
                f"refused: {shown(path)} is a symbolic link (to {os.readlink(path)}), not a "
                "notebook of its own; only regular files are graded: submit the notebook itself"
            ) from None
        raise NotebookError(f"cannot read {shown(path)}: {error.strerror}") from None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotebookError(f"refused: {shown(path)} is not a regular file")
        if info.st_nlink > 1:
            raise NotebookError(
                f"refused: {shown(path)} is a hard link (one file with {info.st_nlink} names, "
                "maybe someone else's): only a file of its own is graded: submit a copy"
            )
        limit = limit_mb * 2**20
        data = file.read(limit + 1) if info.st_size <= limit else b""
        if info.st_size > limit or len(data) > limit:
            size = max(info.st_size, len(data)) / 2**20
            raise NotebookError(
                f"refused: {shown(path)} is {size:.0f} MB, over the grader's limit of {limit_mb} "
                "MB (outputs and attachments count): clear the outputs, remove large "
                "attachments and submit it again"
            )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(f"cannot read {shown(path)}: not UTF-8 text ({error})") from None
    nb = parse_notebook(text, path)
    book = nb.metadata.get("book") if isinstance(nb.metadata, dict) else None
    if book is not None and not isinstance(book, dict):
        raise NotebookError(
            f"refused: {shown(path)}: its metadata.book is a {type(book).__name__}, not the "
            "mapping the exercise generator writes: download a fresh exercise notebook and copy "
            "your work into it"
        )
    return data, nb


def graded_cells(nb: NotebookNode) -> dict[int, NotebookNode]:
    """{index: cell} of the check cells that carry a task and its points (metadata book.task)."""
    return {
        index: cell
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and "task" in book_of(cell)
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
        return cell.get("id") in ids or "task" in book_of(cell) or cell.source in sources

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
    recorded = book_of(nb).get("exercise")
    if isinstance(recorded, str) and recorded in names:
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
    recorded = book_of(pristine).get("checks")
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


SEPARATORS = "_-. "


def learner_name(path: Path, roots: list[Path], exercises: list[str]) -> str:
    """Who submitted path: the folder it is in under a folder given on the command line (a
    folder per learner), else its file name without the longest exercise name in it."""
    for root in roots:
        parts = path.parts[len(root.parts) :]
        if path.parts[: len(root.parts)] == root.parts and len(parts) > 1:
            return parts[0]
    inside = [name for name in exercises if name in path.stem]
    name = path.stem.replace(max(inside, key=len), "") if inside else path.stem
    return name.strip(SEPARATORS) or path.stem


def learner_key(name: str) -> str:
    """The learner a name stands for: names that differ only in case or Unicode form are one.

    >>> learner_key("Bob") == learner_key("bob") != learner_key("bob-3")
    True
    """
    return unicodedata.normalize("NFKC", name).casefold()


@dataclass(frozen=True)
class Submission:
    """The file graded for one learner and exercise, and the learner's others, not graded."""

    path: Path
    learner: str
    others: tuple[Path, ...] = ()

    def note(self) -> str:
        """What the report says of the files not graded ('' when there are none)."""
        if not self.others:
            return ""
        names = ", ".join(shown(path) for path in self.others)
        return (
            f"also submitted as {self.learner}'s for this exercise, not graded: {names} (one file "
            f"per learner and exercise is graded: {CHOICE})"
        )


CHOICE = (
    "a regular file before a link, a notebook of the exercise before another, a file nearer the "
    "folder given before one deeper, a name in lower case before other spellings, then the "
    "path's alphabetical order"
)


def _choice_order(path: Path, fits: bool) -> tuple:
    """Sort key of a learner's files for one exercise: the first is graded (see CHOICE)."""
    try:
        info = os.lstat(path)
        usable = stat.S_ISREG(info.st_mode) and info.st_nlink == 1
    except OSError:
        usable = False
    return (not usable, not fits, len(path.parts), path.stem != path.stem.lower(), str(path))


def assign(
    paths: list[Path],
    roots: list[Path],
    exercises: list[str],
    exercise: Callable[[Path], str],
    fits: Callable[[Path], bool] = lambda path: True,
) -> list[Submission]:
    """One submission per learner and exercise (exercise(path) says which; fits(path) whether it
    is a readable notebook of that exercise): each learner's files chosen in the fixed order of
    CHOICE, the rest listed; in the order of the paths graded.

    >>> picked = assign([Path("c/Bob_x.ipynb"), Path("c/bob_x.ipynb")], [Path("c")], ["x"],
    ...                 lambda path: "x")
    >>> [(str(s.path), s.learner, [str(p) for p in s.others]) for s in picked]
    [('c/bob_x.ipynb', 'bob', ['c/Bob_x.ipynb'])]
    """
    groups: dict[tuple[str, str], list[Path]] = {}
    for path in paths:
        key = (learner_key(learner_name(path, roots, exercises)), exercise(path))
        groups.setdefault(key, []).append(path)
    chosen = []
    for files in groups.values():
        first, *others = sorted(set(files), key=lambda path: _choice_order(path, fits(path)))
        chosen.append(Submission(first, learner_name(first, roots, exercises), tuple(others)))
    return sorted(chosen, key=lambda submission: str(submission.path))


def submissions(paths: list[Path]) -> list[Path]:
    """The files to grade: files as given, folders searched for .ipynb files (not checkpoints),
    never through a symbolic link to a folder; a link to a file is listed, to be refused."""
    found = []
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            inside = []
            for folder, subfolders, files in os.walk(path):  # links to folders are not followed
                subfolders[:] = sorted(name for name in subfolders if name != ".ipynb_checkpoints")
                inside += [Path(folder) / name for name in sorted(files) if name.endswith(".ipynb")]
            if not inside:
                raise NotebookError(f"{shown(path)} contains no notebooks (.ipynb)")
            found.extend(inside)
        elif os.path.lexists(path):
            found.append(path)
        else:
            raise NotebookError(f"{shown(path)} does not exist")
    return list(dict.fromkeys(found))


def carried_exercise(path: Path, exercises: list[str]) -> str | None:
    """The exercise a submission says it is (None when it cannot be read or does not say)."""
    try:
        return exercise_of(path, read_submission(path)[1], exercises)
    except NotebookError:
        return None


def class_exercise(carried: list[str | None]) -> str | None:
    """The exercise most notebooks carry (ties: the first in name order), None if none does.

    >>> class_exercise(["04_char_bpe", "01_text", None, "04_char_bpe"])
    '04_char_bpe'
    """
    counts = Counter(name for name in carried if name)
    return min(counts, key=lambda name: (-counts[name], name)) if counts else None


def grade_file(
    path: Path,
    exercises_dir: Path | None,
    seed: int,
    limits: Limits,
    roots: list[Path],
    sandbox: str = "bubblewrap",
    environment: Environment | None = None,
    expected: str | None = None,
    learner: str = "",
    notes: tuple[str, ...] = (),
) -> Grade:
    """Grade one submission file; whatever goes wrong becomes Grade.error, never an exception.

    expected: the class's exercise (a notebook of another is refused), None to grade each as
    the exercise it carries; learner: who submitted it (else found from its path); notes: what
    its report says besides; environment: what the kernel sees of Python (found when not given).
    """
    sources = exercise_sources(exercises_dir)
    note = find_sandbox(sandbox).note
    learner = learner or learner_name(path, roots, sorted(sources))

    def refused(why: str, exercise: str = "", refusal: bool = True) -> Grade:
        return Grade(
            path,
            exercise,
            learner,
            error=why,
            seed=seed,
            sandbox=note,
            notes=list(notes),
            refused=refusal,
        )

    try:
        data, submission = read_submission(path)
        exercise = exercise_of(path, submission, sorted(sources))
    except NotebookError as error:
        return refused(str(error), expected or "")
    if expected and exercise != expected:
        return refused(
            f"this is exercise {exercise}, not {expected}: the class is graded "
            f"as exercise {expected} (give --any-exercise to grade each notebook as the "
            "exercise it carries)",
            expected,
        )
    try:
        pristine = sources[exercise]()
        if not graded_cells(pristine):
            raise NotebookError(
                f"exercise {exercise} has no graded check cells (metadata book.task); "
                "regenerate it with python -m book.exercises"
            )
        checks = checks_module(pristine, exercise)
    except NotebookError as error:
        return refused(str(error), exercise, refusal=False)

    def failed(why: str) -> Grade:
        return refused(why, exercise, refusal=False)

    try:
        grade = grade_cells(
            path,
            data,
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
    grade.notes[:0] = notes
    expected_tasks = {
        book_of(cell)["task"]: book_of(cell)["points"] for cell in graded_cells(pristine).values()
    }
    judged = {task.task: task.max_points for task in grade.tasks}
    if judged != expected_tasks:
        grade.notes.append(
            f"the grader's tasks {judged} differ from the exercise's {expected_tasks}: "
            "regenerate the exercise or fix the check module"
        )
    return grade
