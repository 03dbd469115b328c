"""Tests for book.show.scroll: a wide table in a box that scrolls sideways and says so."""

from __future__ import annotations

import pandas as pd

from book.show.scroll import DEFAULT_NOTE, NOTE_BELOW, scroll_box


def test_the_box_holds_the_tables_own_html_after_its_note():
    table = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    page = scroll_box(table)._repr_html_()
    note, body = page.index('class="tfs-scroll-note"'), page.index('class="tfs-scroll-body"')
    assert note < body
    assert page[body:].startswith('class="tfs-scroll-body">' + table._repr_html_())
    assert DEFAULT_NOTE in page and page.endswith("</div></div>")


def test_the_note_is_escaped_and_shows_only_where_the_page_is_narrow():
    page = scroll_box("<table></table>", note="a < b & c")._repr_html_()
    assert "<i>a &lt; b &amp; c</i>" in page
    assert f"@media (min-width:{NOTE_BELOW}){{.tfs-scroll-note{{display:none}}}}" in page
    assert ".tfs-scroll-body{overflow-x:auto}" in page


def test_text_that_is_not_html_is_escaped_and_its_plain_repr_is_the_contents():
    box = scroll_box(["<x>"])
    assert "<pre>[&#x27;&lt;x&gt;&#x27;]</pre>" in box._repr_html_()
    assert repr(box) == "['<x>']"
