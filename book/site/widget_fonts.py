"""The fonts the widget style sheet asks for, served where it looks for them.

The script that renders saved widgets (``@jupyter-widgets/html-manager`` 1.0.15's
``embed-amd.js``, named in ``_config.yml``) carries Font Awesome 5.15.4's style sheet twice,
in two of the AMD modules it defines by name. Webpack takes each module's public path, where
its font addresses start, from the module's ``module.uri``, which require.js resolves against
its base URL, the page's folder, not against the CDN the script came from:

- ``@jupyter-widgets/html-manager`` asks for ``<page's folder>/@jupyter-widgets/<hash>.<ext>``;
- ``@jupyter-widgets/html-manager/dist/libembed-amd`` asks for
  ``<page's folder>/@jupyter-widgets/html-manager/dist/<hash>.<ext>``.

Without the files a page with widgets logs a 404 for each. The files are
Font Awesome Free 5.15.4's webfonts, which the PyPI distribution ``fontawesome-free==5.15.4``
ships byte for byte: they are taken from its wheel (``pip download``, kept in
``.cache/downloads``) and checked against the SHA-256 of html-manager's own copies.

    python -m book.site.widget_fonts    # fetch and check them (the book's build does it too)
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository (book/ is installed editable)
DOWNLOADS = ROOT / ".cache" / "downloads"
CACHE = ROOT / ".cache" / "widget-fonts"
REQUIREMENT = "fontawesome-free==5.15.4"
MEMBER = "fontawesome-free/static/fontawesome_free/webfonts/{}"
# Relative to a page's folder: the folders of the two modules' module.uri (see above).
WHERE = (Path("@jupyter-widgets"), Path("@jupyter-widgets") / "html-manager" / "dist")
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

# html-manager's file name -> (Font Awesome's file name, SHA-256 of html-manager's copy).
FONTS = {
    "1551f4f60c37af51121f.woff2": (
        "fa-solid-900.woff2",
        "9834b82ad26e2a37583d22676a12dd2eb0fe7c80356a2114d0db1aa8b3899537",
    ),
    "eeccf4f66002c6f2ba24.woff": (
        "fa-solid-900.woff",
        "3f6d3488cf65374f6f676c315340b0ac2be832bd55240c809448e36ef9b96326",
    ),
    "be9ee23c0c6390141475.ttf": (
        "fa-solid-900.ttf",
        "af6397503fcefbd613976c21ad5c1e37298c18bbe07d096db03ccd3af6e05ba8",
    ),
    "9bbb245e67a133f6e486.eot": (
        "fa-solid-900.eot",
        "373c04fd2418f5c77eea49d514731058f1907a94ff3b4e5d7c3e5767e8b53d8b",
    ),
    "7a8b4f130182d19a2d7c.svg": (
        "fa-solid-900.svg",
        "9674eb1bd5504717903837093a67668ea88f2ed006d91367d0d4b7aa1f9211fc",
    ),
    "7a3337626410ca2f4071.woff2": (
        "fa-regular-400.woff2",
        "e42a88444448ac3d60549cc7c1ff2c8a9cac721034c073d80a14a44e79730cca",
    ),
    "bb58e57c48a3e911f15f.woff": (
        "fa-regular-400.woff",
        "cb9e9e693192413cde2b1f21c1dc1d44b6fe7b27cc2b458e8b359d18f9ff8f4e",
    ),
    "491974d108fe4002b2aa.ttf": (
        "fa-regular-400.ttf",
        "e8711bbb871afd8e9dea60e16d30f00c7e4837bbc9807065017475b849fa2313",
    ),
    "77206a6bb316fa0aded5.eot": (
        "fa-regular-400.eot",
        "79d088064beb3826054fb88165416235897a856ca952fca1498b1c59b16aaa48",
    ),
    "4689f52cc96215721344.svg": (
        "fa-regular-400.svg",
        "be0a084962d8066884f7fe9bd27ec16e51f5a93b72a502c92c5a24dc87eb2ebc",
    ),
    "d878b0a6a1144760244f.woff2": (
        "fa-brands-400.woff2",
        "8ea8791754915a898a3100e63e32978a6d1763be6df8e73a39d3a90d691cdeef",
    ),
    "2285773e6b4b172f07d9.woff": (
        "fa-brands-400.woff",
        "f9217f66874b0c01cd8c10b6a295dbc4f609acb6f5adc41c37da46641b57eb02",
    ),
    "527940b104eb2ea366c8.ttf": (
        "fa-brands-400.ttf",
        "cda59d6efffa685830fd95b55f64ae9cb51279cd34b2410b69f84c7ec30157d9",
    ),
    "23f19bb08961f37aaf69.eot": (
        "fa-brands-400.eot",
        "e4299464e7b012968eed63ac2db1c9509f56bca409ef9f71f2926a8c3c80b2a9",
    ),
    "2f517e09eb2ca6650ff5.svg": (
        "fa-brands-400.svg",
        "a3b9817780214caf01e8aec20bcdc2305a1ff34a15fae81ecd0923df9cd5cd0a",
    ),
}


class WidgetFontError(RuntimeError):
    """The widget fonts could not be fetched or are not the files the widgets expect."""


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``.

    >>> sha256(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


def wheel(downloads: Path = DOWNLOADS) -> Path:
    """``fontawesome-free``'s wheel, downloaded into ``downloads`` unless it is there already."""
    found = sorted(downloads.glob("fontawesome_free-5.15.4-*.whl"))
    if found:
        return found[0]
    downloads.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", REQUIREMENT]
    result = subprocess.run([*command, "-d", str(downloads)], capture_output=True, text=True)
    found = sorted(downloads.glob("fontawesome_free-5.15.4-*.whl"))
    if result.returncode != 0 or not found:
        raise WidgetFontError(
            f"could not download {REQUIREMENT} from PyPI for the widget fonts:\n{result.stderr}"
            "Check the connection to PyPI, or put its wheel in " + str(downloads)
        )
    return found[0]


