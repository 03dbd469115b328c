"""Counting on a Dask cluster gives exactly the single-process counts, and the same merges.

Every cluster here is a ``local_cluster``: worker processes of this machine that listen on the
loopback address only (a test checks it). Each is shut down by its context manager, whatever
the test does, and every test has a time limit (pytest-timeout), so none can hang.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import dask
import pytest
import regex
from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin
from distributed.diagnostics.progressbar import MultiProgressWidget
from distributed.protocol import dumps, loads, to_serialize
from hypothesis import given
from hypothesis import strategies as st
from parity_corpus import TEXTS

from book import corpora
from book.show.dask_progress import dask_progress, finished_bars
from book.tokenizers import train_bpe
from book.tokenizers.bpe.blocks import NotUTF8Error
from book.tokenizers.bpe.dask_counts import (
    LOOPBACK,
    BlockCountError,
    Table,
    _count,
    dask_chunk_counts,
    local_cluster,
    matching_files,
    train_bpe_dask,
)
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from book.tokenizers.bpe.pretokenize import training_chunk_counts
from book.tokenizers.bpe.train import add_counts, file_chunk_counts

pytestmark = pytest.mark.timeout(180)  # a cluster test that hangs fails instead

EOT = "<|endoftext|>"
NAMES = [EOT, "<|a|>", "<|a|><|b|>"]  # one special token's text begins another's
PATTERNS = [GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, r"\S+|\s+"]  # the last: no safe cut


@pytest.fixture(scope="module")
def client():
    with local_cluster(2) as cluster, Client(cluster) as connected:
        yield connected


def write(folder: Path, texts: list[str]) -> str:
    """The texts as files part-000.txt, part-001.txt, ... (in name order); their glob."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, text in enumerate(texts):
        (folder / f"part-{i:03d}.txt").write_bytes(text.encode("utf-8"))
    return str(folder / "part-*.txt")


def one_process(texts: list[str], pattern: str, names) -> dict[bytes, int]:
    """The counts of each text alone, added up in order: what the cluster must give."""
    counts: dict[bytes, int] = {}
    for text in texts:
        add_counts(counts, training_chunk_counts(text, pattern, names))
    return counts


def test_the_cluster_listens_on_the_loopback_only(client):
    addresses = [client.scheduler.address, *client.scheduler_info()["workers"]]
    assert len(addresses) == 3
    assert all(address.startswith(f"tcp://{LOOPBACK}:") for address in addresses)
    assert client.dashboard_link.startswith(f"http://{LOOPBACK}:")


# --- equal to the single-process counts --------------------------------------------------------

