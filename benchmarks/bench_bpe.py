"""The book's fast BPE against Hugging Face ``tokenizers`` and tiktoken, measured in one run.

    python benchmarks/bench_bpe.py            # the full table (several minutes, 2 cores)
    python benchmarks/bench_bpe.py --quick    # small sizes, to check that it runs

Each row times the book and a library on the same input, in this process or in child
processes started the same way, and prints the ratio: ratios, unlike seconds, carry over
between machines. Where the results must agree (ids of an encoder), they are checked first.

- training: ``train_bpe`` (workers 1 and 2) against ``tokenizers``' ``BpeTrainer`` (one thread
  and all), 1,000 merges on English and on code, as "book time / tokenizers time";
- encoding English with cl100k ranks: ``RegexTokenizer.encode_ordinary`` with a fresh cache
  and a warm one, against tiktoken on one thread, as "share of tiktoken's speed";
- one 64K-character piece: book and tiktoken, in seconds;
- streaming a file with ``encode_iterable`` in a child process: throughput, and peak resident
  memory above the memory before streaming, for a small and a 10 times bigger file;
- counting the pre-tokens of a 100 MB file of English and code (how many distinct is
  printed): one process, ``multiprocessing`` (2 processes), and Dask with 1 and 2 workers
  (clusters started beforehand), as speed relative to one process; and in child processes,
  the peak memory of the one process against that of Dask's driver.

Texts, all on this machine, nothing downloaded: English is the book's plays and Python
documentation plus the descriptions of the installed packages, repeated to the size asked
(how much of it is distinct is printed); code is the Python standard library's own source.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from book import corpora
from book.encodings import get_encoding
from book.tokenizers import RegexTokenizer, train_bpe
from book.tokenizers.bpe.dask_counts import dask_chunk_counts, local_cluster
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN
from book.tokenizers.bpe.train import file_chunk_counts

MERGES = 1000


def best_times(runs: list[Callable[[], Any]], repeat: int) -> list[float]:
    """The fastest of ``repeat`` runs of each, in seconds, the runs taken in turn.

    Taking turns (a, b, a, b, ...) exposes both to the same disturbances from other work on
    the machine, and the minimum is the run least disturbed.
    """
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, spent in zip(runs, times):
            gc.collect()
            start = time.perf_counter()
            run()
            spent.append(time.perf_counter() - start)
    return [min(spent) for spent in times]


def english_sources() -> list[str]:
    """English prose found here: the plays, Python's documentation, package descriptions."""
    texts = [corpora.english(), corpora.technical()]
    import pydoc_data.topics

    texts.extend(pydoc_data.topics.topics.values())
    site = Path(sysconfig.get_paths()["purelib"])
    for metadata in sorted(site.glob("*.dist-info/METADATA")):
        body = metadata.read_text(encoding="utf-8", errors="replace").partition("\n\n")[2]
        if body.strip():
            texts.append(body)
    return texts


