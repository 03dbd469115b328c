"""The two pipes between the judge and a graded kernel: call inputs in, lines out.

Both are named pipes in the scratch folder that the guard opens before the learner's first cell
and then unlinks. On ``results`` the kernel writes one JSON line per event (see ``record``):
the judge reads it as it fills, so a line, once written, is out of the learner's reach. The
first line of each kernel is the guard's greeting with its key; every later line must carry
that key's signature. On
``inbox`` the judge writes a call's inputs (length-prefixed JSON) only when that call runs.
The judge keeps at most ``limit`` bytes of lines per notebook; beyond that it drops them and
says so. A line longer than ``record.MAX_LINE_BYTES`` is dropped as it arrives, unread, and taken
as :class:`record.TooLarge`.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from book.grading.record import MAX_LINE_BYTES, Malformed, TooLarge, parse_line, unsigned

HEADER_BYTES = 12  # the length prefix of an inbox message, in ASCII digits


def frame(message: dict) -> bytes:
    """message as the guard reads it from the inbox: its length in 12 digits, then the JSON.

    >>> frame({"id": "c1"})
    b'000000000012{"id": "c1"}'
    """
    data = json.dumps(message).encode("utf-8")
    return f"{len(data):0{HEADER_BYTES}d}".encode("ascii") + data


class Channel:
    """The pipes of one graded notebook (made again for each kernel it needs)."""

    def __init__(self, folder: Path, limit: int) -> None:
        self.results_path, self.inbox_path = folder / ".results", folder / ".inbox"
        self.limit = limit
        self.kept = 0
        self.dropped = 0
        self.partial = b""
        self.skipping = False
        self.lines: list[bytes | None] = []  # None: a line too long to read
        self.key: bytes | None = None
        self.fds: list[int] = []
        self.reader = -1
        self.inbox = -1
        self.pending = b""
        self.loop: asyncio.AbstractEventLoop | None = None

    def open(self) -> None:
        """Fresh pipes for a new kernel (the guard cell opens their other ends)."""
        self.close()
        for path in (self.results_path, self.inbox_path):
            path.unlink(missing_ok=True)
            os.mkfifo(path, 0o600)
        self.reader = os.open(self.results_path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        # A writer of our own, so the pipe never reads as closed while no kernel has it open.
        keep_open = os.open(self.results_path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        self.inbox = os.open(self.inbox_path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self.fds = [self.reader, keep_open, self.inbox]
        self.partial, self.pending, self.skipping, self.key = b"", b"", False, None
        try:  # in the kernel loop, read as lines arrive; elsewhere (a test), on take()
            self.loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        if self.loop is not None:
            self.loop.add_reader(self.reader, self.drain)

    def close(self) -> None:
        """Read what is left and close the pipes."""
        if self.reader >= 0:
            self.drain()
        if self.loop is not None and not self.loop.is_closed():
            self.loop.remove_reader(self.reader)
            self.loop.remove_writer(self.inbox)
        self.loop = None
        for fd in self.fds:
            os.close(fd)
        self.fds, self.reader, self.inbox = [], -1, -1

    def drain(self) -> None:
        """Read everything the kernel wrote so far into whole lines (non-blocking)."""
        while True:
            try:
                chunk = os.read(self.reader, 1 << 20)
            except BlockingIOError:
                return
            if not chunk:
                return
            self._keep(chunk)

    def _keep(self, chunk: bytes) -> None:
        data = self.partial + chunk
        if self.skipping:  # the rest of a line too long to keep
            cut = data.find(b"\n")
            if cut < 0:
                self.partial = b""
                return
            data, self.skipping = data[cut + 1 :], False
        *whole, self.partial = data.split(b"\n")
        for line in whole:
            if len(line) > MAX_LINE_BYTES:
                self.lines.append(None)
            elif self.kept + len(line) > self.limit:
                self.dropped += 1
            else:
                self.kept += len(line)
                self.lines.append(line)
        if len(self.partial) > min(self.limit - self.kept, MAX_LINE_BYTES):
            if len(self.partial) > MAX_LINE_BYTES:
                self.lines.append(None)
            else:
                self.dropped += 1
            self.partial, self.skipping = b"", True

    def take(self) -> list[dict | Malformed]:
        """The lines read since the last take, parsed and checked (or why one is malformed)."""
        self.drain()
        lines, self.lines = self.lines, []
        taken: list[dict | Malformed] = []
        for line in lines:
            try:
                if line is None:
                    raise TooLarge()
                taken.append(self._check(line))
            except Malformed as error:
                taken.append(error)
        return taken

    def _check(self, line: bytes) -> dict:
        """A line checked: the first is the guard's greeting (its key), the rest signed by it."""
        if self.key is not None:
            return parse_line(unsigned(line, self.key))
        hello = parse_line(line)
        if hello["kind"] != "hello":
            raise Malformed("line: the guard's greeting expected first")
        try:
            self.key = bytes.fromhex(hello["key"])
        except ValueError:
            raise Malformed("line.key: hexadecimal expected") from None
        return hello

    def send(self, message: dict) -> None:
        """Queue a call's inputs for the guard; they go into the inbox as the kernel reads."""
        self.pending += frame(message)
        self._write()

    def _write(self) -> None:
        try:
            while self.pending:
                self.pending = self.pending[os.write(self.inbox, self.pending[: 1 << 16]) :]
        except BlockingIOError:
            pass
        if self.loop is not None and not self.loop.is_closed():
            if self.pending:
                self.loop.add_writer(self.inbox, self._write)
            else:
                self.loop.remove_writer(self.inbox)