def provide(cache: Path = CACHE, downloads: Path = DOWNLOADS) -> Path:
    """The folder holding every widget font under html-manager's name, checked; fills it once."""
    if all((cache / name).is_file() for name in FONTS):
        return cache
    with zipfile.ZipFile(wheel(downloads)) as archive:
        files = {name: archive.read(MEMBER.format(source)) for name, (source, _) in FONTS.items()}
    for name, data in files.items():
        source, expected = FONTS[name]
        if sha256(data) != expected:
            raise WidgetFontError(
                f"{REQUIREMENT}'s {source} is not the file html-manager names {name} "
                f"(SHA-256 {sha256(data)}, expected {expected}); "
                "delete .cache/downloads/fontawesome_free-* and build again"
            )
    cache.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=cache.parent))  # all files appear at once, or none
    for name, data in files.items():
        (staging / name).write_bytes(data)
    if cache.exists():
        shutil.rmtree(cache)
    os.replace(staging, cache)
    return cache


def widget_page_folders(site: Path) -> set[Path]:
    """The folders of ``site`` that hold an HTML page with saved widgets."""
    return {
        page.parent
        for page in site.rglob("*.html")
        if WIDGET_STATE in page.read_text(encoding="utf-8", errors="replace")
    }


def copy_beside_widget_pages(site: Path, cache: Path = CACHE) -> list[Path]:
    """Copy the fonts where each widget page's style sheets look for them; the folders filled."""
    folders = sorted(widget_page_folders(site))
    if not folders:
        return []
    fonts = provide(cache)
    targets = [folder / where for folder in folders for where in WHERE]
    for target in targets:
        target.mkdir(parents=True, exist_ok=True)
        for name in FONTS:
            shutil.copyfile(fonts / name, target / name)
    return targets


def main() -> int:
    """Command line: fetch and check the fonts, say where they are."""
    try:
        cache = provide()
    except WidgetFontError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"widget fonts ({len(FONTS)} files of {REQUIREMENT}) verified in {cache}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
