"""Where the notebooks are and how a book is built, for the tests: one place for the layout."""

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_files() -> list[str]:
    """Every file named in _toc.yml, without suffix, in order: 'chapters/01_text_to_numbers', ..."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [entry["file"] for part in toc["parts"] for entry in part["chapters"]]


def notebooks(folder: str) -> list[Path]:
    """The notebooks of one folder of the book ('chapters', 'exercises' or 'solutions')."""
    return sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))


def build_book(folder: Path) -> subprocess.CompletedProcess:
    """Build ``folder`` as `make book` does: strictly, through tools/build_book.py and its lock."""
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "build_book.py"), str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )


def load_tool(name: str) -> ModuleType:
    """``tools/<name>.py`` as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
