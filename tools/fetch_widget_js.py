"""Fetch the JavaScript the pages load from a CDN, for the browser tests (nothing is vendored).

A page of the built book loads require.js and ``@jupyter-widgets/html-manager``'s
``embed-amd.js`` (see ``nb_ipywidgets_js`` in ``_config.yml``), and a page with mathematics
MathJax (``mathjax_path``), from a CDN, each pinned to one version. The browser tests run
with no CDN in reach, so they answer those requests from local copies of the very same files,
taken from the npm registry with ``npm pack`` and unpacked under ``.cache/widget-js/npm/`` in
the CDN's own layout: ``https://cdn.jsdelivr.net/npm/PKG@VER/FILE`` -> ``npm/PKG@VER/FILE``.

    python tools/fetch_widget_js.py                 # fetch (does nothing if already there)
    python tools/fetch_widget_js.py --print-config  # the _config.yml lines, with SRI hashes
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "widget-js"
CDN = "https://cdn.jsdelivr.net/npm/"

# html-manager 1.0.15 is the embed bundle of ipywidgets 8.1 (controls 5.0.13+): the one
# that matches the widgets the book saves. myst-nb's default (1.0.6) predates it.
# MathJax 3.2.2 is the last 3.x, the major version Sphinx's default address names.
PACKAGES: dict[str, str] = {
    "requirejs": "2.3.4",
    "@jupyter-widgets/html-manager": "1.0.15",
    "mathjax": "3.2.2",
}

# The files a page loads directly, in load order: require.js first, then the embedder.
ENTRY_FILES: tuple[tuple[str, str], ...] = (
    ("requirejs", "require.js"),
    ("@jupyter-widgets/html-manager", "dist/embed-amd.js"),
)
MATHJAX_FILE = ("mathjax", "es5/tex-mml-chtml.js")  # loads its fonts and parts from its folder


def package_dir(name: str, version: str) -> Path:
    """Where ``name@version`` is unpacked: ``.cache/widget-js/npm/<name>@<version>``."""
    return CACHE / "npm" / f"{name}@{version}"


def cdn_url(name: str, file: str) -> str:
    """The CDN address of one file of a package, e.g. ``.../npm/requirejs@2.3.4/require.js``."""
    return f"{CDN}{name}@{PACKAGES[name]}/{file}"


def local_path(url: str) -> Path | None:
    """The cached copy that answers a CDN ``url``, or ``None`` if it is not a CDN npm file."""
    if not url.startswith(CDN):
        return None
    path = (CACHE / "npm" / url[len(CDN) :].split("?")[0]).resolve()
    # Never serve anything outside the cache, whatever the page asks for.
    return path if path.is_relative_to(CACHE.resolve()) and path.is_file() else None


def sri(path: Path) -> str:
    """Subresource-integrity hash of a file, as browsers check it: ``sha384-<base64>``."""
    return "sha384-" + base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()


def npm_pack(name: str, version: str, workdir: Path) -> Path:
    """Download ``name@version``'s tarball from the npm registry into ``workdir``."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is not installed: install Node.js and npm (e.g. apt-get install npm)")
    result = subprocess.run(
        [npm, "pack", f"{name}@{version}", "--json", "--pack-destination", str(workdir)],
        capture_output=True,
        text=True,
        cwd=workdir,
        check=False,
    )
    if result.returncode != 0:
        sys.exit(f"npm pack {name}@{version} failed:\n{result.stderr}")
    return workdir / json.loads(result.stdout)[0]["filename"]


def unpack(tarball: Path, target: Path) -> None:
    """Unpack an npm tarball (files live under ``package/``) into ``target``."""
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(tarball) as archive:
        archive.extractall(tmp, filter="data")
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(tmp) / "package"), target)


def fetch(force: bool = False) -> list[Path]:
    """Make sure every package is unpacked in the cache; returns the entry files."""
    for name, version in PACKAGES.items():
        target = package_dir(name, version)
        if target.is_dir() and not force:
            continue
        with tempfile.TemporaryDirectory() as workdir:
            unpack(npm_pack(name, version, Path(workdir)), target)
        print(f"fetched {name}@{version} -> {target.relative_to(ROOT)}")
    return [package_dir(name, PACKAGES[name]) / file for name, file in ENTRY_FILES]


def config_snippet() -> str:
    """The ``_config.yml`` lines that make pages load exactly these files (with SRI)."""
    lines = ["sphinx:", "  config:", "    nb_ipywidgets_js:"]
    for name, file in ENTRY_FILES:
        lines += [
            f"      {cdn_url(name, file)}:",
            f"        integrity: {sri(package_dir(name, PACKAGES[name]) / file)}",
            "        crossorigin: anonymous",
        ]
        if name == "@jupyter-widgets/html-manager":
            lines.append(f"        data-jupyter-widgets-cdn: {CDN}")
    name, file = MATHJAX_FILE
    lines += [
        f"    mathjax_path: {cdn_url(name, file)}",
        "    mathjax_options:",
        f"      integrity: {sri(package_dir(name, PACKAGES[name]) / file)}",
        "      crossorigin: anonymous",
    ]
    return "\n".join(lines)


def main() -> None:
    """Command line: fetch, then optionally print the configuration."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--force", action="store_true", help="fetch again even if cached")
    parser.add_argument("--print-config", action="store_true", help="print _config.yml lines")
    args = parser.parse_args()
    fetch(force=args.force)
    if args.print_config:
        print(config_snippet())


if __name__ == "__main__":
    main()
