"""The book's figure style: one colour-blind-safe palette and the same look in every chapter.

Chapters call ``use_book_style()`` once, then draw with plain matplotlib. Titles state the
finding ("Emoji cost four bytes or more"), axes say their units.
"""

from __future__ import annotations

import matplotlib as mpl

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
SMALLEST_TEXT_PT = 10  # the smallest text the style draws (tick labels, legends)


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
            "axes.titlesize": 12,
            "figure.figsize": (7.5, 4.2),
            "figure.dpi": FIGURE_DPI,
            "savefig.bbox": "tight",
            # Fonts that carry the scripts shown in the book's tick labels.
            "font.family": ["DejaVu Sans"],
        }
    )
