"""The book's figure style: one colour-blind-safe palette and the same look in every chapter.

Chapters call ``use_book_style()`` once, then draw with plain matplotlib, or with the one
figure several chapters share, :func:`heat_map`. Titles state the
finding ("Emoji cost four bytes or more") and wrap to the figure (``set_title(..., wrap=True)``),
axes say their units. No text is smaller than :data:`SMALLEST_TEXT_PT` and no figure wider
than :data:`FIGURE_WIDTH_IN`, so a figure stays legible on a phone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm

# Okabe & Ito's palette: distinguishable with every common form of colour blindness.
PALETTE = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#D55E00",  # vermillion
    "#F0E442",  # yellow
    "#000000",  # black
)
FIGURE_DPI = 100  # pixels per inch of the pictures in the page
SMALLEST_TEXT_PT = 11  # the smallest text the style draws (tick labels, legends, labels)
# The widest a figure may be. On a phone (390 px) the page's column is 358 px wide and shows
# a picture W inches wide at 358 / (W * FIGURE_DPI) of its size, so text of S points is
# S * 358 / (72 * W) px high: 11 pt at 5.8 inches is 9.4 px, where 9 px is the least a reader
# can read (the browser test measures every figure; the saved picture is a little wider than
# the figure, by its padding). A chapter that sets figsize keeps to this width.
FIGURE_WIDTH_IN = 5.8
PAD_IN = 0.05  # around the tight bounding box of a saved figure


def use_book_style() -> None:
    """Set matplotlib defaults shared by every figure of the book.

    >>> use_book_style(); mpl.rcParams["axes.spines.top"]
    False
    """
    mpl.rcParams.update(
        {
            "axes.prop_cycle": mpl.cycler(color=PALETTE),
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.titleweight": "bold",
            "font.size": SMALLEST_TEXT_PT,  # ticks, legends and labels default to it
            "axes.titlesize": SMALLEST_TEXT_PT + 1,
            "figure.figsize": (FIGURE_WIDTH_IN, 3.75),
            "figure.dpi": FIGURE_DPI,
            # Labels are fitted inside the figure (a long tick label would otherwise stick out,
            # and the tight picture would grow wider than FIGURE_WIDTH_IN).
            "figure.constrained_layout.use": True,
            "savefig.bbox": "tight",
            "savefig.pad_inches": PAD_IN,
            # Fonts that carry the scripts shown in the book's tick labels.
            "font.family": ["DejaVu Sans"],
        }
    )


def heat_map(
    values: Sequence[Sequence[float]],
    rows: Sequence[str],
    columns: Sequence[str],
    *,
    title: str,
    label: str,
    ticks: Sequence[float] = (1, 2, 5, 10),
    height_in: float = 8,
    numbers: bool = True,
):
    """A table of ratios as a heat map on a log scale: ``rows`` down the side, ``columns`` along
    the top, each cell's value printed in it (``2.3``) unless ``numbers`` is False (more than
    about eight columns leave no room for 11-point numbers: print the table beside it).
    Cividis, read the same with every common colour blindness; darker is larger. Returns the
    figure.

    >>> fig = heat_map([[1.0, 2.5]], ["Hindi"], ["a", "b"], title="b costs more", label="×")
    >>> [text.get_text() for text in fig.axes[0].texts]
    ['1.0', '2.5']
    """
    table = np.asarray(values, dtype=float)
    if table.shape != (len(rows), len(columns)):
        raise ValueError(
            f"values are {table.shape[0]}×{table.shape[1]} but there are {len(rows)} rows "
            f"and {len(columns)} columns"
        )
    if not (table > 0).all():
        raise ValueError("a log-scale heat map needs every value above 0")
    low, high = min(table.min(), ticks[0]), max(table.max(), ticks[-1])
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, height_in))
    image = ax.imshow(table, cmap="cividis_r", norm=LogNorm(low, high), aspect="auto")
    middle = math.sqrt(low * high)  # above it the cell is dark: print in white
    for (row, column), value in np.ndenumerate(table if numbers else []):
        colour = "white" if value > middle else "black"
        ax.text(column, row, f"{value:.1f}", ha="center", va="center", color=colour)
    ax.set_xticks(range(len(columns)), columns, rotation=90 if len(columns) > 4 else 0)
    ax.set_yticks(range(len(rows)), rows)
    ax.xaxis.tick_top()
    ax.grid(False)
    bar = fig.colorbar(image, ax=ax, ticks=list(ticks), format="%g×", label=label)
    bar.ax.minorticks_off()
    ax.set_title(title, wrap=True)
    return fig
