"""Generate exercises/NN_slug.ipynb from solutions/NN_slug.ipynb.

    python -m book.exercises              # regenerate every exercise from solutions/
    python -m book.exercises --check      # exit 1 listing exercises that are out of date
    python -m book.exercises PATH --out DIR
    python -m book.exercises --force      # also over a learner's work (kept as a backup)

What changes from a solutions notebook to its exercise notebook:

- the solutions' title, the first markdown cell (``# Solutions N: name`` and the solutions'
  introduction), becomes the exercise's title and introduction (``# Exercises N: name`` and
  :data:`EXERCISE_INTRO`), so the two pages read, and show in the book's side bar, as what
  they are;
- each block between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes
  ``# YOUR CODE HERE`` + ``raise NotImplementedError()`` at the block's indentation, so an
  unwritten function reports "not attempted" when it is called; a block at a cell's top level
  (an ungraded answer written in the cell itself) becomes ``# YOUR CODE HERE`` alone, so that
  running the whole notebook does not stop there;
- a model answer becomes a "Your answer" prompt: a markdown cell tagged ``model-answer``, or a
  ``{dropdown}``/``{admonition}`` directive whose title starts with "Model answer";
- outputs and execution counts are cleared, except in check cells (``# NBVAL_CHECK_OUTPUT``),
  which keep their stored passing line and count (nbval skips cells that have no count) and get
  metadata ``{"book": {"task": ..., "points": ...}}`` read from that line, for the grader;
- the notebook's metadata records its identity, ``{"book": {"exercise": "NN_slug", "checks":
  "book.checks.chNN"}}``, so the grader knows a learner's copy under any file name.

The output is deterministic: the same solutions give the same bytes.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from book.checks.core import PASS_LINE
from book.notebooks import (
    ROOT,
    NotebookError,
    clean_metadata,
    is_check_cell,
    notebook_text,
    read_notebook,
    shown,
    stdout_of,
)

SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
PLACEHOLDER = ("# YOUR CODE HERE", "raise NotImplementedError()")
# A top-level block is no function's body: raising there would stop "Run all" at the cell.
TOP_LEVEL_PLACEHOLDER = PLACEHOLDER[:1]
MODEL_ANSWER_TAG = "model-answer"
YOUR_ANSWER = "**Your answer:** _double-click this cell and write your answer here._"
SOLUTIONS_TITLE = re.compile(r"# Solutions (?P<number>\d+): (?P<name>.+)")
# What an exercise notebook says first, under its title; {chapter} is the chapter's stem.
EXERCISE_INTRO = """\
Practice for chapter {{doc}}`../chapters/{chapter}`. Write your code where it says
`# YOUR CODE HERE` (delete the `raise NotImplementedError()` line), run the cell, then run the
check cell below it: it prints one line with what passed and your points, or the first
failing case and a hint. The line stored under each check is the one you are aiming for; the
worked answers are in {{doc}}`../solutions/{chapter}`, for when you have tried."""
FENCE = re.compile(
    r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(dropdown|admonition)\}\s*(?P<title>.*)$"
)


class ExerciseError(NotebookError):
    """A solutions notebook the generator cannot turn into an exercise."""


def solution_blocks(source: str, where: str = "cell") -> list[tuple[int, int, str]]:
    """(begin line, end line, indentation) of every solution block in source, markers included."""
    blocks, begin = [], None
    for number, line in enumerate(source.splitlines()):
        marker = line.strip()
        if marker == BEGIN:
            if begin is not None:
                raise ExerciseError(f"{where}: a second {BEGIN} before {END} (line {number + 1})")
            begin, indent = number, line[: len(line) - len(line.lstrip())]
        elif marker == END:
            if begin is None:
                raise ExerciseError(f"{where}: {END} without {BEGIN} (line {number + 1})")
            blocks.append((begin, number, indent))
            begin = None
    if begin is not None:
        raise ExerciseError(
            f"{where}: {BEGIN} on line {begin + 1} has no {END}; add it after the solution"
        )
    return blocks


def strip_solutions(source: str, where: str = "cell") -> str:
    """Replace each solution block by the placeholder, at the block's indentation (a block at
    the top level by the comment alone).

    strip_solutions("def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION")
    -> "def f():\\n    # YOUR CODE HERE\\n    raise NotImplementedError()"
    """
    lines = source.splitlines()
    for begin, end, indent in reversed(solution_blocks(source, where)):
        placeholder = PLACEHOLDER if indent else TOP_LEVEL_PLACEHOLDER
        lines[begin : end + 1] = [indent + line for line in placeholder]
    return "\n".join(lines)


def _closes(line: str, fence: str) -> bool:
    """True if line closes a MyST directive opened with fence (same character, at least as many)."""
    mark = line.strip()
    return len(mark) >= len(fence) and set(mark) == {fence[0]}


def hide_model_answers(markdown: str, where: str = "cell") -> str:
    """Replace every 'Model answer' dropdown/admonition block by the 'Your answer' prompt."""
    lines, out, index = markdown.splitlines(), [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not (opening and opening["title"].lower().startswith("model answer")):
            out.append(lines[index])
            index += 1
            continue
        close = next(
            (k for k in range(index + 1, len(lines)) if _closes(lines[k], opening["fence"])), None
        )
        if close is None:
            raise ExerciseError(
                f"{where}: the model answer opened by {lines[index].strip()!r} is never closed"
            )
        out.append(opening["indent"] + YOUR_ANSWER)
        index = close + 1
    return "\n".join(out)


def check_task(cell: NotebookNode, where: str) -> dict:
    """{'task': name, 'points': P} read from a solutions check cell's stored passing line."""
    if solution_blocks(cell.source, where):
        raise ExerciseError(f"{where}: a check cell must not contain a solution block")
    others = [
        out.output_type if out.output_type != "stream" else f"{out.name} text"
        for out in cell.outputs
        if not (out.output_type == "stream" and out.name == "stdout")
    ]
    line = stdout_of(cell)
    found = PASS_LINE.fullmatch(line.rstrip("\n"))
    if cell.execution_count is None or others or not found or line.count("\n") != 1:
        got = f"stored output {line!r}" + (f" plus {', '.join(others)}" if others else "")
        raise ExerciseError(
            f"{where}: a check cell must store exactly its passing line "
            f"'✔ <task>: ... — P/P points' "
            f"({got}); fix the solution, then run python -m book.notebooks execute on the notebook"
        )
    return {"task": found["task"], "points": int(found["points"])}


