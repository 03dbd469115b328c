"""Byte-level BPE (chapter 05): BPE on the UTF-8 bytes of a text, so every text is covered.

The 256 byte values are the starting vocabulary, so there is no unknown character: any
string encodes, including scripts and emoji never seen in training. Training merges the most
frequent adjacent pair again and again; the book's tie-break (among equally frequent pairs,
the one occurring first in the training data) is exactly what the obvious algorithm,
:func:`book.tokenizers.bpe_core.train_naive`, does. :func:`train_merges` learns the same
merges incrementally, fast enough for a corpus of a few hundred kilobytes.

>>> tok = ByteTokenizer.train("low lower lowest low", vocab_size=259)
>>> [(tok.vocab[new_id], count) for new_id, (_pair, count) in enumerate(tok.merges, 256)]
[(b'lo', 4), (b'low', 4), (b' low', 3)]
>>> tok.encode("slow")
[115, 257]
>>> tok.decode(tok.encode("naïve 🦙"))
'naïve 🦙'
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from operator import index
from pathlib import Path

from book.tokenizers.bpe_core import (
    N_BYTES,
    Merge,
    Pair,
    build_vocab,
    decode_utf8,
    get_pair_counts,
    identity_byte_ids,
    merge,
    merge_lowest_rank,
    ranks_of,
    replay_merges,
    trace_chunks,
    train_naive,
    utf8_bytes,
)
from book.tokenizers.bpe_file import read_bpe_file, write_bpe_file
from book.tokenizers.errors import BPEFileError, UnknownIdError
from book.tokenizers.trace import Step

__all__ = [
    "ByteTokenizer",
    "get_pair_counts",
    "merge",
    "build_vocab",
    "replay_merges",
    "merge_lowest_rank",
    "train_naive",
    "train_merges",
    "check_vocab_size",
]


def check_vocab_size(vocab_size: int) -> int:
    """The number of merges that reach ``vocab_size``; a clear error for impossible sizes.

    >>> check_vocab_size(300)
    44
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < N_BYTES:
        raise ValueError(
            f"vocab_size must be an int >= {N_BYTES}, got {vocab_size!r}: the vocabulary always "
            f"holds the {N_BYTES} byte tokens, and each merge adds one more. Pass {N_BYTES} + "
            f"the number of merges you want, e.g. vocab_size={N_BYTES + 256} for 256 merges."
        )
    return vocab_size - N_BYTES


class _PairIndex:
    """All chunks as one linked list of tokens, with each pair's count and positions.

    Node ``i`` starts as byte ``i`` of the chunks laid end to end; merging two nodes keeps the
    left one, so node numbers stay in text order and "first occurrence" is the smallest node
    number. A chunk seen ``n`` times is stored once with weight ``n``.
    """

    def __init__(self, chunk_counts: Mapping[Sequence[int], int]):
        self.tokens: list[int] = []
        self.weights: list[int] = []
        for chunk, count in chunk_counts.items():
            self.tokens.extend(chunk)
            self.weights.extend([count] * len(chunk))
        size = len(self.tokens)
        self.next = list(range(1, size + 1))
        self.prev = list(range(-1, size - 1))
        self.counts: dict[Pair, int] = {}
        self.where: dict[Pair, set[int]] = {}  # pair -> nodes where it starts
        self.first: dict[Pair, int] = {}  # pair -> a lower bound of its first node
        self.changed: set[Pair] = set()
        start = 0
        for chunk in chunk_counts:
            end = start + len(chunk)
            if end > start:  # no pair spans two chunks
                self.next[end - 1] = -1
                self.prev[start] = -1
            for i in range(start, end - 1):
                self._add((self.tokens[i], self.tokens[i + 1]), i)
            start = end
        self.heap = [(-count, self.first[pair], pair) for pair, count in self.counts.items()]
        heapq.heapify(self.heap)

    def _add(self, pair: Pair, node: int) -> None:
        self.counts[pair] = self.counts.get(pair, 0) + self.weights[node]
        self.where.setdefault(pair, set()).add(node)
        self.first[pair] = min(self.first.get(pair, node), node)
        self.changed.add(pair)

    def _remove(self, pair: Pair, node: int) -> None:
        self.counts[pair] -= self.weights[node]
        self.where[pair].discard(node)
        self.changed.add(pair)
        if not self.where[pair]:
            del self.counts[pair], self.where[pair], self.first[pair]

    def pop_best(self) -> tuple[Pair, int] | None:
        """The most frequent pair, first in the data among equals; ``None`` when none is left.

        Heap entries go stale (lazy deletion): an entry counts only if its count is current,
        and its first position, a lower bound, is checked against the exact one before use.
        """
        while self.heap:
            neg_count, first, pair = heapq.heappop(self.heap)
            if self.counts.get(pair) != -neg_count:
                continue
            exact = min(self.where[pair])
            if exact != first:
                self.first[pair] = exact
                heapq.heappush(self.heap, (neg_count, exact, pair))
                continue
            return pair, -neg_count
        return None

    def merge(self, pair: Pair, new_id: int) -> None:
        """Merge every occurrence of ``pair``, left to right, updating only the pairs it touches."""
        tokens, next_, prev = self.tokens, self.next, self.prev
        for node in sorted(self.where[pair]):
            if node not in self.where.get(pair, ()):  # eaten by the previous one, as in "aaa"
                continue
            right = next_[node]
            after, before = next_[right], prev[node]
            if before >= 0:
                self._remove((tokens[before], tokens[node]), before)
            self._remove(pair, node)
            if after >= 0:
                self._remove((tokens[right], tokens[after]), right)
            tokens[node], next_[node] = new_id, after
            if after >= 0:
                prev[after] = node
                self._add((new_id, tokens[after]), node)
            if before >= 0:
                self._add((tokens[before], new_id), before)
        for changed in self.changed:
            if changed in self.counts:
                heapq.heappush(self.heap, (-self.counts[changed], self.first[changed], changed))
        self.changed.clear()


