"""How much faster the book's fast BPE code is than the obvious code, measured in one process.

    python benchmarks/bench_bpe.py            # the book's corpus (about a minute)
    python benchmarks/bench_bpe.py --quick    # a small slice, to check that it runs

Each row times a baseline and a contender on the same input in this process (best of
``--repeat`` runs) and prints their ratio; ratios, unlike seconds, carry over between machines.
Before timing, every pair is checked to give identical results, so a speed-up never hides a
different answer.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from book import corpora
from book.encodings import get_encoding
from book.tokenizers import char_bpe
from book.tokenizers.bpe_core import joined, train_naive
from book.tokenizers.bpe_train import train_merges
from book.tokenizers.patterns import CL100K_PATTERN
from book.tokenizers.pretokenize import chunk_counts
from book.tokenizers.regex_bpe import RegexTokenizer


def best_time(run: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds (the least disturbed by other work)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def compare(
    name: str, baseline: Callable[[], Any], contender: Callable[[], Any], repeat: int
) -> None:
    """Check both give the same result, then print their times and the speed-up."""
    if baseline() != contender():
        raise AssertionError(f"{name}: the two implementations disagree")
    slow, fast = best_time(baseline, repeat), best_time(contender, repeat)
    print(f"{name:<52} {slow:8.3f} s {fast:8.3f} s {slow / fast:8.1f}×")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small slice, few merges")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    size, merges = (5_000, 20) if args.quick else (40_000, 200)
    text = corpora.english("train")[:size]
    chunks = chunk_counts(text, CL100K_PATTERN)
    print(f"{len(text):,} characters of English, {merges} merges\n")
    print(f"{'':<52} {'baseline':>10} {'contender':>10} {'speed-up':>9}")
    freqs = char_bpe.word_freqs(text)
    splits = char_bpe.initial_splits(freqs)
    words = {splits[word]: freq for word, freq in freqs.items()}
    compare(
        "char BPE: learn_merges -> train_merges",
        lambda: char_bpe.learn_merges(splits, freqs, merges)[0],
        lambda: train_merges(words, merges, joined),
        args.repeat,
    )
    compare(
        "byte BPE: train_naive -> train_merges (one sequence)",
        lambda: train_naive([text.encode()], merges),
        lambda: train_merges({text.encode(): 1}, merges),
        args.repeat,
    )
    compare(
        "regex BPE: train_naive on chunks -> train_merges",
        lambda: train_naive([c for c, n in chunks.items() for _ in range(n)], merges),
        lambda: train_merges(chunks, merges),
        args.repeat,
    )
    heldout = corpora.english("heldout")[: size * 2]
    ours, theirs = RegexTokenizer.from_tiktoken("cl100k_base"), get_encoding("cl100k_base")
    # Here the contender is tiktoken's Rust encoder: the ratio says how far the book's Python trails.
    compare(
        "cl100k encode: book (fresh cache) vs tiktoken",
        lambda: RegexTokenizer(ours.merges, ours.pattern, byte_ids=ours.byte_ids).encode_ordinary(
            heldout
        ),
        lambda: theirs.encode_ordinary(heldout),
        args.repeat,
    )


if __name__ == "__main__":
    main()
