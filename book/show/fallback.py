"""What a page shows where a widget's scripts do not load: a static copy, hidden once it renders.

The rendered book has no kernel, and some readers' browsers do not load the widget scripts
(offline, scripts blocked). So every widget of the book is displayed after a static copy of
what it shows first, with a sentence saying what is missing. The widget carries a style sheet
that hides the copies (:data:`HIDE_STATIC_CSS`): it reaches the page only when the widget
itself renders, so the copy stays exactly where the widget did not come up.

    >>> "tfs-static" in static_html("<b>first step</b>", "Stepping needs JavaScript.")
    True
"""

from __future__ import annotations

import html

# Goes into the page only inside the widget's own HTML (see the module's docstring).
HIDE_STATIC_CSS = "<style>.tfs-static{display:none}</style>"
NOTE_CSS = "<style>.tfs-note{font-size:13px;color:#333;margin:4px 0}</style>"


def static_html(content: str, note: str) -> str:
    """The static copy: ``content`` (HTML) and ``note`` (text) saying what needs the widget.

    >>> static_html("<p>x</p>", "a < b").endswith("<i>a &lt; b</i></div></div>")
    True
    """
    return (
        f'{NOTE_CSS}<div class="tfs-static">{content}'
        f'<div class="tfs-note"><i>{html.escape(note, quote=False)}</i></div></div>'
    )


class StaticFallback:
    """Mixin for a widget shown after its static copy; the widget's HTML holds HIDE_STATIC_CSS.

    A subclass defines :meth:`static_html`; displaying the widget as a cell's result shows that
    copy, then the widget.
    """

    def static_html(self) -> str:
        """The copy a page without the widget's scripts shows (see :func:`static_html`)."""
        raise NotImplementedError

    def _ipython_display_(self) -> None:
        """Display the static copy, then the widget (which hides the copy where it renders)."""
        from IPython.display import HTML, display

        display(HTML(self.static_html()))
        display(self._repr_mimebundle_(), raw=True)
