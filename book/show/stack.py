"""Several views, one shown at a time, switched in the browser (the static book has no kernel).

ipywidgets 8 has ``Stack`` for this. ipywidgets 7, which Colab ships, has not; there a ``Tab``
does the same once a style sheet hides its tab bar (:data:`STACK_CSS`, which every widget that
uses a stack carries). Both have ``children`` and ``selected_index``, all the book's widgets use.

    >>> views = stack([widgets.HTML("a"), widgets.HTML("b")], selected_index=1)
    >>> views.selected_index, len(views.children)
    (1, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

# Hides the tab bar of the ipywidgets 7 stand-in (Lumino's and PhosphorJS's class names).
STACK_CSS = "<style>.tfs-stack>.lm-TabBar,.tfs-stack>.p-TabBar{display:none}</style>"


def stack(children: Sequence[widgets.Widget] = (), selected_index: int | None = None):
    """A ``Stack`` of ``children`` showing ``selected_index``; a tab-less ``Tab`` before 8."""
    if hasattr(widgets, "Stack"):
        return widgets.Stack(list(children), selected_index=selected_index)
    views = widgets.Tab(list(children))  # ipywidgets 7: a Tab's index must fit its children
    views.selected_index = selected_index if children else None
    views.add_class("tfs-stack")
    return views