def exercise_title(cell: NotebookNode, where: str, exercise: str | None) -> str:
    """The exercise's title and introduction, from the solutions' title cell.

    >>> from nbformat.v4 import new_markdown_cell
    >>> exercise_title(new_markdown_cell("# Solutions 3: words\\n\\nWorked."), "", "03_words")
    ... # doctest: +ELLIPSIS
    '# Exercises 3: words\\n\\nPractice for chapter {doc}`../chapters/03_words`...'
    """
    first_line = cell.source.split("\n", 1)[0].strip()
    title = SOLUTIONS_TITLE.fullmatch(first_line) if cell.cell_type == "markdown" else None
    if title is None:
        raise ExerciseError(
            f"{where}: the first markdown cell must be the solutions' title and introduction, "
            f"starting '# Solutions N: name' (found {first_line[:60]!r}); the generator turns "
            "it into the exercise's title and introduction"
        )
    intro = EXERCISE_INTRO.format(chapter=exercise or "NN_slug")
    return f"# Exercises {title['number']}: {title['name']}\n\n{intro}"


def exercise_cell(cell: NotebookNode, where: str) -> NotebookNode:
    """The exercise version of one solutions cell."""
    cell = NotebookNode({**cell, "metadata": NotebookNode(clean_metadata(cell.metadata))})
    tags = cell.metadata.get("tags", [])
    if cell.cell_type == "markdown" and MODEL_ANSWER_TAG in tags:
        cell.source = YOUR_ANSWER
        cell.metadata.tags = [tag for tag in tags if tag != MODEL_ANSWER_TAG]
        if not cell.metadata.tags:
            del cell.metadata["tags"]
    elif cell.cell_type == "markdown":
        cell.source = hide_model_answers(cell.source, where)
    elif cell.cell_type == "code" and is_check_cell(cell):
        cell.metadata.book = check_task(cell, where)
        cell.outputs = [NotebookNode(output_type="stream", name="stdout", text=stdout_of(cell))]
    elif cell.cell_type == "code":
        cell.source = strip_solutions(cell.source, where)
        cell.outputs, cell.execution_count = [], None
    return cell


