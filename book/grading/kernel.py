"""Run cells in the sandboxed kernel: per-cell time limits and a deadline for the whole notebook.

The cells run through the same loop as ``book.notebooks.execute`` (a cell that times out is
interrupted; a kernel that dies or ignores the interrupt is restarted and the finished cells
are replayed), with a kernel started by ``sandbox.kernel_argv`` and reached over Unix sockets
in the scratch folder, because the kernel has no network, not even the loopback of the judge.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from ipykernel.kernelspec import RESOURCES
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbformat import NotebookNode

from book.notebooks import _Client, _run

TIME_LIMIT_KEY = "grader_seconds"  # cell metadata: this cell's own time limit


class _SpecOf(KernelSpecManager):
    """Kernel specs where every name means the one given kernel spec."""

    spec: KernelSpec | None = None

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        """The one spec, whatever the notebook asks for."""
        return self.spec


class SandboxedClient(_Client):
    """A notebook client for the graded kernel: its command, Unix sockets, a deadline."""

    argv: list[str] = []
    env: dict[str, str] = {}
    sockets: Path = Path()
    deadline: float = 0.0
    skipped: set[int] = set()

    def create_kernel_manager(self) -> AsyncKernelManager:
        """A manager that starts the sandboxed command and talks over ipc sockets."""
        specs = _SpecOf()
        specs.spec = KernelSpec(
            resource_dir=RESOURCES,
            argv=self.argv,
            env=self.env,
            display_name="graded",
            language="python",
            interrupt_mode="message",
        )
        self.km = AsyncKernelManager(
            kernel_name="graded",
            kernel_spec_manager=specs,
            transport="ipc",
            ip=str(self.sockets / "k"),
            connection_file=str(self.sockets / "kernel.json"),
        )
        return self.km

    async def async_execute_cell(
        self, cell: NotebookNode, cell_index: int, *args, **kwargs
    ) -> NotebookNode:
        """Run the cell unless the notebook's deadline has passed (then record it as skipped)."""
        if time.monotonic() >= self.deadline:
            self.skipped.add(cell_index)
            return cell
        return await super().async_execute_cell(cell, cell_index, *args, **kwargs)


def quiet_log() -> logging.Logger:
    """A logger that drops the kernel client's messages (the report says what matters)."""
    log = logging.getLogger("book.grading.kernel")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    return log


def cell_timeout(cell: NotebookNode, default: float, deadline: float) -> float:
    """The cell's own limit (or the default), cut to what is left before the deadline."""
    limit = cell.metadata.get(TIME_LIMIT_KEY, default)
    return max(1.0, min(limit, deadline - time.monotonic()))


def run_cells(
    cells: list[NotebookNode],
    command: tuple[list[str], dict[str, str]],
    scratch: Path,
    cell_seconds: float,
    total_seconds: float,
) -> tuple[dict[int, str], set[int]]:
    """Run the cells in place; return ({index: problem} for cells that did not finish, skipped)."""
    sockets = scratch / ".kernel"
    sockets.mkdir(exist_ok=True)
    deadline = time.monotonic() + total_seconds
    nb = NotebookNode({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    client = SandboxedClient(
        nb,
        timeout=cell_seconds,
        allow_errors=True,
        record_timing=False,
        shutdown_kernel="immediate",
        startup_timeout=120,
        log=quiet_log(),
        resources={"metadata": {"path": str(scratch)}},
        timeout_func=lambda cell: cell_timeout(cell, cell_seconds, deadline),
    )
    client.argv, client.env = command
    client.sockets, client.deadline, client.skipped = sockets, deadline, set()
    problems = asyncio.run(_run(client, cells, cell_seconds))
    return problems, client.skipped
