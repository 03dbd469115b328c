"""Every scroll box a notebook makes is shown.

``scroll_box(table)`` returns a :class:`book.show.scroll.ScrollBox`; Jupyter shows it only as
the value of a cell's last line. Made by an expression statement anywhere else (earlier in the
cell, inside a loop or a function, or on a last line that ends in ';') it is made and dropped:
the page shows nothing where its prose points at a table. Such a box must go through
``display(...)``.
"""

from __future__ import annotations

import ast

import nbformat
import pytest
from notebook_paths import ROOT, notebooks

NOTEBOOKS = [
    *notebooks("chapters"),
    *notebooks("solutions"),
    *sorted((ROOT / "appendix").glob("*.ipynb")),
]
MAKERS = {"scroll_box", "ScrollBox"}


def python_of(source: str) -> str:
    """A cell's source as Python: IPython's magics and shell lines become blank lines."""
    return "\n".join("" if line.lstrip()[:1] in "%!" else line for line in source.splitlines())


def makes_a_box(node: ast.AST) -> bool:
    """Whether an expression is a call of scroll_box (or ScrollBox), by name or attribute."""
    if not isinstance(node, ast.Call):
        return False
    called = node.func
    name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", "")
    return name in MAKERS


def dropped_boxes(source: str) -> list[int]:
    """The lines of the boxes a cell makes by an expression statement Jupyter does not show."""
    tree = ast.parse(python_of(source))
    last = tree.body[-1] if tree.body and not source.rstrip().endswith(";") else None
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and makes_a_box(node.value) and node is not last
    ]


def test_a_dropped_box_is_recognised_and_a_shown_one_is_not():
    assert dropped_boxes("scroll_box(t)\nprint(1)") == [1]
    assert dropped_boxes("for t in ts:\n    scroll_box(t)") == [2]
    assert dropped_boxes("show.scroll_box(t);") == [1]
    assert dropped_boxes("%time x = 1\nprint(1)\nscroll_box(t)") == []
    assert dropped_boxes("display(scroll_box(t))\nprint(1)") == []
    assert dropped_boxes("box = scroll_box(t)\nbox") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_scroll_box_is_shown(path):
    dropped = [
        f"cell {cell.get('id')}, line {number}"
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code"
        for number in dropped_boxes(cell.source)
    ]
    assert not dropped, (
        f"{path.name}: a scroll box made here is not shown; make it the cell's last line or "
        "pass it to display(...):\n" + "\n".join(dropped)
    )