def train_merges(chunk_counts: Mapping[Sequence[int], int], num_merges: int) -> list[Merge]:
    """Learn up to ``num_merges`` merges from ``{chunk ids: count}``, fast; same merges as naive.

    ``chunk_counts`` lists each distinct chunk once, in order of first occurrence, with how
    often it occurs (one whole text is ``{tuple(text.encode()): 1}``). The result equals
    ``train_naive`` on the chunks written out in that order, ties included: instead of
    recounting everything after each merge, only the pairs next to a merged one change.

    >>> train_merges({tuple(b"aaab"): 1, tuple(b"ab"): 1}, 2)
    [((97, 97), 2), ((97, 98), 2)]
    >>> train_merges({tuple(b"aaab"): 1, tuple(b"ab"): 1}, 2) == train_naive([b"aaab", b"ab"], 2)
    True
    """
    index = _PairIndex(chunk_counts)
    merges: list[Merge] = []
    for rank in range(num_merges):
        best = index.pop_best()
        if best is None:
            break
        merges.append(best)
        index.merge(best[0], N_BYTES + rank)
    return merges


class ByteTokenizer:
    """Byte-level BPE: ``merges`` (``(pair, count)`` in rank order) over the 256 byte tokens.

    Merge number ``rank`` creates id ``256 + rank``; ``byte_ids[b]`` is the id of byte ``b``
    (``b`` itself unless the tokenizer comes from elsewhere, e.g. tiktoken).

    >>> tok = ByteTokenizer([((104, 105), 3)])
    >>> tok.encode("hi!"), tok.vocab[256], tok.vocab_size
    ([256, 33], b'hi', 257)
    """

    def __init__(self, merges: Iterable[Merge] = (), byte_ids: Sequence[int] | None = None):
        self.merges: list[Merge] = [((left, right), count) for (left, right), count in merges]
        self.byte_ids = identity_byte_ids() if byte_ids is None else list(byte_ids)
        _check_model(self.byte_ids, self.merges)
        self.ranks = ranks_of(self.merges)
        self.vocab = build_vocab(self.merges, self.byte_ids)
        self._id_to_bytes = self.vocab  # what decode accepts; RegexTokenizer adds specials

    @classmethod
    def train(cls, text: str, vocab_size: int) -> ByteTokenizer:
        """Learn merges on ``text`` (one sequence of bytes) until ``vocab_size`` tokens.

        Stops early if the text runs out of pairs (then ``vocab_size`` is smaller).
        """
        num_merges = check_vocab_size(vocab_size)
        return cls(train_merges({utf8_bytes(text): 1}, num_merges))

    @property
    def vocab_size(self) -> int:
        """Number of learned tokens: 256 bytes plus one per merge."""
        return N_BYTES + len(self.merges)

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (the same as ``vocab_size`` here)."""
        return self.vocab_size

    def text_to_byte_ids(self, text: str) -> list[int]:
        """The ids of the single bytes of ``text`` (before any merge)."""
        byte_ids = self.byte_ids
        return [byte_ids[byte] for byte in utf8_bytes(text)]

    def encode(self, text: str) -> list[int]:
        """Ids of ``text``: its bytes, then the lowest-ranked pair merged until none is left.

        >>> ByteTokenizer([((104, 105), 3)]).encode("hi hi")
        [256, 32, 256]
        """
        return merge_lowest_rank(self.text_to_byte_ids(text), self.ranks)

    def encode_by_replay(self, text: str) -> list[int]:
        """Ids of ``text`` by replaying every merge in training order (same as ``encode``)."""
        return replay_merges(self.text_to_byte_ids(text), self.merges)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes that ``ids`` stand for."""
        return b"".join(self._pieces(ids))

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The text of ``ids``; invalid UTF-8 becomes U+FFFD, or raises with ``errors="strict"``.

        >>> tok = ByteTokenizer()
        >>> ids = tok.encode("é")
        >>> ids, tok.decode(ids[:1])
        ([195, 169], '\\ufffd')
        """
        return decode_utf8(self._pieces(ids), errors)

    def trace(self, text: str) -> list[Step]:
        """The pieces (bytes) of ``text`` before any merge and after each merge that changed them.

        >>> tok = ByteTokenizer([((104, 105), 3)])
        >>> [(step.rank, step.pieces) for step in tok.trace("hi!")]
        [(None, (b'h', b'i', b'!')), (0, (b'hi', b'!'))]
        """
        return trace_chunks([self.text_to_byte_ids(text)], self.merges, self.vocab)

    def save(self, path: str | Path) -> None:
        """Write the tokenizer as a plain-text file (format in :mod:`book.tokenizers.bpe_file`)."""
        write_bpe_file(path, None, {}, self.byte_ids, self.merges)

    @classmethod
    def load(cls, path: str | Path) -> ByteTokenizer:
        """Read a file written by :meth:`save`."""
        saved = read_bpe_file(path)
        if saved.pattern is not None or saved.special_tokens:
            raise BPEFileError(
                path, None,
                "this file holds a regex tokenizer (it has a split pattern or special tokens); "
                "load it with RegexTokenizer.load",
            )
        return cls(saved.merges, saved.byte_ids)

    def _pieces(self, ids: Iterable[int]) -> list[bytes]:
        """The bytes of each id; unknown ids raise a clear error."""
        ids = list(ids)
        known = self._id_to_bytes
        try:  # index() accepts ints (numpy's too) but not 1.0 or "1"
            return [known[index(token_id)] for token_id in ids]
        except (KeyError, TypeError):
            bad = next(i for i in ids if not hasattr(i, "__index__") or index(i) not in known)
            raise UnknownIdError(bad, self.n_vocab) from None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(vocab_size={self.vocab_size})"


def _check_model(byte_ids: Sequence[int], merges: Sequence[Merge]) -> None:
    """Reject byte orders and merges that would make ids ambiguous or undefined."""
    if sorted(byte_ids) != identity_byte_ids():
        raise ValueError("byte_ids must hold the ids 0-255, each once (byte b gets byte_ids[b])")
    for rank, ((left, right), _count) in enumerate(merges):
        if not (0 <= left < N_BYTES + rank and 0 <= right < N_BYTES + rank):
            raise ValueError(
                f"merge {rank} (new id {N_BYTES + rank}) joins {(left, right)}: both parts must "
                f"be ids that exist before it, i.e. below {N_BYTES + rank}"
            )
    pairs = [pair for pair, _count in merges]
    if len(set(pairs)) != len(pairs):
        rank = next(r for r, pair in enumerate(pairs) if pair in pairs[:r])
        raise ValueError(f"merge {rank} repeats the pair {pairs[rank]}: each pair is merged once")