PIECES = [" ", "   ", "\t", "\n", "\r\n", "\u3000", "a", "Bc", "é", "中", "🙂", "1", "234"]
PIECES += ["'s", "!", ".", "\u0301", *NAMES, "<|", "|>"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@given(
    texts=st.lists(TEXT, min_size=1, max_size=3),
    pattern=st.sampled_from(PATTERNS),
    names=st.sampled_from([[], [EOT], NAMES]),
    block_size=st.integers(1, 24),
    split_every=st.integers(2, 4),
)
def test_counts_equal_one_process_for_any_blocks(
    client, tmp_path_factory, texts, pattern, names, block_size, split_every
):
    files = write(tmp_path_factory.mktemp("texts"), texts)
    counts = dask_chunk_counts(
        files, pattern, names, client=client, block_size=block_size, split_every=split_every
    )
    assert list(counts.items()) == list(one_process(texts, pattern, names).items())


BYTES = st.lists(
    st.sampled_from([b" ", b"  ", b"a", b"\xc3\xa9", b"\xe2\x82", b"\xff", b"\x80", EOT.encode()]),
    max_size=40,
).map(b"".join)


@given(data=BYTES, block_size=st.integers(1, 16))
def test_errors_replace_counts_as_the_whole_file_decoded_with_replace(
    client, tmp_path_factory, data, block_size
):
    path = tmp_path_factory.mktemp("bytes") / "bad.txt"
    path.write_bytes(data)
    counts = dask_chunk_counts(
        path, GPT2_PATTERN, [EOT], client=client, block_size=block_size, errors="replace"
    )
    expected = training_chunk_counts(data.decode("utf-8", "replace"), GPT2_PATTERN, [EOT])
    assert list(counts.items()) == list(expected.items())


@pytest.mark.slow  # whole corpora, or clusters of its own: make test runs it
def test_the_books_corpora_give_the_same_counts_and_merges(client, tmp_path):
    texts = [corpora.english("train"), corpora.english("heldout"), corpora.technical()]
    texts += [corpora.code("python"), corpora.code("c")]
    glob = write(tmp_path, texts)
    for path in sorted(tmp_path.glob("part-*.txt")):
        single = train_bpe(path, 256 + 300, [EOT], workers=1)
        assert train_bpe_dask(path, 256 + 300, [EOT], client=client, block_size=4096) == single
    joined = tmp_path / "joined.txt"  # the files as documents of one file
    joined.write_text(EOT.join(texts), encoding="utf-8")
    expected = file_chunk_counts(joined, GPT2_PATTERN, [EOT], workers=1)
    counts = dask_chunk_counts(glob, GPT2_PATTERN, [EOT], client=client, block_size=8192)
    assert list(counts.items()) == list(expected.items())
    for tie_break in ("first", "lexicographic"):
        single = train_bpe(joined, 256 + 500, [EOT], workers=1, tie_break=tie_break)
        assert train_bpe_dask(glob, 256 + 500, [EOT], client=client, tie_break=tie_break) == single


@pytest.mark.slow  # whole corpora, or clusters of its own: make test runs it
def test_varied_documents_in_many_small_blocks(client, tmp_path):
    texts = [text for text in TEXTS if text]
    files = write(tmp_path, texts)
    for pattern in PATTERNS:
        counts = dask_chunk_counts(files, pattern, [EOT], client=client, block_size=64)
        assert list(counts.items()) == list(one_process(texts, pattern, [EOT]).items())


@pytest.mark.slow  # whole corpora, or clusters of its own: make test runs it
def test_a_scheduler_address_and_the_default_local_cluster_count_the_same(client, tmp_path):
    files = write(tmp_path, ["one two three", "three four"])
    expected = one_process(["one two three", "three four"], GPT2_PATTERN, [])
    address = client.scheduler.address
    assert dask_chunk_counts(files, client=address, block_size=4) == expected
    assert dask_chunk_counts(files, n_workers=1, block_size=4) == expected


def test_progress_shows_dasks_bar(client, tmp_path, capsys):
    files = write(tmp_path, ["one two three"] * 3)
    dask_chunk_counts(files, client=client, block_size=4, progress=dask_progress)
    assert "| 100% Completed |" in capsys.readouterr().out


def test_the_static_copy_reads_where_the_widgets_bars_ended(client):
    # What a page without widget scripts shows in place of the bars (book.show.fallback).
    parts = [client.submit(len, "abc", key=f"part-{i}") for i in range(3)]
    total = client.submit(sum, parts, key="total-0")
    bar = MultiProgressWidget([total], scheduler=client.scheduler.address, complete=True)
    client.sync(bar.listen)
    assert finished_bars(bar) == {"part": (3, 3), "total": (1, 1)}


def test_a_table_crosses_dask_as_one_pickled_frame_whatever_its_size():
    for size in (10, 10_000):
        table = Table({str(i).encode(): i for i in range(size)})
        frames = dumps({"result": to_serialize(table)})
        assert len(frames) <= 4  # a dict would take a frame per count
        assert loads(frames)["result"].counts == table.counts


def test_empty_files_count_nothing(client, tmp_path):
    assert dask_chunk_counts(write(tmp_path, ["", ""]), client=client) == {}


# --- bad input -----------------------------------------------------------------------------------


def test_globs_that_match_nothing_a_folder_or_an_unreadable_file_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no file matches '.*nothing-\*\.txt'"):
        matching_files(str(tmp_path / "nothing-*.txt"))
    with pytest.raises(ValueError, match="no glob given"):
        matching_files([])
    (tmp_path / "sub").mkdir()
    with pytest.raises(IsADirectoryError, match=r"sub is a folder: the glob must match text"):
        matching_files(str(tmp_path / "*"))
    (tmp_path / "sub" / "gone.txt").symlink_to(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match=r"must be readable: '.*gone\.txt'"):
        matching_files(str(tmp_path / "sub" / "*.txt"))
    (tmp_path / "b.txt").write_text("b")
    (tmp_path / "a.txt").write_text("a")
    both = matching_files([str(tmp_path / "*.txt"), tmp_path / "a.txt"])
    assert [path.name for path in both] == ["a.txt", "b.txt"]  # sorted, each once


def test_bytes_that_are_not_utf8_name_the_file_and_the_first_offset(client, tmp_path):
    good = tmp_path / "a-good.txt"
    good.write_text("fine text " * 50)
    bad = tmp_path / "b-bad.txt"
    data = ("first line\nsecond, café " + "filler " * 100 + "\nthird é").encode("latin-1")
    bad.write_bytes(data)
    offset = data.index(b"\xe9")
    for block_size in (16, 100_000):  # the two bad bytes in different blocks, or in one
        with pytest.raises(NotUTF8Error, match=rf"b-bad\.txt: byte {offset} \(line 2\)"):
            dask_chunk_counts(str(tmp_path / "*.txt"), client=client, block_size=block_size)


def test_a_scheduler_that_cannot_be_reached_is_an_error_within_the_timeout(tmp_path):
    with socket.socket() as free:  # a port of this machine that nothing listens on
        free.bind((LOOPBACK, 0))
        address = f"tcp://{LOOPBACK}:{free.getsockname()[1]}"
    files = write(tmp_path, ["text"])
    with pytest.raises(ConnectionError, match=rf"could not reach a Dask scheduler at .*{address}"):
        dask_chunk_counts(files, client=address, timeout=1)


def test_a_scheduler_without_workers_is_an_error_within_the_timeout(tmp_path):
    files = write(tmp_path, ["text"])
    with (
        LocalCluster(
            n_workers=0, host=LOOPBACK, protocol="tcp://", dashboard_address=f"{LOOPBACK}:0"
        ) as empty,
        pytest.raises(TimeoutError, match=r"has no worker after 1 s: start some"),
    ):
        dask_chunk_counts(files, client=empty.scheduler_address, timeout=1)


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"errors": "ignore"}, ValueError, "errors must be one of"),
        ({"errors": "replace", "special_tokens": ["\ufffd"]}, ValueError, "without U\\+FFFD"),
        ({"block_size": 0}, ValueError, "block_size must be an int >= 1"),
        ({"split_every": 1}, ValueError, "split_every must be an int >= 2"),
        ({"timeout": 0}, ValueError, "timeout must be a number of seconds > 0"),
        ({"client": "tcp://127.0.0.1:1", "n_workers": 2}, ValueError, "n_workers sizes the"),
        ({"client": 3}, TypeError, "client must be a distributed.Client"),
        ({"pattern": "(unclosed"}, regex.error, "missing \\)"),
    ],
)
def test_bad_options_fail_before_any_cluster_is_used(tmp_path, options, error, message):
    files = write(tmp_path, ["text"])
    with pytest.raises(error, match=message):
        dask_chunk_counts(files, **options)


