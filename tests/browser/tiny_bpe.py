"""A tiny character-level BPE (Sennrich style, with ``</w>``) to drive the stepper's tests.

The book's own tokenizers live in ``book.tokenizers``; this stand-in keeps the stepper's tests
independent of them, and is small enough for the fixture book to import too.

    >>> TinyBPE.train("hug hug pug", n_merges=2).merges
    [(('u', 'g</w>'), 'ug</w>', 3), (('h', 'ug</w>'), 'hug</w>', 2)]
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from book.tokenizers.bpe.trace import Step, initial_step

Pair = tuple[str, str]

# The fixture book's example: the classic hug/pug/pun/bun/hugs word counts.
FIXTURE_CORPUS = " ".join(["hug"] * 10 + ["pug"] * 5 + ["pun"] * 12 + ["bun"] * 4 + ["hugs"] * 5)
FIXTURE_TEXT = "hugs bun pug hug pun"
FIXTURE_MERGES = 8
# The training stepper's corpus: rounds with a tie (merges 3 and 5) and without one.
TRAINING_CORPUS = "hug hug hug pug pug pun pun pun bun hugs"


def split_word(word: str) -> tuple[str, ...]:
    """A word as characters, the last one carrying the end-of-word marker: ``h u g</w>``."""
    return (*word[:-1], word[-1] + "</w>")


def merge_pair(symbols: tuple, pair: tuple, new: str | bytes) -> tuple:
    """Replace every occurrence of ``pair`` (left to right) with ``new``."""
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if symbols[i : i + 2] == pair:
            out.append(new)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


class TinyBPE:
    """Merges learned from word counts; ``trace`` replays them on a text."""

    def __init__(self, merges: list[tuple[Pair, str, int]]) -> None:
        self.merges = merges

    @classmethod
    def train(cls, corpus: str, n_merges: int) -> TinyBPE:
        """Learn ``n_merges`` merges; ties go to the pair seen first (``max`` keeps order)."""
        splits = {word: split_word(word) for word in corpus.split()}
        word_freqs = Counter(corpus.split())
        merges = []
        for _ in range(n_merges):
            counts: Counter[Pair] = Counter()
            for word, symbols in splits.items():
                for pair in pairwise(symbols):
                    counts[pair] += word_freqs[word]
            if not counts:
                break
            pair = max(counts, key=counts.get)
            new = pair[0] + pair[1]
            splits = {word: merge_pair(symbols, pair, new) for word, symbols in splits.items()}
            merges.append((pair, new, counts[pair]))
        return cls(merges)

    def trace(self, text: str) -> list[Step]:
        """The segmentation of ``text`` before any merge and after each merge that changes it."""
        words = [split_word(word) for word in text.split()]
        steps = [initial_step(tuple(p for word in words for p in word))]
        for rank, (pair, new, count) in enumerate(self.merges):
            merged = [merge_pair(word, pair, new) for word in words]
            if merged != words:
                words = merged
                steps.append(Step(rank, pair, new, count, tuple(p for word in words for p in word)))
        return steps


def fixture_tokenizer() -> TinyBPE:
    """The tokenizer the fixture book's stepper shows."""
    return TinyBPE.train(FIXTURE_CORPUS, FIXTURE_MERGES)


# A byte-level example whose first merges split multi-byte characters: hex chips on the page.
BYTE_FIXTURE_TEXT = "你好 你好 héllo"
BYTE_FIXTURE_MERGES = 6


class TinyByteBPE:
    """Byte-level BPE learned on one text, no pre-tokenization; pieces are ``bytes``."""

    def __init__(self, merges: list[tuple[tuple[bytes, bytes], bytes, int]]) -> None:
        self.merges = merges

    @classmethod
    def train(cls, corpus: str, n_merges: int) -> TinyByteBPE:
        """Learn ``n_merges`` merges over the corpus's UTF-8 bytes (first seen wins ties)."""
        symbols = tuple(bytes([b]) for b in corpus.encode("utf-8"))
        merges = []
        for _ in range(n_merges):
            counts = Counter(pairwise(symbols))
            if not counts:
                break
            pair = max(counts, key=counts.get)
            merges.append((pair, pair[0] + pair[1], counts[pair]))
            symbols = merge_pair(symbols, pair, pair[0] + pair[1])
        return cls(merges)

    def trace(self, text: str) -> list[Step]:
        """The byte segmentation of ``text`` initially and after each merge that changes it."""
        symbols = tuple(bytes([b]) for b in text.encode("utf-8"))
        steps = [initial_step(symbols)]
        for rank, (pair, new, count) in enumerate(self.merges):
            merged = merge_pair(symbols, pair, new)
            if merged != symbols:
                symbols = merged
                steps.append(Step(rank, pair, new, count, symbols))
        return steps


def byte_fixture_tokenizer() -> TinyByteBPE:
    """The byte-level tokenizer the fixture book's second stepper shows."""
    return TinyByteBPE.train(BYTE_FIXTURE_TEXT, BYTE_FIXTURE_MERGES)
