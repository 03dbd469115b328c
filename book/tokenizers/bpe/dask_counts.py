"""Counting pre-tokens on a Dask cluster: the text spread over many machines, one table back.

Training BPE on more text than one machine holds splits the work as chapter 10 does on one
machine. Counting the pre-tokens grows with the text, and each block of it can be counted
alone; merging grows with the distinct pre-tokens, far fewer, and runs on one machine. Here
the counting runs on the workers of a Dask cluster (``dask.distributed``):

1. the files of a glob are cut into blocks where a cut cannot change the pre-tokens
   (:func:`~book.tokenizers.bpe.blocks.file_blocks`: at safe cuts between pre-tokens, or after a
   special token); the driver reads only a window around each cut;
2. one task per block reads, decodes and counts it (``training_chunk_counts``: the text is
   split at the special tokens first, as ``train_bpe`` does);
3. the blocks' tables are added up on the workers in groups of ``split_every`` consecutive
   ones, then the groups' tables, and so on (a tree), always in file order, so the driver
   receives one table: the one ``file_chunk_counts`` gives file by file, in the same order.

Each file is a document of its own: no pre-token spans two files. The merge step is
``train_bpe_from_counts``, the one ``train_bpe`` uses, so the merges are the same too.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> for name, text in [("a.txt", "low low<|endoftext|>lower"), ("b.txt", "lowest")]:
...     _ = open(os.path.join(folder, name), "w").write(text)
>>> with local_cluster(1, processes=False) as cluster, Client(cluster) as client:
...     files = os.path.join(folder, "*.txt")
...     counts = dask_chunk_counts(files, special_tokens=["<|endoftext|>"], client=client)
>>> counts
{b'low': 1, b' low': 1, b'lower': 1, b'lowest': 1}
"""

from __future__ import annotations

import glob
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from distributed import Client, Future, KilledWorker, LocalCluster, wait

from book.tokenizers.bpe import blocks
from book.tokenizers.bpe.core import TieBreak
from book.tokenizers.bpe.patterns import GPT2_PATTERN, check_special_names, compile_pattern
from book.tokenizers.bpe.pretokenize import training_chunk_counts
from book.tokenizers.bpe.train import add_counts, check_bpe_options, train_bpe_from_counts

LOOPBACK = "127.0.0.1"  # the local cluster listens here only: nothing leaves this machine
ERRORS = ("strict", "replace")  # decoding policies that cannot change a pre-token at a cut


class BlockCountError(RuntimeError):
    """A block of a file could not be counted on the cluster; the message says which, and why."""


def local_cluster(n_workers: int | None = None, processes: bool = True) -> LocalCluster:
    """A Dask cluster of ``n_workers`` one-thread workers on this machine, on the loopback only.

    ``n_workers=None``: one per CPU. ``processes=False`` runs the workers as threads of this
    process (for tiny examples: no process to start). Use it as a context manager, or call
    ``close()``, to stop it.
    """
    n_workers = blocks.available_cpus() if n_workers is None else blocks.check_workers(n_workers)
    return LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=processes,
        host=LOOPBACK,
        protocol="tcp://",  # workers in threads too (in-process queues take no host)
        dashboard_address=f"{LOOPBACK}:0",  # any free port, and only on the loopback
    )


def matching_files(files: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Path]:
    """The files of a glob (or of several), in the order they are counted, each checked.

    Each glob's matches are sorted by name (``**`` matches any folders); the globs are taken
    in the order given, and a file matched twice is counted once. An empty match, a folder, or
    a file that cannot be opened is an error that names it.
    """
    patterns = [files] if isinstance(files, str | os.PathLike) else list(files)
    if not patterns:
        raise ValueError("no glob given: pass one, such as 'corpus/*.txt', or a list of them")
    found: dict[Path, None] = {}
    for pattern in map(os.fspath, patterns):
        matches = sorted(glob.glob(pattern, recursive=True))
        if not matches:
            raise FileNotFoundError(
                f"no file matches {pattern!r} (relative to {os.getcwd()}): check the glob"
            )
        for match in matches:
            found.setdefault(Path(match))
    for path in found:
        if path.is_dir():
            raise IsADirectoryError(
                f"{path} is a folder: the glob must match text files only (e.g. 'data/*.txt')"
            )
        try:
            path.open("rb").close()
        except OSError as error:
            raise type(error)(
                error.errno, f"{error.strerror}; every file of the glob must be readable", str(path)
            ) from None
    return list(found)


