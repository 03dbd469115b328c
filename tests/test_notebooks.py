"""Chapters: stored without outputs, listed in the table of contents, run in a fresh kernel."""

import time

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
