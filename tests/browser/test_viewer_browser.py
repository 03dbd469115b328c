"""The token viewer in a rendered page, with no kernel: static views and the encoding menu.

A one-page book is built in a temporary directory (with the stepper fixture book's
configuration, which pins the widget JavaScript). Its page shows a text that contains a
``<script>`` element and a multi-token emoji as static views, and the viewer widget.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from notebook_paths import build_book

from book.encodings import get_encoding
from book.show.viewer import DEFAULT_TOKENIZERS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
TEXT = "<script>window.tfsInjected = 1</script> Hi 🌍"
WIDGET_TEXT = "Tokenization costs 1,234,567 tokens 🌍"
# A chip's text without the id in small print.
CHIP_TEXT = """chips => chips.map(chip => {
  const copy = chip.cloneNode(true);
  copy.querySelectorAll('.tfs-id').forEach(id => id.remove());
  return copy.textContent;
})"""
# Emoji (one with a skin tone, one ZWJ family) and scripts that need fonts of their own.
SCRIPTS_TEXT = "Hi 👋🏽 👨‍👩‍👧 नमस्ते สวัสดี 你好 こんにちは مرحبا Привет"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "_build" / "screenshots"
CELLS = [
    "from book.show.viewer import compare, token_viewer\nfrom book.tokenizers import CharTokenizer",
    f"compare({TEXT!r}, ['cl100k_base'])",
    f"compare({SCRIPTS_TEXT!r}, {{'characters': CharTokenizer.train({SCRIPTS_TEXT!r})}})",
    f"token_viewer({WIDGET_TEXT!r})",
]
# Draws an emoji on a canvas and counts its coloured pixels: a colour emoji font gives many,
# a missing glyph (a hollow box or nothing) gives none.
COLOURED_EMOJI_PIXELS = """() => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 48;
  const context = canvas.getContext('2d');
  context.font = '36px sans-serif';
  context.fillText('🌍', 4, 40);
  const data = context.getImageData(0, 0, 48, 48).data;
  let coloured = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
    if (a > 0 && (Math.abs(r - g) > 40 || Math.abs(g - b) > 40)) coloured++;
  }
  return coloured;
}"""


def build_viewer_book(scratch: Path) -> Path:
    """Build a one-page book showing the viewer; return the site folder."""
    source = scratch / "viewer_book"
    source.mkdir()
    shutil.copy(HERE / "fixture_book" / "_config.yml", source / "_config.yml")
    (source / "_toc.yml").write_text("format: jb-book\nroot: viewer\n")
    cells = [nbformat.v4.new_markdown_cell("# Token viewer")]
    cells += [nbformat.v4.new_code_cell(code) for code in CELLS]
    notebook = nbformat.v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
    )
    nbformat.write(notebook, source / "viewer.ipynb")
    result = build_book(source)
    assert result.returncode == 0, f"viewer book failed to build:\n{result.stdout[-4000:]}"
    return source / "_build" / "html"


@pytest.fixture(scope="module")
def viewer_url(tmp_path_factory, serve) -> str:
    """The page's URL on the loopback server; the book is built once for this module."""
    return serve(build_viewer_book(tmp_path_factory.mktemp("viewer"))) + "viewer.html"


@pytest.fixture
def viewer_page(viewer_url, visit):
    """The page, opened in the browser, once the widget has rendered."""
    from playwright.sync_api import expect

    opened = visit(viewer_url)
    expect(opened.page.locator("select")).to_be_attached()
    return opened


def test_a_script_in_the_text_is_shown_not_run(viewer_page):
    page = viewer_page.page
    assert page.evaluate("typeof window.tfsInjected") == "undefined"
    cl100k = get_encoding("cl100k_base")
    static = page.locator(".tfs-tokview").first
    chips = static.locator(".tfs-chip")
    assert chips.count() == len(cl100k.encode(TEXT))
    shown = chips.evaluate_all(CHIP_TEXT)
    # " 🌍" is three tokens that are not whole characters: hex, the space as 20.
    assert shown[-3:] == ["<20 f0 9f>", "<8c>", "<8d>"]
    assert "".join(shown[:-3]).replace("·", " ") == TEXT.removesuffix(" 🌍")
    assert not viewer_page.unexpected_errors()


def test_the_encoding_menu_switches_views_without_a_kernel(viewer_page):
    from playwright.sync_api import expect

    page = viewer_page.page
    widget = page.locator(".widget-vbox").last
    menu = widget.locator("select")
    assert menu.locator("option").all_inner_texts() == list(DEFAULT_TOKENIZERS)
    for name in DEFAULT_TOKENIZERS:
        menu.select_option(name)
        n_tokens = len(get_encoding(name).encode(WIDGET_TEXT))
        visible = widget.locator(".tfs-tokview-head:visible")
        expect(visible).to_have_count(1)
        expect(visible).to_contain_text(f"{name} · {n_tokens} tokens")
    assert not viewer_page.unexpected_errors()
    assert viewer_page.served, "no widget JavaScript was served from the local copies"


def test_emoji_and_scripts_render_as_glyphs_screenshot(viewer_page):
    page = viewer_page.page
    assert page.evaluate(COLOURED_EMOJI_PIXELS) > 100, "emoji render without a colour font"
    view = page.locator(".tfs-tokview").nth(1)
    chips = view.locator(".tfs-chip").evaluate_all(CHIP_TEXT)
    assert "👋" in chips and "👨" in chips and "न" in chips  # one chip per code point
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    view.screenshot(path=SCREENSHOTS / "viewer-emoji-and-scripts.png")
    assert (SCREENSHOTS / "viewer-emoji-and-scripts.png").stat().st_size > 0
