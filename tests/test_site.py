"""book.site, the rendered book's Sphinx extension: one copy of each script, widget fonts.

The script test builds a one-page Sphinx project with the two extensions whose inline scripts
Sphinx lists twice (sphinx-thebe, sphinx-togglebutton) and the book's theme, once without
book.site (two copies: the bug is real) and once with it (one copy, and the theme's own
per-page script still there).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from book.site import one_copy_of_each_script
from book.site.widget_fonts import FONTS, WHERE, WIDGET_STATE, copy_beside_widget_pages

THEBE = "const THEBE_JS_URL ="
TOGGLE = "var togglebuttonSelector ="
PAGE_NAME = "DOCUMENTATION_OPTIONS.pagename = 'index';"


def build_one_page(folder: Path, extensions: list[str]) -> str:
    """Build a one-page Sphinx project with ``extensions`` and the book's theme; its HTML."""
    folder.mkdir()
    (folder / "conf.py").write_text(
        f"extensions = {extensions!r}\nhtml_theme = 'sphinx_book_theme'\n"
    )
    (folder / "index.rst").write_text("Title\n=====\n\nA page.\n")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(folder), str(folder / "out")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return (folder / "out" / "index.html").read_text(encoding="utf-8")


def test_sphinx_alone_lists_the_inline_scripts_twice(tmp_path):
    html = build_one_page(tmp_path / "plain", ["sphinx_thebe", "sphinx_togglebutton"])
    assert (html.count(THEBE), html.count(TOGGLE)) == (2, 2)


def test_book_site_keeps_one_copy_of_each_script_and_the_themes_own(tmp_path):
    html = build_one_page(tmp_path / "site", ["sphinx_thebe", "sphinx_togglebutton", "book.site"])
    assert (html.count(THEBE), html.count(TOGGLE)) == (1, 1)
    # pydata-sphinx-theme adds this one to the builder's list during the same event.
    assert html.count(PAGE_NAME) == 1


def test_one_copy_of_each_script_changes_the_builders_list_in_place():
    from sphinx.builders.html._assets import _JavaScript

    scripts = [
        _JavaScript("_static/a.js"),
        _JavaScript(None, body="const x = 1"),
        _JavaScript("", body="const x = 1"),
        _JavaScript("_static/a.js"),
        _JavaScript(None, body="const y = 2"),
    ]
    context = {"script_files": scripts}
    one_copy_of_each_script(None, "index", "page.html", context, None)
    assert context["script_files"] is scripts
    assert [str(s.filename) + s.attributes.get("body", "") for s in scripts] == [
        "_static/a.js",
        "Noneconst x = 1",
        "Noneconst y = 2",
    ]


@pytest.fixture
def font_cache(tmp_path) -> Path:
    """A cache holding a stand-in for every font (the real ones are checked by provide())."""
    cache = tmp_path / "fonts"
    cache.mkdir()
    for name in FONTS:
        (cache / name).write_bytes(name.encode())
    return cache


def test_fonts_go_beside_every_widget_page_in_both_folders(tmp_path, font_cache):
    site = tmp_path / "html"
    (site / "chapters").mkdir(parents=True)
    (site / "exercises").mkdir()
    (site / "chapters" / "04.html").write_text(f'<script type="{WIDGET_STATE}">{{}}</script>')
    (site / "exercises" / "04.html").write_text("<p>no widgets</p>")
    filled = copy_beside_widget_pages(site, cache=font_cache)
    assert filled == [site / "chapters" / where for where in WHERE]
    for folder in filled:
        assert sorted(p.name for p in folder.iterdir() if p.is_file()) == sorted(FONTS)
    assert not (site / "exercises" / "@jupyter-widgets").exists()


def test_a_site_without_widgets_gets_no_fonts(tmp_path, font_cache):
    (tmp_path / "index.html").write_text("<p>text</p>")
    assert copy_beside_widget_pages(tmp_path, cache=font_cache) == []


def test_old_addresses_lead_to_pages_of_the_book(tmp_path):
    """Every renamed chapter's old page, and each section that left it, points into the TOC;
    a page the build wrote is never replaced."""
    from notebook_paths import toc_files

    from book.site.redirects import MOVED_SECTIONS, PAGES, write_redirects

    toc = set(toc_files())
    assert all(new in toc and old not in toc for old, new in PAGES.items())
    moved = [t.split("#")[0] for targets in MOVED_SECTIONS.values() for t in targets.values()]
    assert set(moved) <= toc
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "10_beyond_bpe.html").write_text("built")
    written = write_redirects(tmp_path)
    assert len(written) == len(PAGES) - 1
    assert (tmp_path / "chapters" / "10_beyond_bpe.html").read_text() == "built"
    page = (tmp_path / "chapters" / "09_fast_bpe.html").read_text()
    assert 'content="0; url=10_fast_bpe.html"' in page
    assert '"the-cost-model": "../appendix/a_counting_on_a_cluster.html#the-cost-model"' in page
