"""Fixtures for browser tests: headless Chromium, a loopback web server, and the widget JS.

Pages of the built book load their widget JavaScript from a CDN, which this machine cannot
reach. Every page opened with the ``visit`` fixture answers those requests from the local
copies that ``tools/fetch_widget_js.py`` unpacks from npm, and refuses every other outside
request (recording it).

These tests fail (they never skip) when a piece is missing: ``make test`` installs all of them.

No test depends on how fast the machine is. A test waits for what the page reaches (an
attribute, a count of widgets), each wait bounded by :data:`pagekit.REACH_MS`, which is far
above what a loaded machine needs; the page's own timers (the stepper's play) run on a clock
the test drives (``visit(url, clock=True)``, then ``page.clock.pause_at`` and ``run_for``).
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from notebook_paths import build_book
from pagekit import CHROMIUM, CHROMIUM_ARGS, REACH_MS, WIDGET_SCRIPT, Visit, load_fetcher

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def fixture_book_site(tmp_path_factory) -> Path:
    """``fixture_book/`` built once per session (executing its notebooks); its html folder."""
    source = tmp_path_factory.mktemp("fixture") / "fixture_book"
    shutil.copytree(HERE / "fixture_book", source)
    shutil.copy(HERE / "tiny_bpe.py", source)  # the notebooks import it from their own folder
    result = build_book(source)  # as strict as `make book`: a warning fails the build
    assert result.returncode == 0, f"fixture book failed to build:\n{result.stdout[-4000:]}"
    return source / "_build" / "html"


@pytest.fixture(scope="session")
def widget_js() -> ModuleType:
    """The fetcher module, once its npm packages are unpacked in ``.cache/widget-js``."""
    fetcher = load_fetcher()
    try:
        fetcher.fetch()
    except SystemExit as exit_:  # the fetcher exits with a message when npm fails
        pytest.fail(
            f"cannot fetch the widget JavaScript: {exit_}\n"
            "run: python tools/fetch_widget_js.py (needs npm)",
            pytrace=False,
        )
    return fetcher


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Debian's headless Chromium driven by Playwright, closed at the end of the session."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(
            "Playwright is not installed: pip install playwright "
            "(`make test` installs it; Playwright's own browser download is not used)",
            pytrace=False,
        )
    if not CHROMIUM.exists():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: run `sh tools/ensure_chromium.sh` "
            "(it installs Debian's chromium package)",
            pytrace=False,
        )
    from playwright.sync_api import expect

    expect.set_options(timeout=REACH_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without logging every request to stderr."""

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: pytest shows failures, not access logs."""


@pytest.fixture(scope="session")
def serve() -> Iterator[Callable[[Path], str]]:
    """``serve(directory) -> base URL``: a web server on 127.0.0.1, stopped after the session."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(directory: Path) -> str:
        handler = functools.partial(QuietHandler, directory=str(directory))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # any free port
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def visit(chromium, widget_js) -> Iterator[Callable[..., Visit]]:
    """``visit(url) -> Visit``: open a page with CDN requests answered locally.

    ``visit(url, serve_widgets=False)`` refuses the widget scripts instead, as a reader's browser
    that blocks them (or is offline) would. ``width`` is the window's width in CSS pixels.
    ``clock=True`` installs Playwright's fake clock before the page loads: time flows as usual
    until the test pauses it (``page.clock.pause_at``), then the page's timers fire only when
    the test runs the clock (``page.clock.run_for``).
    """
    contexts = []
    fetcher = widget_js

    def open_page(
        url: str, serve_widgets: bool = True, width: int = 1100, clock: bool = False
    ) -> Visit:
        context = chromium.new_context(viewport={"width": width, "height": 900})
        context.set_default_timeout(REACH_MS)
        contexts.append(context)
        visit = Visit(context.new_page())
        if clock:
            visit.page.clock.install()
        visit.page.on("pageerror", lambda error: visit.errors.append(f"uncaught: {error}"))
        visit.page.on("console", visit.record_console)

        def route(route: Any) -> None:
            request_url = route.request.url
            if request_url.startswith("http://127.0.0.1:"):
                route.continue_()
            elif not serve_widgets and WIDGET_SCRIPT.search(request_url):
                visit.refused.append(request_url)
                route.abort()
            elif (local := fetcher.local_path(request_url)) is not None:
                visit.served.append(request_url)
                # The scripts are loaded with crossorigin="anonymous": CORS must allow them.
                route.fulfill(path=str(local), headers={"Access-Control-Allow-Origin": "*"})
            else:
                visit.refused.append(request_url)
                route.abort()

        context.route("**/*", route)
        visit.page.goto(url)
        return visit

    yield open_page
    for context in contexts:
        context.close()
