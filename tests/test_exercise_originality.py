"""An exercise must ask for something its chapter did not show line by line.

The measurable part: no model-solution cell (a cell with ``### BEGIN SOLUTION``) is more than
80% similar, by difflib's ratio on the source, to any code cell of its chapter. (Whether a task
asks for a variant, an extension or a measurement is for review; this catches a retyped cell.)
"""

from __future__ import annotations

import difflib

import nbformat
import pytest
from notebook_paths import ROOT, notebooks

# Library parity and whole-corpus runs: make test runs them, make test-fast does not.
pytestmark = pytest.mark.slow

LIMIT = 0.80


def code_cells(path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


@pytest.mark.parametrize("solutions", notebooks("solutions"), ids=lambda path: path.stem)
def test_no_model_solution_is_a_near_copy_of_a_chapter_cell(solutions):
    chapter = ROOT / "chapters" / solutions.name
    assert chapter.exists(), f"{solutions.name} has no chapter"
    chapter_cells = code_cells(chapter)
    copies = []
    for source in code_cells(solutions):
        if "### BEGIN SOLUTION" not in source:
            continue
        ratio, closest = max(
            (difflib.SequenceMatcher(None, source, cell, autojunk=False).ratio(), cell)
            for cell in chapter_cells
        )
        if ratio > LIMIT:
            copies.append(f"{ratio:.0%} like the chapter cell:\n{closest[:200]}")
    assert not copies, "\n\n".join(copies)
