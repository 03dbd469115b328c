"""Notebook plumbing shared by the exercise generator and the grader: read, write, execute.

    python -m book.notebooks execute solutions/01_text_to_numbers.ipynb

runs notebooks top to bottom in a fresh kernel of this Python and saves them with their outputs
(deterministic JSON, no timing metadata). It refuses to save a notebook in which a cell raised,
unless that cell is marked ``# NBVAL_RAISES_EXCEPTION`` (as nbval expects).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import logging
import subprocess
import sys
from pathlib import Path

import nbformat
from ipykernel.kernelspec import RESOURCES, get_kernel_dict
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode
from nbformat.v4.nbbase import random_cell_id

ROOT = Path(__file__).resolve().parent.parent  # the repository (book/ is installed editable)
CHECK_MARK = "# NBVAL_CHECK_OUTPUT"
RAISES_MARK = "# NBVAL_RAISES_EXCEPTION"
VOLATILE_CELL_METADATA = ("execution", "ExecuteTime", "scrolled", "collapsed")


class NotebookError(Exception):
    """A notebook that cannot be used; the message says what is wrong and what to do."""


def shown(path: Path) -> str:
    """The path as the user would type it: relative to the working directory when inside it (a
    symbolic link named as itself, not as what it points to)."""
    path = Path(path).parent.resolve() / Path(path).name
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def read_notebook(path: Path) -> NotebookNode:
    """Read an .ipynb file as nbformat 4, or raise NotebookError saying what is wrong."""
    path = Path(path)
    if path.suffix != ".ipynb":
        raise NotebookError(f"{shown(path)} is not a notebook: expected a .ipynb file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotebookError(f"{shown(path)} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise NotebookError(f"cannot read {shown(path)}: {error}") from None
    return parse_notebook(text, path)


def parse_notebook(text: str, path: Path) -> NotebookNode:
    """The text of path's .ipynb file as nbformat 4, or NotebookError saying what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(
            f"{shown(path)} is not valid notebook JSON ({error}); "
            "save it again from Jupyter (File > Save) or download a fresh copy"
        ) from None
    if (
        not isinstance(data, dict)
        or data.get("nbformat") != 4
        or not isinstance(data.get("cells"), list)
    ):
        raise NotebookError(
            f"{shown(path)} is not a Jupyter notebook in format 4; "
            "open it in Jupyter and save it again"
        )
    return nbformat.reads(text, as_version=4)


def notebook_text(nb: NotebookNode) -> str:
    """The notebook as deterministic JSON: sorted keys, one-space indent, newline at the end."""
    return nbformat.writes(nb, version=4).rstrip("\n") + "\n"


def is_check_cell(cell: NotebookNode) -> bool:
    """True for a code cell marked '# NBVAL_CHECK_OUTPUT' on a line of its own."""
    return cell.cell_type == "code" and CHECK_MARK in (
        line.strip() for line in cell.source.splitlines()
    )


def stdout_of(cell: NotebookNode) -> str:
    """All text the cell printed to stdout, in order."""
    return "".join(
        out.get("text", "")
        for out in cell.get("outputs", [])
        if out.output_type == "stream" and out.name == "stdout"
    )


def error_of(cell: NotebookNode) -> str | None:
    """'ExceptionName: message' of the cell's error output, or None."""
    for out in cell.get("outputs", []):
        if out.output_type == "error":
            return f"{out.ename}: {out.evalue}".rstrip(": ")
    return None


class _CurrentPython(KernelSpecManager):
    """Kernel specs where every name means ipykernel in this very Python (sys.executable)."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        """The ipykernel spec of the running interpreter, whatever the notebook asks for."""
        return KernelSpec(resource_dir=RESOURCES, **get_kernel_dict())


class _Stuck(Exception):
    """A cell kept running after it was interrupted."""


class _Client(NotebookClient):
    """An nbclient that runs this Python's kernel and interrupts a cell that exceeds its timeout."""

    interrupted = False

    def create_kernel_manager(self) -> AsyncKernelManager:
        """A kernel manager for ipykernel in sys.executable, not whatever 'python3' resolves to."""
        self.km = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=_CurrentPython())
        return self.km

    async def _async_handle_timeout(self, timeout: int, cell: NotebookNode | None = None) -> None:
        """First timeout of a cell: interrupt it (KeyboardInterrupt); second: give up the kernel."""
        if self.interrupted:
            raise _Stuck()
        self.interrupted = True
        await self.km.interrupt_kernel()

    async def kernel_started(self) -> None:
        """Called in each new kernel before any cell runs (a subclass may prepare it)."""

    def replayed(self, index: int) -> bool:
        """Whether a finished cell runs again in a new kernel: all of them, here."""
        return True


