"""Notebook code and the solutions' stored output fit the rendered book's column.

``make lint`` holds notebook code to 79 characters with ruff, whose E501 lets two kinds of long
line pass: one without a space (a long URL or f-string) and one that fits but for a trailing
``# noqa``. On the page both are cut off all the same, so this counts every line. Printed output
is held to the same column (``book.show.printing``): the solutions store theirs, so it is
checked here; the chapters' output is measured by the browser test on the built book.
"""

from __future__ import annotations

import nbformat
import pytest
from notebook_paths import ROOT, notebooks

from book.show.printing import COLUMN, display_width

NOTEBOOKS = [
    *notebooks("chapters"),
    *notebooks("solutions"),
    *notebooks("exercises"),
    *sorted((ROOT / "appendix").glob("*.ipynb")),
]
SOLUTIONS = notebooks("solutions")


def shown_cells(path):
    """The code cells a reader sees (a cell tagged remove-cell is not on the page)."""
    return [
        cell
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code" and "remove-cell" not in cell.metadata.get("tags", [])
    ]


def too_wide(lines: list[str], where: str) -> list[str]:
    return [
        f"{where}: {display_width(line)} columns: {line}"
        for line in lines
        if display_width(line) > COLUMN
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_code_line_fits_the_column(path):
    wide = []
    for cell in shown_cells(path):
        wide += too_wide(cell.source.splitlines(), f"cell {cell.get('id')}")
    assert not wide, (
        f"{path.name}: split these lines (make format-notebooks does most):\n" + "\n".join(wide)
    )


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: p.stem)
def test_every_printed_line_of_the_solutions_fits_the_column(path):
    wide = []
    for cell in shown_cells(path):
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                wide += too_wide(output.text.splitlines(), f"cell {cell.get('id')}")
    assert not wide, (
        f"{path.name}: print these with book.show.printing.print_wrapped, then execute the "
        "notebook again:\n" + "\n".join(wide)
    )
