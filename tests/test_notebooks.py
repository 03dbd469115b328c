"""Chapters: stored without outputs, listed in the table of contents, run in a fresh kernel."""

import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_paths import ROOT, notebooks, toc_files

CHAPTERS = notebooks("chapters")


def test_there_are_chapters():
    assert CHAPTERS, "no chapters/NN_slug.ipynb found"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and (c.outputs or c.execution_count is not None)
    ]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; chapters are stored without them"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_has_solutions_and_exercises_in_the_toc(path):
    listed = set(toc_files())
    for folder in ("chapters", "exercises", "solutions"):
        assert (ROOT / folder / path.name).exists(), f"{folder}/{path.name} is missing"
        assert f"{folder}/{path.stem}" in listed, f"{folder}/{path.stem} is not in _toc.yml"


@pytest.mark.slow
@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_runs_top_to_bottom_in_a_fresh_kernel(path):
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    # A cell that raises fails the test with the cell's traceback (nbclient's CellExecutionError).
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    print(f"{path.name} ran in {time.perf_counter() - start:.1f} s")


@pytest.mark.slow
def test_the_readme_command_runs_a_notebook_with_the_venvs_jupyter(tmp_path):
    # As the README says: `.venv/bin/jupyter nbconvert --to notebook --execute ...`, from a shell
    # whose PATH does not hold the venv (jupyter finds its subcommands beside itself).
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import book\nprint(book.__name__, 6 * 7)")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, tmp_path / "small.ipynb")
    jupyter = Path(sys.executable).parent / "jupyter"
    command = [str(jupyter), "nbconvert", "--to", "notebook", "--execute", "small.ipynb"]
    command += ["--output-dir", "run"]
    result = subprocess.run(
        command, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    outputs = nbformat.read(tmp_path / "run" / "small.ipynb", as_version=4).cells[0].outputs
    assert [output.get("text") for output in outputs] == ["book 42\n"]
