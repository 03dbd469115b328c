"""How long each notebook of the book took to run in the last build, from its execution cache.

    python tools/notebook_timings.py [FOLDER]              # FOLDER defaults to the repository
    python tools/notebook_timings.py --solutions [FOLDER]  # run and time each solution

`make book` runs the chapters and appendices through jupyter-cache (`_build/.jupyter_cache`),
which records each run's time. This prints them as a Markdown table, one row per notebook the
build runs (chapters/, appendix/, and any other notebook the cache holds), in seconds, marking
each over the book's limit of 30 s. A notebook changed since the last build has no time yet
(its cached run was of another version): its row says so. Solutions are not run by the build
(they are rendered as stored): ``--solutions`` runs each one in a fresh kernel, as a learner
would, and times it from the kernel's start to its last cell (their files are not changed).
Times are only comparable on a quiet machine: run nothing else meanwhile.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from jupyter_cache import get_cache
from jupyter_cache.cache.main import JupyterCacheBase
from tabulate import tabulate

from book.notebooks import execute, read_notebook

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path("_build") / ".jupyter_cache"
EXECUTED = ("chapters", "appendix")  # the folders the build runs (_config.yml excludes the rest)
LIMIT_SECONDS = 30.0  # each notebook runs in under 30 s (README, "Time to run each notebook")


def notebooks(folder: Path, cache: JupyterCacheBase) -> list[Path]:
    """The notebooks to report: those in the executed folders and those the cache has run."""
    found = {path for name in EXECUTED for path in (folder / name).glob("*.ipynb")}
    found |= {Path(record.uri) for record in cache.list_cache_records()}
    return sorted(path for path in found if path.is_file() and folder in path.parents)


def seconds(cache: JupyterCacheBase, path: Path) -> float | None:
    """The time of the cached run of the notebook as it is now, or None if there is none."""
    try:
        record = cache.match_cache_file(str(path))
    except KeyError:  # not run since it last changed
        return None
    return record.data.get("execution_seconds")


def cached_times(folder: Path) -> dict[Path, float | None]:
    """Each notebook the build runs, with the time of its cached run (None: not run since)."""
    cache = get_cache(str(folder / CACHE))
    return {path: seconds(cache, path) for path in notebooks(folder, cache)}


def solution_times(folder: Path) -> dict[Path, float | None]:
    """Each solution, with the time of a run of it now."""
    return {path: run_seconds(path) for path in sorted((folder / "solutions").glob("*.ipynb"))}


def run_seconds(path: Path) -> float:
    """The wall time of one run of the notebook at path in a fresh kernel (nothing is saved)."""
    nb = read_notebook(path)
    start = time.perf_counter()
    problems = execute(nb, timeout=600, cwd=path.parent)
    if problems:
        raise SystemExit(f"error: {path} did not run: {problems}")
    return time.perf_counter() - start


def table(folder: Path, timed: dict[Path, float | None]) -> str:
    """The Markdown table of each notebook's time, with the total of the timed ones."""
    rows, total = [], 0.0
    for path, took in timed.items():
        if took is None:
            rows.append((path.relative_to(folder).as_posix(), "not run since it changed"))
            continue
        total += took
        mark = f" (over {LIMIT_SECONDS:.0f} s)" if took >= LIMIT_SECONDS else ""
        rows.append((path.relative_to(folder).as_posix(), f"{took:.1f}{mark}"))
    rows.append(("total", f"{total:.1f}"))
    return tabulate(rows, headers=("notebook", "seconds"), tablefmt="github", disable_numparse=True)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    solutions = "--solutions" in args
    args = [arg for arg in args if arg != "--solutions"]
    if len(args) > 1:
        print("usage: python tools/notebook_timings.py [--solutions] [FOLDER]", file=sys.stderr)
        return 2
    folder = Path(args[0]).resolve() if args else ROOT
    if solutions:
        print(table(folder, solution_times(folder)))
        return 0
    if not (folder / CACHE).is_dir():
        print(
            f"error: {folder / CACHE} does not exist: build the book first (make book)",
            file=sys.stderr,
        )
        return 1
    print(table(folder, cached_times(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
