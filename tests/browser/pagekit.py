"""Helpers for browser tests: where things are, what a visit recorded, and the widget scripts.

Kept apart from ``conftest.py`` so test modules can import them by a name of their own
(``tests/`` has a ``conftest.py`` too, and two modules called ``conftest`` would clash).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from notebook_paths import load_tool

ROOT = Path(__file__).resolve().parents[2]
# Debian's Chromium by default; CHROMIUM=/path/to/chrome points elsewhere (e.g. on a CI runner).
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
# Offline and quiet: no GPU, no QUIC, and none of Chromium's own calls home.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The longest a test waits for the page to reach a state (a widget rendered, a step shown): a
# bound for a machine under heavy load, never a measure of speed (conftest.py says why).
REACH_MS = 60_000
# The scripts that render saved widgets (nb_ipywidgets_js): require.js and the embedder.
WIDGET_SCRIPT = re.compile(r"/require(\.min)?\.js$|/@jupyter-widgets/")
SCRIPT_TAG = re.compile(r"<script\b[^>]*>", re.IGNORECASE)
ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')


def load_fetcher() -> ModuleType:
    """``tools/fetch_widget_js.py`` as a module."""
    return load_tool("fetch_widget_js")


@dataclass
class Visit:
    """An open page plus what happened while it ran."""

    page: Any
    errors: list[str] = field(default_factory=list)  # uncaught errors and console errors
    served: list[str] = field(default_factory=list)  # CDN URLs answered from the local cache
    refused: list[str] = field(default_factory=list)  # outside URLs we could not answer

    def unexpected_errors(self) -> list[str]:
        """Every error the page met: uncaught exceptions, console errors, failed loads."""
        return list(self.errors)

    def record_console(self, message: Any) -> None:
        """Keep a console message of type error, with the address it concerns."""
        if message.type == "error":
            where = message.location.get("url", "")
            self.errors.append(f"console: {message.text}" + (f" ({where})" if where else ""))


def sri_digest(integrity: str, path: Path) -> str:
    """The SRI value of ``path`` under the algorithm ``integrity`` names (``sha384-...``)."""
    algorithm = integrity.split("-", 1)[0]
    digest = hashlib.new(algorithm, path.read_bytes()).digest()
    return f"{algorithm}-{base64.b64encode(digest).decode()}"


def widget_script_problems(page_html: str, fetcher: ModuleType) -> list[str]:
    """Why the widget scripts a page names cannot be served locally (empty if they can)."""
    problems = []
    for tag in SCRIPT_TAG.findall(page_html):
        attributes = dict(ATTRIBUTE.findall(tag))
        src, integrity = attributes.get("src", ""), attributes.get("integrity")
        if not WIDGET_SCRIPT.search(src):
            continue
        local = fetcher.local_path(src)
        if local is None:
            problems.append(f"{src} is not an npm file in .cache/widget-js")
        elif integrity and sri_digest(integrity, local) != integrity:
            # The browser would refuse the script, and the page's widgets would not render.
            problems.append(f"{src}: the npm file does not match integrity={integrity}")
    if problems:
        problems.append(
            "make pages load npm files with matching hashes: put the lines "
            "`python tools/fetch_widget_js.py --print-config` prints in _config.yml"
        )
    return problems