def _client(nb: NotebookNode, timeout: float, cwd: Path) -> _Client:
    """A client for nb with a per-cell timeout, run in cwd, leaving no timing metadata."""
    quiet = logging.getLogger("book.notebooks.kernel")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    return _Client(
        nb,
        timeout=timeout,
        allow_errors=True,
        record_timing=False,
        shutdown_kernel="immediate",
        startup_timeout=120,
        log=quiet,
        resources={"metadata": {"path": str(cwd)}},
    )


async def _run(client: _Client, cells: list[NotebookNode], timeout: float) -> dict[int, str]:
    """Execute the code cells in order; return {cell index: problem} for cells that did not finish.

    A cell that times out is interrupted and the run goes on. If the interrupt does not stop it,
    or the kernel dies, a fresh kernel replays the cells that had finished and the run goes on.
    """
    problems: dict[int, str] = {}
    finished: list[int] = []
    pending = [index for index, cell in enumerate(cells) if cell.cell_type == "code"]
    while pending:
        async with client.async_setup_kernel(stderr=subprocess.DEVNULL):  # no kernel log noise
            await client.kernel_started()
            try:
                for index in filter(client.replayed, finished):  # rebuild the learner's state
                    client.interrupted = False
                    await client.async_execute_cell(copy.deepcopy(cells[index]), index)
            except (_Stuck, DeadKernelError):
                problems.update(
                    {index: "not run: the kernel could not be restarted" for index in pending}
                )
                break
            while pending:
                index = pending.pop(0)
                client.interrupted = False
                try:
                    await client.async_execute_cell(cells[index], index)
                except _Stuck:
                    problems[index] = (
                        f"timed out after {timeout:g} s and ignored the interrupt; kernel restarted"
                    )
                    break
                except DeadKernelError as error:
                    died = getattr(error, "problem", "the kernel died while running this cell")
                    problems[index] = f"{died}; kernel restarted"
                    break
                if client.interrupted:
                    problems[index] = (
                        f"timed out after {timeout:g} s (an endless loop?) and was interrupted"
                    )
                else:
                    finished.append(index)
    return problems


def execute(nb: NotebookNode, timeout: float = 30, cwd: Path | None = None) -> dict[int, str]:
    """Run nb in place in a fresh kernel; return {cell index: problem} for cells that failed.

    Cells that raise are recorded with their error output and the run goes on.
    """
    client = _client(nb, timeout, Path(cwd or Path.cwd()))
    return asyncio.run(_run(client, nb.cells, timeout))


def clean_metadata(metadata: dict) -> dict:
    """Cell metadata without what changes on every run (timings, scroll state)."""
    return {key: value for key, value in metadata.items() if key not in VOLATILE_CELL_METADATA}


def _unexpected(nb: NotebookNode) -> list[str]:
    """Cells whose error (or missing error) nbval would report."""
    found = []
    for index, cell in enumerate(nb.cells):
        marked = cell.cell_type == "code" and RAISES_MARK in cell.source
        error = error_of(cell) if cell.cell_type == "code" else None
        if error and not marked:
            found.append(f"cell {index} raised {error}")
        elif marked and not error:
            found.append(f"cell {index} is marked {RAISES_MARK} but did not raise")
    return found


def execute_in_place(path: Path, timeout: float) -> None:
    """Execute a notebook in its own folder and save it with outputs, or raise NotebookError."""
    nb = read_notebook(path)
    if nb.nbformat_minor < 5:  # cell ids (nbformat 4.5) let the grader find cells a learner moved
        nb.nbformat_minor = 5
        for cell in nb.cells:
            cell.id = random_cell_id()
    problems = execute(nb, timeout, cwd=path.resolve().parent)
    found = [
        f"cell {index} {problem}" for index, problem in sorted(problems.items())
    ] + _unexpected(nb)
    if found:
        raise NotebookError(f"{shown(path)} was not saved: " + "; ".join(found))
    for cell in nb.cells:
        cell.metadata = clean_metadata(cell.metadata)
    path.write_text(notebook_text(nb), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command line: python -m book.notebooks execute PATH... [--timeout SECONDS]."""
    parser = argparse.ArgumentParser(
        prog="python -m book.notebooks", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("execute", help="run notebooks and save them with their outputs")
    run.add_argument(
        "paths", nargs="+", type=Path, metavar="PATH", help="notebooks to execute in place"
    )
    run.add_argument(
        "--timeout",
        type=float,
        default=300,
        metavar="SECONDS",
        help="seconds per cell (default 300)",
    )
    args = parser.parse_args(argv)
    status = 0
    for path in args.paths:
        try:
            execute_in_place(path, args.timeout)
            print(f"executed and saved {shown(path)}")
        except NotebookError as error:
            print(f"error: {error}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
