"""tools/notebook_timings.py: each notebook's time from the build's jupyter-cache, as a table."""

import subprocess
import sys

import nbformat
from jupyter_cache import get_cache
from notebook_paths import load_tool

timings = load_tool("notebook_timings")


def write_notebook(path, code: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), path)


def test_each_notebook_gets_its_cached_time_or_says_it_changed(tmp_path):
    write_notebook(tmp_path / "chapters" / "01_fast.ipynb", "1 + 1")
    write_notebook(tmp_path / "chapters" / "02_slow.ipynb", "2 + 2")
    write_notebook(tmp_path / "appendix" / "changed.ipynb", "3 + 3")
    write_notebook(tmp_path / "solutions" / "01_fast.ipynb", "1 + 1")  # not run by the build
    cache = get_cache(str(tmp_path / timings.CACHE))
    for name, seconds in [("chapters/01_fast", 2.5), ("chapters/02_slow", 31.0)]:
        path = str(tmp_path / f"{name}.ipynb")
        cache.cache_notebook_file(path, data={"execution_seconds": seconds}, check_validity=False)
    cache.cache_notebook_file(
        str(tmp_path / "appendix" / "changed.ipynb"),
        data={"execution_seconds": 5.0},
        check_validity=False,
    )
    write_notebook(tmp_path / "appendix" / "changed.ipynb", "3 + 4")  # edited after its run
    lines = timings.table(tmp_path, timings.cached_times(tmp_path)).splitlines()
    rows = [line.split("|")[1:3] for line in lines[2:]]
    assert [[cell.strip() for cell in row] for row in rows] == [
        ["appendix/changed.ipynb", "not run since it changed"],
        ["chapters/01_fast.ipynb", "2.5"],
        ["chapters/02_slow.ipynb", "31.0 (over 30 s)"],
        ["total", "33.5"],
    ]


def test_without_a_cache_it_says_to_build_the_book(tmp_path, capsys):
    assert timings.main([str(tmp_path)]) == 1
    assert "make book" in capsys.readouterr().err


def test_solutions_are_run_and_timed_without_being_changed(tmp_path, capsys):
    write_notebook(tmp_path / "solutions" / "01_fast.ipynb", "import time\ntime.sleep(0.2)")
    before = (tmp_path / "solutions" / "01_fast.ipynb").read_bytes()
    # its own process: a kernel client needs an event loop, and one a test left running blocks it
    done = subprocess.run(
        [
            sys.executable,
            str(timings.ROOT / "tools" / "notebook_timings.py"),
            "--solutions",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split("|")[1:3] for line in done.stdout.splitlines()[2:]]
    assert rows[0][0].strip() == "solutions/01_fast.ipynb"
    assert float(rows[0][1]) >= 0.2
    assert (tmp_path / "solutions" / "01_fast.ipynb").read_bytes() == before
