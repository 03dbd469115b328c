"""A table that is wide on purpose, in a box that scrolls sideways and says so.

Most of the book's tables fit the page's column, on a phone too. A few compare many columns
at once (several encodings side by side, a regular expression's alternatives), and squeezing
them would make them unreadable. Those go in a scroll box: the table keeps its width, the box
scrolls, and a note above it tells the reader to scroll where the page is narrow (below
:data:`NOTE_BELOW`; at a desktop width the table fits and the note is hidden).

    >>> box = scroll_box("<table><tr><td>1</td></tr></table>", "Scroll for more.")
    >>> 'class="tfs-scroll-note"' in box._repr_html_()
    True
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

NOTE_BELOW = "60em"  # the window width below which the note shows
DEFAULT_NOTE = "A wide table: scroll sideways to see all its columns."
SCROLL_CSS = (
    "<style>.tfs-scroll-body{overflow-x:auto}"
    ".tfs-scroll-note{font-size:13px;color:#333;margin:4px 0}"
    f"@media (min-width:{NOTE_BELOW}){{.tfs-scroll-note{{display:none}}}}</style>"
)


def content_html(content: Any) -> str:
    """HTML for ``content``: its own (a DataFrame, a Styler), else its text, escaped.

    >>> content_html("<b>") , content_html(3)
    ('<b>', '<pre>3</pre>')
    """
    if isinstance(content, str):
        return content
    if hasattr(content, "_repr_html_"):
        return content._repr_html_()
    return f"<pre>{html.escape(repr(content))}</pre>"


@dataclass(frozen=True)
class ScrollBox:
    """What :func:`scroll_box` returns; a notebook displays it as the box."""

    content: Any
    note: str = DEFAULT_NOTE

    def _repr_html_(self) -> str:
        return (
            f'<div class="tfs-scroll">{SCROLL_CSS}'
            f'<div class="tfs-scroll-note"><i>{html.escape(self.note, quote=False)}</i></div>'
            f'<div class="tfs-scroll-body">{content_html(self.content)}</div></div>'
        )

    def __repr__(self) -> str:
        return self.content if isinstance(self.content, str) else repr(self.content)


def scroll_box(content: Any, note: str = DEFAULT_NOTE) -> ScrollBox:
    """``content`` (a table, or HTML) in a box that scrolls sideways, with ``note`` above it."""
    return ScrollBox(content, note)
