"""The first cell of every notebook: install the book's package where it is missing (Colab).

Binder and local installs have ``book`` already (``requirements.txt`` installs it), and there
the cell does nothing. Colab has neither the package nor this repository, so the cell installs
the package from the repository named in ``_config.yml`` (the one place the URL lives), at the
branch named there, without what only grading needs (the ``grading`` extra), and with every
package the Python already has pinned to its version (pip's constraints): reading a chapter
upgrades nothing Colab ships, and pip says so instead if a requirement cannot be met.
``BOOK_PACKAGE_SOURCE`` overrides where pip takes it from (a local clone, a fork), which is how
the test runs a chapter through this cell with no network.

    python -m book.setup_cell            # write or refresh the cell in every notebook of _toc.yml
    python -m book.setup_cell --check    # exit 1 if a notebook's first cell is not the current one

The cell is tagged ``remove-cell``, so the rendered book does not show it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
import yaml
from nbformat import NotebookNode

ROOT = Path(__file__).resolve().parent.parent  # the repository (book/ is installed editable)
SETUP_TAG = "book-setup"  # marks the cell as this module's, so refreshing finds and replaces it
TAGS = ["remove-cell", SETUP_TAG]
PACKAGE = "tokenization-from-scratch"  # the distribution name in pyproject.toml

TEMPLATE = """\
# Setup (Colab): install the book's companion package if this Python lacks it,
# upgrading nothing this Python has. Binder and local installs have the
# package already, and then this cell does nothing.
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from importlib.metadata import distributions

if importlib.util.find_spec("book") is None:
    repository = "git+{url}@{branch}"
    source = os.environ.get("BOOK_PACKAGE_SOURCE", repository)
    pins = {{}}  # every installed package stays at its version
    for dist in distributions():
        name = re.sub(r"[-_.]+", "-", dist.metadata["Name"] or "").lower()
        if name and name != "{package}":
            pins.setdefault(name, dist.version)
    lines = [f"{{name}}=={{version}}\\n" for name, version in pins.items()]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as file:
        file.writelines(lines)
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "-c", file.name]
    subprocess.run([*pip, f"{package} @ {{source}}"], check=True)"""


def setup_source(config: Path = ROOT / "_config.yml") -> str:
    """The setup cell's code, with the repository URL and branch of ``config``.

    >>> "git+https://github.com/" in setup_source()
    True
    """
    repository = yaml.safe_load(config.read_text(encoding="utf-8")).get("repository", {})
    if not repository.get("url"):
        raise ValueError(f"{config} has no repository.url: the setup cell needs it")
    url = repository["url"].removesuffix("/")
    return TEMPLATE.format(url=url, branch=repository.get("branch", "main"), package=PACKAGE)


def setup_cell(source: str) -> NotebookNode:
    """A code cell holding ``source``, tagged so the book hides it and this module finds it."""
    cell = nbformat.v4.new_code_cell(source, metadata={"tags": list(TAGS)})
    cell.id = "book-setup"
    return cell


def is_setup_cell(cell: NotebookNode) -> bool:
    """Whether ``cell`` is a setup cell written by this module."""
    return SETUP_TAG in cell.get("metadata", {}).get("tags", [])


def with_setup_cell(nb: NotebookNode, source: str) -> tuple[NotebookNode, bool]:
    """``nb`` with the setup cell first (replacing an old one); and whether anything changed."""
    cells = [cell for cell in nb.cells if not is_setup_cell(cell)]
    current = nb.cells[0] if nb.cells and is_setup_cell(nb.cells[0]) else None
    if current is not None and current.source == source and len(cells) == len(nb.cells) - 1:
        return nb, False
    nb.cells = [setup_cell(source), *cells]
    return nb, True


def toc_notebooks(root: Path = ROOT) -> list[Path]:
    """The notebooks named in ``_toc.yml`` (chapters, solutions, exercises, appendices)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    files = [entry["file"] for part in toc.get("parts", []) for entry in part["chapters"]]
    return [root / f"{name}.ipynb" for name in files if (root / f"{name}.ipynb").exists()]


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, verify) the setup cell of every notebook in the book."""
    parser = argparse.ArgumentParser(prog="python -m book.setup_cell", description=__doc__)
    parser.add_argument("--check", action="store_true", help="report, change nothing")
    args = parser.parse_args(argv)
    source = setup_source()
    stale = []
    for path in toc_notebooks():
        nb = nbformat.read(path, as_version=4)
        nb, changed = with_setup_cell(nb, source)
        if changed:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                nbformat.write(nb, path)
    verb = "lack the current setup cell" if args.check else "got the setup cell"
    print(f"{len(stale)} notebooks {verb}" + "".join(f"\n  {path}" for path in stale))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
