r"""Big files in blocks: cut where each block can be handled alone, and work on them in parallel.

Training on a big corpus, or encoding one, starts by pre-tokenizing it: Python-speed regex
work that several processes can share. The file is cut into blocks at places where the chunks
of each block, taken alone, are the chunks of the whole (``pretokenize.is_cut``: before a
space that follows a non-space; or at a special token, when the text is split there anyway).
Each block is read and decoded by the process that handles it; a byte that is not UTF-8 is
reported with its offset and line in the file.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "t.txt")
>>> _ = open(path, "w").write("one two three four five six")
>>> [read_block(path, block) for block in file_blocks(path, r"\S+|\s+", (), size=8)]
['one two three four five six']
>>> from book.tokenizers.bpe.patterns import GPT2_PATTERN
>>> [read_block(path, block) for block in file_blocks(path, GPT2_PATTERN, (), size=8)]
['one two three', ' four five', ' six']
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from book.tokenizers.bpe.pretokenize import SPACE_CUT_PATTERNS, first_cut, spans

Block = tuple[int, int]  # [start, end) byte offsets in the file
WINDOW = 1 << 16  # bytes read around a nominal cut to find a real one
MIN_BLOCK, MAX_BLOCK = 1 << 20, 1 << 24  # blocks of 1 MB to 16 MB


class NotUTF8Error(ValueError):
    """A file to train on or encode holds bytes that are not UTF-8; the message says where.

    >>> print(NotUTF8Error("c.txt", 7, 2, "invalid start byte", bytes([255])))  # doctest: +ELLIPSIS
    c.txt: byte 7 (line 2) is not UTF-8 (invalid start byte: ff). The file must be UTF-8 text...
    """

    def __init__(self, path, offset: int, line: int, reason: str, data: bytes):
        super().__init__(
            f"{path}: byte {offset} (line {line}) is not UTF-8 ({reason}: {data.hex(' ')}). "
            "The file must be UTF-8 text: convert it first (e.g. with iconv -f latin1 -t utf-8), "
            "or fix or drop the bytes there"
        )
        self.path, self.offset, self.line = path, offset, line
        self._args = (path, offset, line, reason, data)

    def __reduce__(self):  # raised in a worker process, re-raised in the parent
        return type(self), self._args


def check_workers(workers: object) -> int | None:
    """``workers`` if it is None (choose) or an int >= 1; else a ValueError that says so."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(
            f"workers must be an int >= 1 (the number of processes) or None, got {workers!r}"
        )
    return workers


def available_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def file_blocks(
    path: str | Path, pattern: str, names: Sequence[str], size: int, cut_at_names: bool = True
) -> list[Block]:
    """Byte ranges of about ``size`` bytes covering the file, cut where each can stand alone.

    ``names`` are special tokens: a cut never falls inside one, and with ``cut_at_names`` a
    block may also end right after one (training splits the text at every special token).
    Without a pattern that allows cuts and without special tokens, the file is one block.
    """
    total = os.path.getsize(path)
    blocks: list[Block] = []
    start = 0
    with open(path, "rb") as file:
        while start < total:
            end = _next_cut(file, start + size, total, pattern, names, cut_at_names)
            blocks.append((start, end))
            start = end
    return blocks


def _next_cut(file, nominal: int, total: int, pattern, names, cut_at_names: bool) -> int:
    """The first safe cut at or after byte ``nominal`` (``total`` if there is none)."""
    if pattern not in SPACE_CUT_PATTERNS and not (cut_at_names and names):
        return total
    while nominal < total:
        file.seek(nominal)
        window = file.read(WINDOW + 4)
        # Start at a character: skip continuation bytes (10xxxxxx) of the one cut into.
        skip = next((i for i, byte in enumerate(window[:4]) if byte & 0xC0 != 0x80), 0)
        text = window[skip:].decode("utf-8", "surrogateescape")  # bad bytes: checked later
        found = [first_cut(text, 1, pattern, names)]
        if cut_at_names:
            found.append(_after_special(text, names))
        found = [
            i for i in found if i is not None and i < len(text) - max(map(len, names), default=1)
        ]
        if found:
            offset = min(found)
            return nominal + skip + len(text[:offset].encode("utf-8", "surrogateescape"))
        nominal += WINDOW
    return total


def _after_special(text: str, names: Sequence[str]) -> int | None:
    """The end of the first special token in ``text`` that the text is surely split at.

    The occurrence must be the one a left-to-right scan finds (no special token's text spans
    its start, none longer starts there) and nothing may span its end.
    """
    ends = []
    for name in names:
        start = text.find(name, 1)
        while start >= 0:
            end = start + len(name)
            longer = any(
                len(other) > len(name) and text.startswith(other, start) for other in names
            )
            if not longer and not spans(text, start, names) and not spans(text, end, names):
                ends.append(end)
                break
            start = text.find(name, start + 1)
    return min(ends, default=None)


def read_block(path: str | Path, block: Block, errors: str = "strict") -> str:
    """The text of ``block``; bytes that are not UTF-8 raise :class:`NotUTF8Error`.

    With ``errors="replace"`` they become U+FFFD instead, as in ``bytes.decode``. The blocks'
    texts then still add up to the file's: no cut falls inside a sequence of bad bytes (a cut
    is before a space or after a special token, where decoding starts afresh).
    """
    start, end = block
    with open(path, "rb") as file:
        file.seek(start)
        data = file.read(end - start)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as error:
        offset = start + error.start
        raise NotUTF8Error(
            path, offset, line_of(path, offset), error.reason, data[error.start : error.end]
        ) from None


def line_of(path: str | Path, offset: int) -> int:
    """The line (from 1) that byte ``offset`` of the file is on."""
    line = 1
    with open(path, "rb") as file:
        while offset > 0:
            data = file.read(min(offset, 1 << 20))
            if not data:
                break
            line += data.count(b"\n")
            offset -= len(data)
    return line


def block_size(total: int, workers: int) -> int:
    """Bytes per block: about four blocks per worker, between 1 MB and 16 MB."""
    return max(MIN_BLOCK, min(MAX_BLOCK, total // (4 * workers) + 1))


def choose_workers(workers: int | None, total: int) -> int:
    """``workers``, or if None: one process for a file under 4 MB, else every CPU."""
    if workers is not None:
        return workers
    return 1 if total < 4 * MIN_BLOCK else available_cpus()


def map_blocks(
    function: Callable[..., Any],
    blocks: Iterable[Block],
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple = (),
) -> Iterator[Any]:
    """``function(block)`` for each block, in order: in this process, or in ``workers`` processes.

    At most two blocks per worker are in flight, so results are produced (and memory used) at
    the pace they are consumed. A worker's exception is raised here.
    """
    if workers == 1:
        if initializer is not None:
            initializer(*initargs)
        yield from map(function, blocks)
        return
    with multiprocessing.Pool(workers, initializer, initargs) as pool:
        pending = []
        for block in blocks:
            pending.append(pool.apply_async(function, (block,)))
            if len(pending) >= 2 * workers:
                yield pending.pop(0).get()
        for result in pending:
            yield result.get()
