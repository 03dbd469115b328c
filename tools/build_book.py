"""Build a Jupyter Book folder strictly, one build of a folder at a time.

    python tools/build_book.py [FOLDER]     # FOLDER defaults to the repository

The one place the book's build command lives: `make book`, the test suite's built book and the
browser tests' small fixture books all build through here. The flags are the strict ones (a
Sphinx warning fails the build; `--keep-going` reports all of them at once).

Two builds of the same folder must never overlap: jupyter-cache checks that a folder of its
execution cache is missing and then creates it, so a second build in between fails with
`FileExistsError`. An exclusive lock on `FOLDER/_build/.build.lock` makes a second build wait for
the first, whatever started them (two test workers, `make book` beside `make test`). The lock is
the operating system's (`flock`): it is released when the process ends, however it ends.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["-W", "-n", "--keep-going"]


def jupyter_book() -> str:
    """The `jupyter-book` command of the Python running this script (the project's venv)."""
    return str(Path(sys.executable).parent / "jupyter-book")


def build(folder: Path) -> int:
    """Build `folder` with the strict flags while holding its build lock; the exit status."""
    lock_path = folder / "_build" / ".build.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # waits while another build of this folder runs
        return subprocess.run([jupyter_book(), "build", str(folder), *FLAGS]).returncode


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1:
        print("usage: python tools/build_book.py [FOLDER]", file=sys.stderr)
        return 2
    folder = Path(args[0]).resolve() if args else ROOT
    if not (folder / "_config.yml").is_file():
        print(
            f"error: {folder} has no _config.yml; give the folder of a Jupyter Book",
            file=sys.stderr,
        )
        return 2
    return build(folder)


if __name__ == "__main__":
    sys.exit(main())