def checks_of(cells: list[NotebookNode], name: str) -> str | None:
    """The one check module the check cells import (``from book.checks import chNN``), or None."""
    found = {
        match
        for cell in cells
        if "book" in cell.metadata
        for match in re.findall(r"from book\.checks import (\w+)", cell.source)
    }
    if len(found) > 1:
        raise ExerciseError(
            f"{name}: the check cells import several check modules ({', '.join(sorted(found))}); "
            "an exercise has one"
        )
    return f"book.checks.{found.pop()}" if found else None


def make_exercise(
    solutions: NotebookNode, name: str = "notebook", exercise: str | None = None
) -> NotebookNode:
    """The exercise notebook generated from a solutions notebook (name is used in error messages).

    exercise, the exercise's name (the solutions file's stem), is recorded in the metadata.
    """
    cells = []
    for index, cell in enumerate(solutions.cells):
        if not cell.get("id"):
            raise ExerciseError(
                f"{name}: cell {index} has no id (nbformat 4.5); "
                "run python -m book.notebooks execute on it to save it with ids"
            )
        cells.append(exercise_cell(cell, f"{name}, cell {index}"))
    title = next((i for i, cell in enumerate(cells) if cell.cell_type == "markdown"), None)
    if title is None:
        raise ExerciseError(f"{name}: no markdown cell; it must open with '# Solutions N: name'")
    cells[title].source = exercise_title(cells[title], f"{name}, cell {title}", exercise)
    tasks = [cell.metadata.book["task"] for cell in cells if "book" in cell.metadata]
    repeated = sorted({task for task in tasks if tasks.count(task) > 1})
    if repeated:
        raise ExerciseError(
            f"{name}: task names must be unique, but {', '.join(repeated)} is checked twice"
        )
    metadata = {key: value for key, value in solutions.metadata.items() if key != "widgets"}
    identity = {"exercise": exercise, "checks": checks_of(cells, name)}
    if any(identity.values()):
        metadata["book"] = {key: value for key, value in identity.items() if value}
    return NotebookNode(
        nbformat=4,
        nbformat_minor=max(solutions.nbformat_minor, 5),
        metadata=NotebookNode(metadata),
        cells=cells,
    )


def exercise_text(solutions_path: Path) -> str:
    """The exact text of the exercise notebook generated from a solutions notebook file."""
    return notebook_text(
        make_exercise(read_notebook(solutions_path), shown(solutions_path), solutions_path.stem)
    )


def learner_work(existing: NotebookNode, generated: NotebookNode) -> list[str]:
    """Signs that a learner worked in an exercise notebook, which the generator never produces.

    A task whose ``raise NotImplementedError()`` is gone, code written in a top-level answer
    cell (a line its template lacks), a "Your answer" prompt that was replaced, a cell that was
    run: regenerating over any of these would lose the learner's work.
    An exercise that is merely out of date (its solutions changed) shows none of them.
    """
    fresh = {cell.get("id"): cell for cell in generated.cells}
    signs = []
    for index, cell in enumerate(existing.cells):
        template = fresh.get(cell.get("id"))
        if (
            cell.cell_type == "code"
            and not is_check_cell(cell)
            and (cell.get("outputs") or cell.get("execution_count"))
        ):
            signs.append(f"cell {index} was run")
        elif template is not None and template.source.count(PLACEHOLDER[1]) > cell.source.count(
            PLACEHOLDER[1]
        ):
            signs.append(f"cell {index} has code in place of `{PLACEHOLDER[1]}`")
        elif template is not None and _written_at_top_level(template.source, cell.source):
            signs.append(f"cell {index} has code where it says `{PLACEHOLDER[0]}`")
        elif (
            template is not None
            and YOUR_ANSWER in template.source
            and YOUR_ANSWER not in cell.source
        ):
            signs.append(f"cell {index} holds a written answer")
    return signs


def _written_at_top_level(template: str, source: str) -> bool:
    """Whether source, a cell whose template has a top-level placeholder, holds a line of code
    the template lacks."""
    if TOP_LEVEL_PLACEHOLDER[0] not in template.splitlines():
        return False
    given = set(template.splitlines())
    return any(
        line.strip()
        and not line.lstrip().startswith("#")
        and line.strip() not in PLACEHOLDER
        and line not in given
        for line in source.splitlines()
    )


def backup_path(exercise: Path) -> Path:
    """Where --force keeps a copy of a learner's notebook before regenerating it."""
    return exercise.with_name(f"{exercise.stem}.backup-{time.strftime('%Y%m%d-%H%M%S')}.ipynb")