def test_training_options_fail_before_counting(tmp_path):
    files = write(tmp_path, ["text"])
    with pytest.raises(ValueError, match=r"vocab_size must be an int >= 257"):
        train_bpe_dask(files, 256, [EOT], client="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="tie_break must be"):
        train_bpe_dask(files, 300, [EOT], client="tcp://127.0.0.1:1", tie_break="random")


def test_a_block_a_worker_cannot_read_is_named(client, tmp_path):
    missing = str(tmp_path / "vanished.txt")
    with pytest.raises(BlockCountError, match=r"vanished\.txt, bytes 0 to 10: a worker could"):
        _count(client, [(missing, (0, 10))], GPT2_PATTERN, (), "strict", 8, False)


# --- workers that die --------------------------------------------------------------------------


def killer(marker: str, once: bool, block: int):
    """A worker plugin that ends its worker's process when it starts counting ``block``.

    With ``once``, only the first time (a marker file says it happened), so Dask's retry on
    another worker succeeds; otherwise every time. Made in a function so that cloudpickle
    sends the class itself to the workers.
    """

    class Killer(WorkerPlugin):
        def transition(self, key, start, finish, **kwargs):
            if finish != "executing" or not str(key).startswith("count-"):
                return
            if not str(key).endswith(f"-{block}"):
                return
            if once:
                try:
                    os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
                except FileExistsError:
                    return
            os._exit(1)

    return Killer()


@pytest.fixture
def fragile_client():
    """A cluster of its own (workers die in these tests) where a task may kill one worker."""
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        local_cluster(2) as cluster,
        Client(cluster) as connected,
    ):
        yield connected


@pytest.mark.slow  # whole corpora, or clusters of its own: make test runs it
def test_a_worker_that_dies_mid_count_is_replaced_and_the_counts_are_exact(
    fragile_client, tmp_path
):
    texts = [text for text in TEXTS if text]
    files = write(tmp_path / "texts", texts)
    fragile_client.register_plugin(killer(str(tmp_path / "died"), once=True, block=3))
    counts = dask_chunk_counts(files, GPT2_PATTERN, [EOT], client=fragile_client, block_size=256)
    assert (tmp_path / "died").exists()  # a worker did die
    assert list(counts.items()) == list(one_process(texts, GPT2_PATTERN, [EOT]).items())


@pytest.mark.slow  # whole corpora, or clusters of its own: make test runs it
def test_a_block_that_kills_every_worker_is_named(fragile_client, tmp_path):
    files = write(tmp_path, ["one two three four five six seven"])
    fragile_client.register_plugin(killer("", once=False, block=0))
    with pytest.raises(BlockCountError, match=r"part-000\.txt, bytes 0 to 7: every worker that"):
        dask_chunk_counts(files, client=fragile_client, block_size=4)