class Table:
    """One block's counts, or several blocks' added up, as the tasks pass them to each other.

    Dask sends a plain dict entry by entry (a frame for each count: for a table of 100,000
    pre-tokens, seconds and tens of megabytes on each side); any other object is pickled
    whole, so the counts travel inside this one.
    """

    __slots__ = ("counts",)

    def __init__(self, counts: dict[bytes, int]):
        self.counts = counts


def count_block(path: str, block: blocks.Block, pattern: str, names: tuple, errors: str) -> Table:
    """The pre-token counts of one block of a file (a task, run by a worker)."""
    return Table(training_chunk_counts(blocks.read_block(path, block, errors), pattern, names))


def add_tables(*tables: Table) -> Table:
    """The tables added up, in the order given, into a new one (a task, run by a worker).

    A task must not change its inputs: Dask may hand the same object to another task.
    """
    total: dict[bytes, int] = {}
    for table in tables:
        add_counts(total, table.counts)
    return Table(total)


def dask_chunk_counts(
    files: str | os.PathLike | Iterable[str | os.PathLike],
    pattern: str = GPT2_PATTERN,
    special_tokens: Iterable[str] = (),
    *,
    client: Client | str | None = None,
    n_workers: int | None = None,
    block_size: int | None = None,
    split_every: int = 8,
    errors: str = "strict",
    timeout: float = 10,
    progress: Callable[[Client, Future], None] | None = None,
) -> dict[bytes, int]:
    """The pre-token counts of the files of a glob, counted on a Dask cluster.

    The result equals :func:`~book.tokenizers.bpe.train.file_chunk_counts` of each file in
    turn, added up in file order (order of first occurrence included). ``client`` is a
    ``distributed.Client``, a scheduler's address (``"tcp://host:8786"``), or None for a
    :func:`local_cluster` of ``n_workers`` workers, started and stopped here. ``block_size``
    is the bytes per block before moving to a safe cut (None: about four blocks per worker,
    1 MB to 16 MB); ``split_every`` how many tables one task adds up (Dask's name, from its
    tree reductions). ``errors="replace"`` reads bytes that are not UTF-8 as U+FFFD; the
    default, ``"strict"``, raises ``NotUTF8Error`` with the file, byte offset and line of the
    first one. ``timeout`` bounds, in seconds, connecting to the scheduler and waiting for a
    worker (as ``Client(timeout=...)``). ``progress(client, future)``, if given, is
    called once every task is submitted and returns when the count is done: a display of
    the tasks' progress, such as :func:`book.show.dask_progress.dask_progress`.
    """
    names = tuple(check_special_names(special_tokens))
    compile_pattern(pattern)  # a bad pattern fails here, not once per block
    _check_options(names, block_size, split_every, errors, timeout)
    if client is not None and n_workers is not None:
        raise ValueError("n_workers sizes the local cluster started when client is None")
    paths = matching_files(files)
    with _connected(client, n_workers, timeout) as connected:
        if block_size is None:
            total = sum(path.stat().st_size for path in paths)
            block_size = blocks.block_size(total, len(connected.scheduler_info()["workers"]))
        plan = [
            (str(path), block)
            for path in paths
            for block in blocks.file_blocks(path, pattern, names, block_size)
        ]
        if not plan:  # every file is empty
            return {}
        return _count(connected, plan, pattern, names, errors, split_every, progress)