def _targets(names: list[str], out: Path | None) -> list[tuple[Path, Path]]:
    """(solutions path, exercise path) pairs for the command line's arguments."""
    if not names and not SOLUTIONS.is_dir():
        raise ExerciseError(
            f"there is no {shown(SOLUTIONS)}/ folder next to the book package; "
            "run this in a clone of the repository (pip install -e .)"
        )
    if not names:
        return [
            (path, (out or EXERCISES) / path.name) for path in sorted(SOLUTIONS.glob("*.ipynb"))
        ]
    pairs = []
    for name in names:
        path = Path(name) if name.endswith(".ipynb") else SOLUTIONS / f"{name}.ipynb"
        if not path.is_file():
            raise ExerciseError(f"{name}: no such solutions notebook ({shown(path)})")
        if out is None and path.resolve().parent != SOLUTIONS.resolve():
            raise ExerciseError(
                f"{shown(path)} is not in {shown(SOLUTIONS)}/, so its exercise does not belong in "
                f"{shown(EXERCISES)}/; pass --out DIR to say where to write it"
            )
        pairs.append((path, (out or EXERCISES) / path.name))
    return pairs


def _orphans() -> list[Path]:
    """Exercises in the repository's exercises/ that no solutions notebook generates."""
    return [
        path for path in sorted(EXERCISES.glob("*.ipynb")) if not (SOLUTIONS / path.name).exists()
    ]


def main(argv: list[str] | None = None) -> int:
    """Command line; exit 0 done, 1 out of date (--check), 2 a notebook or usage error."""
    parser = argparse.ArgumentParser(
        prog="python -m book.exercises",
        description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 done (or up to date), 1 out of date (--check), 2 error.",
    )
    parser.add_argument(
        "notebooks",
        nargs="*",
        metavar="SOLUTIONS",
        help="solutions notebooks (paths, or stems like 01_text_to_numbers); "
        "default: all of solutions/",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if an exercise differs"
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write (or check) the exercises in DIR instead of exercises/",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="regenerate even an exercise that holds a learner's work (a backup copy is kept)",
    )
    args = parser.parse_args(argv)
    try:
        pairs = _targets(args.notebooks, args.out)
        texts = [(exercise, exercise_text(solutions)) for solutions, exercise in pairs]
    except NotebookError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    orphans = _orphans() if not args.notebooks and args.out is None else []
    stale = [
        exercise
        for exercise, text in texts
        if not exercise.is_file() or exercise.read_text(encoding="utf-8") != text
    ]
    if args.check:
        for exercise in stale:
            print(f"{shown(exercise)} differs from what its solutions notebook generates")
        for orphan in orphans:
            print(
                f"{shown(orphan)} has no solutions notebook; "
                f"delete it or add solutions/{orphan.name}"
            )
        if stale or orphans:
            print("run python -m book.exercises to regenerate", file=sys.stderr)
            return 1
        print(f"all {len(texts)} exercise notebooks are up to date")
        return 0
    refused = 0
    for exercise, text in texts:
        if exercise in stale and exercise.is_file():
            signs = _learner_work_in(exercise, text)
            if signs and not args.force:
                refused += 1
                print(
                    f"error: {shown(exercise)} holds your work ({'; '.join(signs)}), so it was not "
                    f"regenerated. Move it elsewhere (e.g. my_work/) and run again, or pass "
                    f"--force "
                    f"to regenerate it after keeping a copy.",
                    file=sys.stderr,
                )
                continue
            if signs:
                backup = backup_path(exercise)
                shutil.copy2(exercise, backup)
                print(f"kept your work as {shown(backup)}")
        if exercise in stale:
            exercise.parent.mkdir(parents=True, exist_ok=True)
            exercise.write_text(text, encoding="utf-8")
        print(f"{'wrote' if exercise in stale else 'unchanged'} {shown(exercise)}")
    for orphan in orphans:
        print(f"warning: {shown(orphan)} has no solutions notebook (left alone)", file=sys.stderr)
    return 2 if refused else 0


def _learner_work_in(exercise: Path, generated_text: str) -> list[str]:
    """learner_work for a file; one that is not a readable notebook is a learner's file too."""
    try:
        existing = read_notebook(exercise)
    except NotebookError as error:
        return [f"it is not a notebook the generator wrote ({error})"]
    return learner_work(existing, nbformat.reads(generated_text, as_version=4))


if __name__ == "__main__":
    sys.exit(main())
