"""Where the notebooks are, for the tests: one place that knows the repository's layout."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_files() -> list[str]:
    """Every file named in _toc.yml, without suffix, in order: 'chapters/01_text_to_numbers', ..."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return [entry["file"] for part in toc["parts"] for entry in part["chapters"]]


def notebooks(folder: str) -> list[Path]:
    """The notebooks of one folder of the book ('chapters', 'exercises' or 'solutions')."""
    return sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))
