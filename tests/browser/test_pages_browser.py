"""Every chapter, solutions and exercise page read in Chromium at a desktop and a phone width.

For each page of the built book and each width, the page is opened twice:

- with the widget scripts served (as a reader online sees it): no code or output block is cut
  off (needs sideways scrolling, or is clipped), nothing overflows the page, figure text stays
  legible, and the console shows no error; a full-page screenshot is saved;
- with the widget scripts refused (a reader offline, or with scripts blocked): every widget's
  place shows its static fallback.

At the desktop width code and printed lines must fit the column unwrapped (the book's style
sheet wraps long lines, which saves a narrow window, but a line that needs it at 1280 px is
not formatted to the column). A table that is wide on purpose goes in a scroll box that says
so (``book.show.scroll.scroll_box``, whose note shows below 60em); its sideways scrolling is
not a cut-off.

The problems found on each page are also written next to its screenshot
(``_build/screenshots/pages/<width>px/<page>.json``), so a run can be compared with another.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from notebook_paths import toc_files
from pagekit import ROOT

from book.show.plots import FIGURE_DPI, SMALLEST_TEXT_PT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDTHS = {"desktop": 1280, "phone": 390}
PAGES = [
    page for page in toc_files() if page.split("/")[0] in {"chapters", "solutions", "exercises"}
]
SCREENSHOTS = ROOT / "_build" / "screenshots" / "pages"
# Smallest figure text a reader can still read, in CSS pixels (phone body text: ~16 px).
LEGIBLE_PX = 9.0
JPEG_MAX_PX = 65_500  # libjpeg's JPEG_MAX_DIMENSION
WIDGET_VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'

# Opens every collapsed block (dropdowns, toggles), as a reader who reads everything would.
OPEN_EVERYTHING = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
}"""

# Blocks whose content is hidden behind a scroll bar or clipped, and blocks that stick out of
# the article's column. With ``unwrapped``, code and output lines are measured without the
# style sheet's wrapping. A declared scroll box (.tfs-scroll with its note) is exempt.
CUT_OFFS = """(unwrapped) => {
  if (unwrapped) {
    const style = document.createElement('style');
    style.id = 'tfs-test-unwrap';
    style.textContent = 'pre{white-space:pre !important;overflow-wrap:normal !important}';
    document.head.appendChild(style);
  }
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const right = article.getBoundingClientRect().right;
  const declared = e => {
    const box = e.closest('.tfs-scroll');
    const note = box && box.querySelector('.tfs-scroll-note');
    return !!(note && note.offsetHeight > 0);
  };
  const describe = e => {
    const cell = e.closest('.cell');
    const where = cell ? 'cell ' + [...document.querySelectorAll('.cell')].indexOf(cell) : 'prose';
    const text = (e.innerText || e.getAttribute('alt') || e.tagName).trim().split('\\n')
      .reduce((a, b) => (b.length > a.length ? b : a), '');
    return `${where}, ${e.tagName.toLowerCase()}.${[...e.classList].join('.')}: `
      + `${e.scrollWidth} px of content in ${e.clientWidth} px: ${text.slice(0, 90)}`;
  };
  const found = [];
  for (const e of article.querySelectorAll('*')) {
    if (e.clientWidth === 0 || e.offsetParent === null || declared(e)) continue;
    const overflow = getComputedStyle(e).overflowX;
    const hides = overflow !== 'visible';
    if (hides && e.scrollWidth > e.clientWidth + 1) found.push(describe(e));
    else if (!hides && e.matches('pre, table, img, .output, .cell_output')
             && e.getBoundingClientRect().right > right + 1) found.push(describe(e));
  }
  document.getElementById('tfs-test-unwrap')?.remove();
  return found;
}"""

PAGE_OVERFLOW = """() => {
  const width = document.documentElement.scrollWidth;
  return width > innerWidth ? [`the page is ${width} px wide in a ${innerWidth} px window`] : [];
}"""

# Each figure's smallest text as the reader sees it: the book style's smallest size, scaled by
# how much the page shrinks the picture.
FIGURE_SCALES = """() => [...document.querySelectorAll('article .cell_output img')]
  .filter(img => img.naturalWidth > 0 && img.offsetParent !== null)
  .map(img => ({src: img.getAttribute('src'), scale: img.clientWidth / img.naturalWidth}))"""

# Each widget's place with the scripts refused: its cell output and what of it shows.
FALLBACKS = """(selector) => [...document.querySelectorAll(selector)].map(script => {
  const output = script.closest('.cell_output') || script.parentElement;
  const cell = output.closest('.cell');
  const copy = [...output.querySelectorAll('.tfs-static')].find(e => e.offsetHeight > 0);
  return {cell: [...document.querySelectorAll('.cell')].indexOf(cell),
          height: copy ? copy.offsetHeight : 0, text: copy ? copy.innerText.slice(0, 80) : ''};
})"""


