"""The book's figure style: one colour-blind-safe palette and the same look in every chapter.

Chapters call ``use_book_style()`` once, then draw with plain matplotlib. Titles state the
finding ("Emoji cost four bytes or more") and wrap to the figure (``set_title(..., wrap=True)``),
axes say their units. No text is smaller than :data:`SMALLEST_TEXT_PT` and no figure wider
than :data:`FIGURE_WIDTH_IN`, so a figure stays legible on a phone.
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
