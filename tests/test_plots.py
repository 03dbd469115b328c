"""The figure style's promise on a phone: no figure wider than FIGURE_WIDTH_IN, no text smaller
than SMALLEST_TEXT_PT, in the style and in every figure a chapter draws.

The browser test measures the rendered figures; this test finds the cause in the source first:
a chapter's ``figsize`` or ``fontsize`` that breaks the promise.
"""

from __future__ import annotations

import ast

import matplotlib as mpl
import nbformat
import pytest
from matplotlib.font_manager import font_scalings
from notebook_paths import notebooks

from book.show.plots import FIGURE_WIDTH_IN, SMALLEST_TEXT_PT, use_book_style

NOTEBOOKS = notebooks("chapters") + notebooks("solutions")
SIZES = ("fontsize", "labelsize", "title_fontsize", "size")


def points(value: object) -> float:
    """A matplotlib font size in points: a number, or a name relative to font.size."""
    if isinstance(value, str):
        return font_scalings[value] * mpl.rcParams["font.size"]
    return float(value)


def test_the_style_draws_no_text_below_the_smallest_size():
    use_book_style()
    keys = ["font.size", "axes.titlesize", "axes.labelsize", "xtick.labelsize"]
    keys += ["ytick.labelsize", "legend.fontsize"]
    assert min(points(mpl.rcParams[key]) for key in keys) == SMALLEST_TEXT_PT
    assert mpl.rcParams["figure.figsize"][0] == FIGURE_WIDTH_IN


def figure_settings(source: str) -> list[tuple[str, object]]:
    """Each literal ``figsize=`` width and font size set in ``source``'s calls."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            try:
                value = ast.literal_eval(keyword.value)
            except ValueError:
                continue
            if keyword.arg == "figsize":
                found.append(("figsize", value[0]))
            elif keyword.arg in SIZES and isinstance(value, (int, float, str)):
                found.append(("font", value))
    return found


def test_the_check_finds_a_small_font_and_a_wide_figure():
    source = "fig = plt.figure(figsize=(8, 3))\nax.text(0, 0, 's', fontsize='small')"
    assert figure_settings(source) == [("figsize", 8), ("font", "small")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_figure_is_wider_or_its_text_smaller_than_the_style_allows(path):
    use_book_style()
    problems = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or "plt" not in cell.source:
            continue
        for kind, value in figure_settings(cell.source.replace("%matplotlib inline", "")):
            if kind == "figsize" and value > FIGURE_WIDTH_IN:
                problems.append(f"cell {cell.get('id')}: figsize {value} in wide")
            if kind == "font" and points(value) < SMALLEST_TEXT_PT:
                problems.append(f"cell {cell.get('id')}: font size {value!r}")
    assert not problems, (
        f"{path.name}: {problems}; keep figures at most {FIGURE_WIDTH_IN} in wide and text "
        f"at least {SMALLEST_TEXT_PT} pt (book.show.plots), or a phone shows them illegibly"
    )


def test_a_figure_with_long_labels_and_title_is_saved_no_wider_than_the_style_allows(tmp_path):
    import matplotlib.pyplot as plt
    from PIL import Image

    from book.show.plots import FIGURE_DPI, PAD_IN

    use_book_style()
    fig, ax = plt.subplots()
    ax.barh([f"a rather long category name {i}" for i in range(8)], range(8))
    ax.set_xlabel("UTF-8 bytes per token")
    ax.set_title("A title that states a finding in more words than fit on one line", wrap=True)
    fig.savefig(tmp_path / "figure.png")
    plt.close(fig)
    width, _ = Image.open(tmp_path / "figure.png").size
    assert width <= (FIGURE_WIDTH_IN + 2 * PAD_IN) * FIGURE_DPI


def test_the_heat_map_prints_each_value_and_draws_the_same_every_time():
    from book.show.plots import heat_map

    use_book_style()
    values = [[1.0, 2.5], [13.5, 1.04]]
    pictures = []
    for _ in range(2):
        fig = heat_map(values, ["Hindi", "Tamil"], ["a", "b"], title="t", label="premium")
        fig.canvas.draw()
        pictures.append(bytes(fig.canvas.buffer_rgba()))
        assert [t.get_text() for t in fig.axes[0].texts] == ["1.0", "2.5", "13.5", "1.0"]
        assert fig.get_size_inches()[0] <= FIGURE_WIDTH_IN
    assert pictures[0] == pictures[1]
    plain = heat_map(values, ["Hindi", "Tamil"], ["a", "b"], title="t", label="p", numbers=False)
    assert len(plain.axes[0].texts) == 0


@pytest.mark.parametrize(
    ("values", "error"),
    [([[1.0, 2.0]], "1×2 but there are 2 rows"), ([[1.0], [0.0]], "every value above 0")],
)
def test_the_heat_map_refuses_a_table_it_cannot_draw(values, error):
    from book.show.plots import heat_map

    with pytest.raises(ValueError, match=error):
        heat_map(values, ["a", "b"], ["x"] if len(values[0]) == 1 else ["x"], title="t", label="p")
