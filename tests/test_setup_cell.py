"""The setup cell that lets a notebook run where the book's package is not installed (Colab).

Every notebook of the book starts with it (hidden in the rendered book), and a chapter runs
top to bottom in a fresh virtual environment without ``book``, the cell installing the package
from a local clone (``BOOK_PACKAGE_SOURCE``), as it would from the repository on Colab.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

from book.setup_cell import ROOT, is_setup_cell, main, setup_source, toc_notebooks, with_setup_cell

CHAPTER = ROOT / "chapters" / "02_characters.ipynb"
# Prints {distribution: version} of every package a Python sees, as JSON.
VERSIONS = (
    "import json, importlib.metadata as m; "
    "print(json.dumps({d.metadata['Name'].lower(): d.version for d in m.distributions()}))"
)


def test_every_notebook_starts_with_the_current_setup_cell(capsys):
    assert toc_notebooks(), "no notebooks found through _toc.yml"
    assert main(["--check"]) == 0, capsys.readouterr().out + "\nrun: python -m book.setup_cell"


def test_the_cell_installs_the_package_without_the_grading_extra_and_pins_what_is_there():
    source = setup_source()
    assert "[grading]" not in source and '"-c", file.name' in source
    assert "distributions()" in source


def test_the_cell_is_hidden_in_the_book_and_installs_from_the_configured_repository():
    nb = nbformat.read(CHAPTER, as_version=4)
    cell = nb.cells[0]
    assert is_setup_cell(cell) and "remove-cell" in cell.metadata.tags
    assert "git+https://github.com/tokenization-from-scratch/tokenization-from-scratch@main" in (
        cell.source
    )


def test_refreshing_replaces_an_old_cell_and_keeps_the_rest():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title")])
    nb, changed = with_setup_cell(nb, "old")
    assert changed and [c.source for c in nb.cells] == ["old", "# Title"]
    nb, changed = with_setup_cell(nb, "new")
    assert changed and [c.source for c in nb.cells] == ["new", "# Title"]
    assert with_setup_cell(nb, "new") == (nb, False)


def test_a_config_without_repository_url_is_refused(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("title: x\n")
    with pytest.raises(ValueError, match="repository.url"):
        setup_source(config)


@pytest.mark.slow
def test_a_chapter_runs_where_book_is_not_installed(tmp_path):
    venv = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The fresh environment sees this environment's packages (numpy, tiktoken, ipykernel...)
    # through a .pth line, but not `book`: .pth files inside that folder, among them the
    # editable install's, are not processed.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    where = [str(python), "-c", "import importlib.util as u; print(u.find_spec('book'))"]
    assert subprocess.run(where, capture_output=True, text=True, cwd=tmp_path).stdout == "None\n"
    versions = [str(python), "-c", VERSIONS]
    before = json.loads(subprocess.run(versions, capture_output=True, text=True).stdout)

    nb = nbformat.read(CHAPTER, as_version=4)
    assert is_setup_cell(nb.cells[0])
    env = {
        **os.environ,
        "BOOK_PACKAGE_SOURCE": ROOT.as_uri(),  # a local clone stands in for the repository
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    # A kernel spec of the fresh environment's Python, so the chapter runs there.
    kernels = tmp_path / "kernels"
    (kernels / "fresh").mkdir(parents=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec = {"argv": argv, "display_name": "fresh", "language": "python"}
    (kernels / "fresh" / "kernel.json").write_text(json.dumps(spec))
    km = AsyncKernelManager(
        kernel_name="fresh", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)])
    )
    client = NotebookClient(nb, km=km, timeout=600, resources={"metadata": {"path": str(tmp_path)}})
    old_environ = dict(os.environ)
    os.environ.update(env)  # the kernel inherits it
    try:
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(old_environ)
    installed = subprocess.run(where, capture_output=True, text=True, cwd=tmp_path).stdout
    assert site in installed, f"book was not installed into the fresh environment: {installed}"
    after = json.loads(subprocess.run(versions, capture_output=True, text=True).stdout)
    changed = {
        name: (before.get(name), after[name]) for name in after if after[name] != before.get(name)
    }
    assert set(changed) <= {"tokenization-from-scratch"}, f"the setup cell upgraded {changed}"