def code_sources() -> list[str]:
    """Python code found here: the standard library's modules (tests left out), in path order."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    paths = sorted(p for p in stdlib.rglob("*.py") if "test" not in p.parts)
    return [p.read_text(encoding="utf-8", errors="replace") for p in paths]


def sized(texts: list[str], size: int) -> tuple[str, int]:
    """``size`` characters from the texts in order, repeated if needed; and how many distinct."""
    joined = "\n".join(texts)
    distinct = min(size, len(joined))
    return (joined * (size // len(joined) + 1))[:size], distinct


def hugging_face_train(path: Path, parallel: bool) -> float:
    """Seconds for ``tokenizers``' BPE trainer: GPT-2's split and byte alphabet, 1,000 merges."""
    os.environ["TOKENIZERS_PARALLELISM"] = "true" if parallel else "false"
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=256 + MERGES,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    start = time.perf_counter()
    tokenizer.train([str(path)], trainer)
    elapsed = time.perf_counter() - start
    assert tokenizer.get_vocab_size() == 256 + MERGES
    return elapsed


def training_rows(sizes: list[int], folder: Path) -> list[list[str]]:
    """Training on English and code: book workers 1 and 2 against tokenizers 1 and all threads."""
    rows = []
    for name, sources in (("English", english_sources()), ("code", code_sources())):
        for size in sizes:
            text, distinct = sized(sources, size)
            path = folder / f"{name}-{size}.txt"
            path.write_text(text, encoding="utf-8")
            for workers in (1, 2):
                start = time.perf_counter()
                vocab, merges = train_bpe(path, 256 + MERGES, [], workers=workers)
                book = time.perf_counter() - start
                assert len(merges) == MERGES
                theirs = hugging_face_train(path, parallel=workers > 1)
                label = f"train {name}, {size / 1e6:g} M chars ({distinct / 1e6:.2g} M distinct)"
                threads = "1 thread" if workers == 1 else "all threads"
                rows.append(
                    [
                        f"{label}, workers={workers} vs {threads}",
                        f"{book:.2f} s",
                        f"{theirs:.2f} s",
                        f"{book / theirs:.2f}x the time",
                    ]
                )
    return rows


def encoding_rows(n_bytes: int, repeat: int) -> list[list[str]]:
    """Encoding English with cl100k: book (fresh and warm cache) against tiktoken, one thread."""
    theirs = get_encoding("cl100k_base")
    loaded = RegexTokenizer.from_tiktoken(theirs)
    text, _ = sized(english_sources(), n_bytes)
    text = text.encode("utf-8")[:n_bytes].decode("utf-8", "ignore")
    assert loaded.encode_ordinary(text) == theirs.encode_ordinary(text)

    def fresh() -> None:
        loaded._cache.clear()
        loaded.encode_ordinary(text)

    tiktoken_time, fresh_time = best_times([lambda: theirs.encode_ordinary(text), fresh], repeat)
    loaded.encode_ordinary(text)
    warm_time, tiktoken_time_2 = best_times(
        [lambda: loaded.encode_ordinary(text), lambda: theirs.encode_ordinary(text)], repeat
    )
    tiktoken_time = min(tiktoken_time, tiktoken_time_2)
    (split_time,) = best_times([lambda: loaded.split(text)], repeat)
    label = f"encode {len(text.encode()) / 1e6:g} MB English, cl100k"
    rows = [
        [
            f"{label}, fresh cache",
            f"{fresh_time:.3f} s",
            f"{tiktoken_time:.3f} s",
            f"{tiktoken_time / fresh_time:.0%} of tiktoken's speed",
        ],
        [
            f"{label}, warm cache",
            f"{warm_time:.3f} s",
            f"{tiktoken_time:.3f} s",
            f"{tiktoken_time / warm_time:.0%} of tiktoken's speed",
        ],
        # Every encoder built on the regex module pays this: it bounds the warm-cache ratio.
        [
            f"{label}, the split alone (regex findall)",
            f"{split_time:.3f} s",
            f"{tiktoken_time:.3f} s",
            f"{tiktoken_time / split_time:.0%} of tiktoken's speed",
        ],
    ]
    piece = ("Tokenization" * 6000)[:65_536]  # letters only: one chunk of 64K characters
    assert loaded.split(piece) == [piece]
    assert loaded.encode_ordinary(piece) == theirs.encode_ordinary(piece)
    book_piece, tiktoken_piece = best_times(
        [
            lambda: (loaded._cache.clear(), loaded.encode_ordinary(piece)),
            lambda: theirs.encode_ordinary(piece),
        ],
        repeat,
    )
    rows.append(
        [
            "one 64K-character piece, cl100k",
            f"{book_piece:.3f} s",
            f"{tiktoken_piece:.3f} s",
            f"{book_piece / tiktoken_piece:.1f}x the time",
        ]
    )
    return rows


# Each measurement of memory runs in a fresh process, as a script made by ``measured``.
# Linux resets the peak resident size when "5" is written to /proc/self/clear_refs, so VmHWM
# afterwards is the peak during the work; elsewhere the lifetime peak (ru_maxrss) is all
# there is, which loading the tokenizer may dominate. The work prints its results as JSON,
# with the growth of the peak above the memory before it.
PEAK_BEFORE = """
import json, resource, sys, time
import psutil
before = psutil.Process().memory_info().rss
try:
    open("/proc/self/clear_refs", "w").write("5")
    reset = True
except OSError:
    reset = False
"""
PEAK_AFTER = """
if reset:
    status = open("/proc/self/status").read()
    peak = int(status.split("VmHWM:")[1].split()[0]) * 1024
else:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
result["growth"] = peak - before
print(json.dumps(result))
"""


def measured(setup: str, work: str) -> str:
    """A script that runs ``setup``, then ``work`` with the growth of its peak memory."""
    return "\n".join([setup, PEAK_BEFORE, work, PEAK_AFTER])


STREAM = measured(
    """
from book.tokenizers import RegexTokenizer
tok = RegexTokenizer.from_tiktoken("cl100k_base")
tok.encode_ordinary("warm up " * 10)
""",
    """
start = time.perf_counter()
with open(sys.argv[1], encoding="utf-8", newline="") as lines:
    n = sum(1 for _ in tok.encode_iterable(lines))
result = {"ids": n, "seconds": time.perf_counter() - start}
""",
)


def in_child(script: str, *args: str) -> dict:
    """What ``script`` prints (JSON), run by this Python in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def streaming_rows(sizes: list[int], folder: Path) -> list[list[str]]:
    """Streaming files of two sizes in a child process: throughput and memory growth."""
    rows, growth = [], {}
    for size in sizes:
        path = folder / f"stream-{size}.txt"
        megabytes = write_sized(path, size)
        result = in_child(STREAM, str(path))
        growth[size] = result["growth"]
        rows.append(
            [
                f"stream a {megabytes:.0f} MB file (encode_iterable, cl100k)",
                f"{result['seconds']:.1f} s",
                f"{megabytes / result['seconds']:.2f} MB/s",
                f"peak RSS +{result['growth'] / 1e6:.0f} MB",
            ]
        )
    small, big = sizes
    rows.append(
        [
            f"peak RSS growth from {small / 1e6:g} MB to {big / 1e6:g} MB",
            "",
            "",
            f"{(growth[big] - growth[small]) / 1e6:+.0f} MB",
        ]
    )
    return rows