def train_bpe_dask(
    files: str | os.PathLike | Iterable[str | os.PathLike],
    vocab_size: int,
    special_tokens: Iterable[str],
    *,
    tie_break: TieBreak = "first",
    pattern: str = GPT2_PATTERN,
    **counting,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """``train_bpe`` on the files of a glob, counted on a Dask cluster: ``(vocab, merges)``.

    The counts come from :func:`dask_chunk_counts` (``counting`` takes its keyword options:
    ``client``, ``n_workers``, ``block_size``, ...), the merges from
    :func:`~book.tokenizers.bpe.train.train_bpe_from_counts` on this machine. For one file,
    the result is that of ``train_bpe(file, vocab_size, special_tokens)``.
    """
    names = check_special_names(special_tokens)
    check_bpe_options(vocab_size, names, tie_break)  # before the long part: counting
    counts = dask_chunk_counts(files, pattern, names, **counting)
    return train_bpe_from_counts(counts, vocab_size, names, tie_break=tie_break)


def _check_options(names, block_size, split_every, errors, timeout) -> None:
    """A ValueError that says which option is wrong, and what it may be."""
    for name, value, least in (("block_size", block_size, 1), ("split_every", split_every, 2)):
        if value is None and name == "block_size":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an int >= {least}, got {value!r}")
    if errors not in ERRORS:
        raise ValueError(
            f"errors must be one of {ERRORS}, got {errors!r}: other policies (such as "
            "'ignore') can join the text around bad bytes into other pre-tokens"
        )
    if errors == "replace" and any("\ufffd" in name for name in names):
        raise ValueError("errors='replace' needs special tokens without U+FFFD in them")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds > 0, got {timeout!r}")


@contextmanager
def _connected(client: Client | str | None, n_workers, timeout: float) -> Iterator[Client]:
    """A client with at least one worker: the caller's, or one made (and closed) here."""
    if isinstance(client, Client):
        _wait_for_a_worker(client, timeout)
        yield client
    elif isinstance(client, str):
        try:
            connected = Client(client, timeout=timeout)
        except OSError as error:
            raise ConnectionError(
                f"could not reach a Dask scheduler at {client!r} within {timeout:g} s "
                f"({error}). Check the address (a scheduler prints it when it starts: "
                "'Scheduler at: tcp://...'), that it runs and that this machine may connect "
                "to its port; or pass client=None to count on a local cluster"
            ) from error
        with connected:
            _wait_for_a_worker(connected, timeout)
            yield connected
    elif client is None:
        with local_cluster(n_workers) as cluster, Client(cluster, timeout=timeout) as made:
            yield made
    else:
        raise TypeError(
            f"client must be a distributed.Client, a scheduler address or None, got {client!r}"
        )


def _wait_for_a_worker(client: Client, timeout: float) -> None:
    """Return once the scheduler has a worker; a TimeoutError that says so after ``timeout``."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        address = client.scheduler.address
        raise TimeoutError(
            f"the Dask scheduler at {address} has no worker after {timeout:g} s: start some "
            f"(dask worker {address}) or scale the cluster up"
        ) from None


def _count(client, plan, pattern, names, errors, split_every, progress) -> dict:
    """Submit a task per block and the tree that adds their tables; the final table."""
    run = uuid.uuid4().hex  # keys of this call only, whatever else the cluster runs
    counted = [
        client.submit(count_block, path, block, pattern, names, errors, key=f"count-{run}-{i}")
        for i, (path, block) in enumerate(plan)
    ]
    level, depth = counted, 0
    while len(level) > 1:  # consecutive groups, so file order is kept
        level = [
            client.submit(add_tables, *level[i : i + split_every], key=f"add-{run}-{depth}-{i}")
            for i in range(0, len(level), split_every)
        ]
        depth += 1
    try:
        if progress is not None:
            progress(client, level[0])
        return level[0].result().counts
    except Exception as error:
        raise _first_failure(counted, plan, error) from None


def _first_failure(counted: Sequence[Future], plan, error: Exception) -> Exception:
    """The error of the first block in file order that failed (``error`` if none did).

    Blocks fail independently, so which error reaches the driver first depends on timing;
    reporting the first failed block in the file does not.
    """
    wait(counted)
    for future, (path, (start, end)) in zip(counted, plan):
        if future.status != "error":
            continue
        failure = future.exception()
        if isinstance(failure, KilledWorker):
            return BlockCountError(
                f"{path}, bytes {start} to {end}: every worker that counted this block died "
                f"({failure.allowed_failures + 1} in all), so Dask gave up on it. The worker "
                "logs say why (often memory: use a smaller block_size)"
            )
        if isinstance(failure, OSError):
            return BlockCountError(
                f"{path}, bytes {start} to {end}: a worker could not read it ({failure}). "
                "Every worker must see each file at the same path (a shared file system)"
            )
        return failure
    if isinstance(error, KilledWorker):
        return BlockCountError(
            f"adding up the blocks' tables killed {error.allowed_failures + 1} workers; "
            "the worker logs say why (often memory: the tables outgrow a worker)"
        )
    return error
