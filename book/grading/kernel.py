"""Run cells in the sandboxed kernel: time limits, a cap on what is kept, and the calls' hooks.

The cells run through the same loop as ``book.notebooks.execute`` (a cell that times out is
interrupted; a kernel that dies or ignores the interrupt is restarted and the finished cells
are replayed), with a kernel started by ``sandbox.kernel_command`` and reached over Unix sockets
in the scratch folder, because the kernel has no network, not even the loopback of the judge.
The grader keeps at most ``CELL_OUTPUT`` characters of what a cell displays and ``NOTEBOOK_OUTPUT``
of the whole notebook's (it only reads errors and passing lines there), and its sockets drop any
message over ``MAX_MESSAGE`` bytes and any beyond ``QUEUED_MESSAGES`` waiting, so a notebook that
prints gigabytes costs the grader next to nothing. ``hooks`` (``calls.Calls``) sees every cell
before and after it runs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import zmq
from ipykernel.kernelspec import RESOURCES
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode
from nbformat.v4 import new_output

from book.grading.sandbox import KERNEL_FOLDER
from book.notebooks import _Client, _run

TIME_LIMIT_KEY = "grader_seconds"  # cell metadata: this cell's own time limit
CELL_OUTPUT = 64 * 1024
NOTEBOOK_OUTPUT = 1024 * 1024
MAX_MESSAGE = 4 * 1024 * 1024
QUEUED_MESSAGES = 16  # at most this many messages wait in a socket: the rest are dropped
KEPT_MESSAGES = {"stream", "display_data", "execute_result", "update_display_data", "error"}


class UnreadableKernel(DeadKernelError):
    """The kernel sent messages the client cannot read: it is treated as dead and restarted."""

    problem = (
        "the kernel's messages could not be read (did the notebook replace json or something "
        "else Jupyter's messages use?)"
    )


class _SpecOf(KernelSpecManager):
    """Kernel specs where every name means the one given kernel spec."""

    spec: KernelSpec | None = None

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        """The one spec, whatever the notebook asks for."""
        return self.spec


class _Manager(AsyncKernelManager):
    """A kernel manager whose clients drop oversized messages and floods (ZeroMQ does, unread)."""

    def client(self, **kwargs: Any):
        """A client whose sockets have a maximum message size."""
        client = super().client(**kwargs)
        client.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE)
        client.context.setsockopt(zmq.RCVHWM, QUEUED_MESSAGES)
        return client


def _size(value: Any) -> int:
    """About how many characters an output message's content holds."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(map(_size, value.values()))
    if isinstance(value, list):
        return sum(map(_size, value))
    return 0


class NoHooks:
    """What a run without calls does around each cell: nothing."""

    def kernel_started(self) -> None:
        """A new kernel started."""

    def is_call(self, index: int) -> bool:
        """No cell is one of the judge's calls."""
        return False

    def before(self, index: int, cell: NotebookNode) -> bool:
        """Run every cell."""
        return True

    def after(self, index: int, interrupted: bool, failed: bool) -> None:
        """Nothing to read."""


class SandboxedClient(_Client):
    """A notebook client for the graded kernel: its command, Unix sockets, a deadline, caps."""

    argv: list[str] = []
    env: dict[str, str] = {}
    sockets: Path = Path()
    deadline: float = 0.0
    skipped: set[int] = set()
    hooks: Any = NoHooks()
    kept: dict[int, int] = {}  # characters of output kept, per cell index

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
        self.km = _Manager(
            kernel_name="graded",
            kernel_spec_manager=specs,
            transport="ipc",
            ip=str(self.sockets / "k"),
            connection_file=str(self.sockets / "kernel.json"),
        )
        return self.km

    async def kernel_started(self) -> None:
        """Tell the hooks a new kernel is there."""
        self.hooks.kernel_started()

    def replayed(self, index: int) -> bool:
        """Whether a finished cell runs again in a new kernel: not the judge's calls."""
        return not self.hooks.is_call(index)

    async def async_execute_cell(
        self, cell: NotebookNode, cell_index: int, *args, **kwargs
    ) -> NotebookNode:
        """Run the cell unless the deadline has passed (skipped) or the hooks say no."""
        if time.monotonic() >= self.deadline:
            self.skipped.add(cell_index)
            return cell
        if not self.hooks.before(cell_index, cell):
            return cell
        if self.hooks.is_call(cell_index):  # the notebook's history keeps its own cells only
            kwargs["store_history"] = False
        try:
            done = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
        except (ValueError, KeyError, TypeError) as error:  # a message that does not decode
            self.hooks.after(cell_index, interrupted=False, failed=True)
            raise UnreadableKernel(str(error)) from error
        except BaseException:
            self.hooks.after(cell_index, interrupted=False, failed=True)
            raise
        self.hooks.after(cell_index, interrupted=self.interrupted, failed=False)
        return done

    def process_message(self, msg: dict, cell: NotebookNode, cell_index: int) -> Any:
        """Handle a message, keeping at most the output caps (comm messages are not kept)."""
        kind = msg.get("msg_type", msg.get("header", {}).get("msg_type", ""))
        if kind.startswith("comm_"):
            return None
        if kind in KEPT_MESSAGES:
            size = _size(msg.get("content", {}))
            kept = self.kept.get(cell_index, 0)
            total = sum(self.kept.values())
            if kept + size > CELL_OUTPUT or total + size > NOTEBOOK_OUTPUT:
                if kept <= CELL_OUTPUT:  # say once that the rest was not kept
                    self.kept[cell_index] = CELL_OUTPUT + 1
                    cell.setdefault("outputs", []).append(
                        new_output("stream", name="stderr", text="[output cut by the grader]\n")
                    )
                if kind != "error":
                    return None
                msg["content"]["traceback"] = []
                msg["content"]["evalue"] = str(msg["content"].get("evalue", ""))[:300]
            else:
                self.kept[cell_index] = kept + size
        return super().process_message(msg, cell, cell_index)


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
    hooks: Any = None,
) -> tuple[dict[int, str], set[int]]:
    """Run the cells in place; return ({index: problem} for cells that did not finish, skipped)."""
    sockets = scratch / KERNEL_FOLDER
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
    client.hooks, client.kept = hooks or NoHooks(), {}
    problems = asyncio.run(_run(client, cells, cell_seconds))
    return problems, client.skipped