def write_sized(path: Path, size: int, texts: list[str] | None = None) -> float:
    """A file of about ``size`` bytes: ``texts`` (1 MB of English if None), repeated; its MB."""
    unit, _ = sized(english_sources(), 1_000_000) if texts is None else sized(texts, size)
    with open(path, "w", encoding="utf-8") as file:
        for _ in range(max(1, size // len(unit))):
            file.write(unit)
    return path.stat().st_size / 1e6


def counting_rows(path: Path, repeat: int) -> list[list[str]]:
    """Counting pre-tokens: one process, multiprocessing and Dask, as ratios to one process."""
    from distributed import Client

    expected = list(file_chunk_counts(path, GPT2_PATTERN, [], workers=1).items())
    with (
        local_cluster(1) as cluster_1,
        Client(cluster_1) as dask_1,
        local_cluster(2) as cluster_2,
        Client(cluster_2) as dask_2,
    ):
        for client in (dask_1, dask_2):
            assert list(dask_chunk_counts(path, client=client).items()) == expected
        times = best_times(
            [
                lambda: file_chunk_counts(path, GPT2_PATTERN, [], workers=1),
                lambda: file_chunk_counts(path, GPT2_PATTERN, [], workers=2),
                lambda: dask_chunk_counts(path, client=dask_1),
                lambda: dask_chunk_counts(path, client=dask_2),
            ],
            repeat,
        )
    labels = ["one process", "multiprocessing, 2 processes", "Dask, 1 worker", "Dask, 2 workers"]
    label = f"count {path.stat().st_size / 1e6:.0f} MB ({len(expected):,} distinct pre-tokens)"
    return [
        [f"{label}, {name}", f"{seconds:.1f} s", f"{times[0] / seconds:.2f}x the speed"]
        for name, seconds in zip(labels, times)
    ]


# Dask's driver starts a local cluster of 2 workers (other processes; the driver's process
# also runs the cluster's scheduler) before its memory is measured.
COUNT = measured(
    """
import pickle, sys
from distributed import Client
from book.tokenizers.bpe.train import file_chunk_counts
from book.tokenizers.bpe.dask_counts import dask_chunk_counts, local_cluster
from book.tokenizers.bpe.patterns import GPT2_PATTERN
path, how = sys.argv[1], sys.argv[2]
cluster = local_cluster(2) if how == "dask" else None
client = Client(cluster) if cluster else None
""",
    """
if client:
    counts = dask_chunk_counts(path, client=client)
else:
    counts = file_chunk_counts(path, GPT2_PATTERN, [], workers=1)
result = {"table": len(pickle.dumps(counts))}
""",
)


def counting_memory_rows(path: Path) -> list[list[str]]:
    """Peak memory while counting a file: one process, and the driver of Dask's 2 workers."""
    rows = []
    for how, name in (("one", "one process"), ("dask", "Dask's driver (2 workers)")):
        result = in_child(COUNT, str(path), how)
        rows.append(
            [
                f"count {path.stat().st_size / 1e6:.0f} MB, {name}",
                f"peak RSS +{result['growth'] / 1e6:.0f} MB",
                f"{result['table'] / 1e6:.1f} MB",
            ]
        )
    return rows


def print_table(title: str, rows: list[list[str]], header: list[str]) -> None:
    """Rows as an aligned text table."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    print(f"\n{title}")
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, to check it runs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.quick:
        train_sizes, encode_bytes, stream_sizes = [100_000], 100_000, [1_000_000, 3_000_000]
        count_size = 3_000_000
    else:
        train_sizes, encode_bytes = [1_000_000, 10_000_000], 1_000_000
        stream_sizes = [10_000_000, 100_000_000]
        count_size = 100_000_000
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; GPT-2's split for training")
    with tempfile.TemporaryDirectory() as folder:
        print_table(
            "Training 1,000 merges (book train_bpe vs tokenizers BpeTrainer)",
            training_rows(train_sizes, Path(folder)),
            ["", "book", "tokenizers", "ratio"],
        )
        print_table(
            "Encoding (book RegexTokenizer vs tiktoken, one thread; identical ids)",
            encoding_rows(encode_bytes, args.repeat),
            ["", "book", "tiktoken", "ratio"],
        )
        print_table(
            "Streaming (book encode_iterable, in a child process)",
            streaming_rows(stream_sizes, Path(folder)),
            ["", "time", "throughput", "memory"],
        )
        counted = Path(folder) / "count.txt"
        write_sized(counted, count_size, english_sources() + code_sources())
        print_table(
            "Counting pre-tokens (file_chunk_counts vs dask_chunk_counts; identical counts)",
            counting_rows(counted, args.repeat),
            ["", "time", "vs one process"],
        )
        print_table(
            "Memory while counting (in a child process; the table as the driver receives it)",
            counting_memory_rows(counted),
            ["", "memory", "table, pickled"],
        )
    print(f"\n(split patterns: training {GPT2_PATTERN[:12]}..., encoding {CL100K_PATTERN[:12]}...)")


if __name__ == "__main__":
    main()