def illegible_figures(page: Any) -> list[str]:
    """Figures whose smallest text is under LEGIBLE_PX CSS pixels on this page."""
    natural_px = SMALLEST_TEXT_PT * FIGURE_DPI / 72
    return [
        f"figure {figure['src']}: text {natural_px * figure['scale']:.1f} px high "
        f"(shown at {figure['scale']:.0%} of its size)"
        for figure in page.evaluate(FIGURE_SCALES)
        if natural_px * figure["scale"] < LEGIBLE_PX
    ]


def slug(page: str) -> str:
    """A file name for a page: 'chapters/01_text_to_numbers' -> 'chapters-01_text_to_numbers'."""
    return page.replace("/", "-")


def record(page: str, width: int, problems: dict[str, list[str]]) -> Path:
    """Write the page's problems next to its screenshot; return the screenshot's path."""
    folder = SCREENSHOTS / f"{width}px"
    folder.mkdir(parents=True, exist_ok=True)
    report = folder / f"{slug(page)}.json"
    previous = json.loads(report.read_text()) if report.exists() else {}
    report.write_text(json.dumps({**previous, **problems}, indent=1, ensure_ascii=False))
    return folder / f"{slug(page)}.jpg"


def summary(problems: dict[str, list[str]]) -> str:
    """The problems, one per line under its kind, for an assertion message."""
    lines = []
    for kind, found in problems.items():
        lines += [f"{kind} ({len(found)}):", *(f"  {item}" for item in found)]
    return "\n".join(lines)


@pytest.fixture(scope="session")
def book_site(built_book, serve) -> str:
    """The base URL of the built book (``make book``'s ``_build/html``) on a loopback server."""
    if built_book.returncode != 0:
        pytest.fail(
            f"the book did not build:\n{(built_book.stdout + built_book.stderr)[-4000:]}",
            pytrace=False,
        )
    return serve(ROOT / "_build" / "html")


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("page", PAGES)
def test_page_reads_without_cut_offs_or_console_errors(page, width, book_site, visit):
    opened = visit(f"{book_site}{page}.html", width=width)
    opened.page.wait_for_load_state("networkidle")
    opened.page.evaluate(OPEN_EVERYTHING)
    n_widgets = opened.page.locator(WIDGET_VIEW).count()
    if n_widgets:  # the widgets render after the page loads; measure them too
        opened.page.wait_for_function(
            f"document.querySelectorAll('.widget-subarea').length >= {n_widgets}"
        )
        opened.page.wait_for_load_state("networkidle")
    opened.page.evaluate("document.fonts.ready.then(() => true)")  # measure in the final fonts
    problems = {
        "cut off": opened.page.evaluate(CUT_OFFS, width == WIDTHS["desktop"]),
        "page overflow": opened.page.evaluate(PAGE_OVERFLOW),
        "illegible figure text": illegible_figures(opened.page),
        "console errors": opened.unexpected_errors(),
    }
    screenshot = record(page, width, problems)
    # A JPEG is at most 65,500 px tall; a longer page (a long chapter at 390 px) is saved that far.
    height = min(opened.page.evaluate("document.documentElement.scrollHeight"), JPEG_MAX_PX)
    clip = {"x": 0, "y": 0, "width": width, "height": height}
    opened.page.screenshot(path=screenshot, full_page=True, clip=clip, type="jpeg", quality=60)
    assert screenshot.stat().st_size > 0
    found = {kind: items for kind, items in problems.items() if items}
    assert not found, f"{page}.html at {width} px (screenshot {screenshot}):\n{summary(found)}"


@pytest.mark.parametrize("width", WIDTHS.values(), ids=WIDTHS.keys())
@pytest.mark.parametrize("page", PAGES)
def test_every_widget_shows_a_fallback_without_its_scripts(page, width, book_site, visit):
    html = (ROOT / "_build" / "html" / f"{page}.html").read_text(encoding="utf-8")
    if "application/vnd.jupyter.widget-view+json" not in html:
        record(page, width, {"widgets without a fallback": []})
        return  # no widget on this page: nothing to fall back from
    opened = visit(f"{book_site}{page}.html", serve_widgets=False, width=width)
    opened.page.wait_for_load_state("networkidle")
    assert opened.refused, "the widget scripts should have been requested and refused"
    places = opened.page.evaluate(FALLBACKS, WIDGET_VIEW)
    missing = [
        f"cell {place['cell']}: the widget's place shows nothing"
        for place in places
        if place["height"] < 20 or not place["text"].strip()
    ]
    record(page, width, {"widgets without a fallback": missing})
    assert places, "the page names widgets, but none was found in it"
    assert not missing, f"{page}.html at {width} px, scripts refused:\n" + "\n".join(missing)
