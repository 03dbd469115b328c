"""The fast BPE trainer: the same merges as the obvious one, without recounting everything.

Also :func:`train_bpe`, training on a big file with several processes (CS336's interface).

:func:`book.tokenizers.bpe.core.train_naive` recounts every pair of the data after each merge.
A merge only changes the pairs next to the occurrences of the pair it merges, so this trainer
keeps the counts, where each pair occurs, and a max-heap of the counts, and after a merge
updates only the pairs it touched (chapter 10 builds it step by step). Its merges, their
counts and its ties are exactly those of ``train_naive``, on characters (chapter 04) and on
bytes (chapters 05, 06) alike.

>>> train_merges({tuple(b"aaab"): 1, tuple(b"ab"): 1}, 2)
[((97, 97), 2), ((97, 98), 2)]
>>> from book.tokenizers.bpe.core import joined, train_naive
>>> words = {("h", "u", "g"): 10, ("p", "u", "g"): 5, ("p", "u", "n"): 12}
>>> train_merges(words, 3, joined) == train_naive(words, 3, joined)
True
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from book.tokenizers.base import N_BYTES, check_train_vocab_size
from book.tokenizers.bpe.blocks import (
    Block,
    block_size,
    check_workers,
    choose_workers,
    file_blocks,
    map_blocks,
    read_block,
)
from book.tokenizers.bpe.core import (
    Merge,
    NewSymbol,
    Pair,
    S,
    TieBreak,
    build_vocab,
    check_num_merges,
    check_tie_break,
    next_id,
    symbol_bytes,
    weighted,
)
from book.tokenizers.bpe.patterns import GPT2_PATTERN, check_special_names
from book.tokenizers.bpe.pretokenize import training_chunk_counts


def inverted(data: bytes) -> str:
    """A string that sorts in the opposite order of ``data`` (so a min-heap pops the greatest).

    Each byte ``b`` becomes ``chr(255 - b)``, and a final ``chr(256)``, greater than all of
    them, makes a prefix sort after the longer strings it begins (``b"a" < b"ab"``).

    >>> inverted(b"a") > inverted(b"ab") > inverted(b"b"), inverted(b"") > inverted(b"\\x00")
    (True, True)
    """
    return data.decode("latin-1").translate(_INVERT) + "\u0100"


_INVERT = {byte: 255 - byte for byte in range(256)}


class PairIndex:
    """All sequences as one linked list of symbols, with each pair's count and positions.

    Node ``i`` starts as symbol ``i`` of the sequences laid end to end; merging two nodes keeps
    the left one, so node numbers stay in data order and "first occurrence" is the smallest
    node number. A sequence seen ``n`` times is stored once with weight ``n``. Heap entries go
    stale as counts change (lazy deletion): an entry is used only if its count is current, and
    its first node, a lower bound, is checked against the exact one before it wins.
    """

    def __init__(self, data: list[tuple[list[S], int]], tie_break: TieBreak):
        self.tie_break = tie_break
        self.tokens: list = []
        self.weights: list[int] = []
        for symbols, weight in data:
            self.tokens.extend(symbols)
            self.weights.extend([weight] * len(symbols))
        size = len(self.tokens)
        self.next = list(range(1, size + 1))
        self.prev = list(range(-1, size - 1))
        self.counts: dict[Pair, int] = {}
        self.where: dict[Pair, set[int]] = {}  # pair -> nodes where it starts
        self.first: dict[Pair, int] = {}  # pair -> a lower bound of its first node
        self.changed: set[Pair] = set()
        # The lexicographic rule compares the pairs' bytes; keep them inverted for the min-heap.
        self.spelled: dict = {}
        self.key: dict = {}
        if tie_break == "lexicographic":
            for symbol in set(self.tokens):
                self._spell(symbol, symbol_bytes(symbol))
        start = 0
        tokens, counts, where, first = self.tokens, self.counts, self.where, self.first
        for symbols, weight in data:
            end = start + len(symbols)
            if end > start:  # no pair spans two sequences
                self.next[end - 1] = -1
                self.prev[start] = -1
            for node in range(start, end - 1):  # nodes in increasing order: the first is first
                pair = (tokens[node], tokens[node + 1])
                nodes = where.get(pair)
                if nodes is None:
                    where[pair], counts[pair], first[pair] = {node}, weight, node
                else:
                    nodes.add(node)
                    counts[pair] += weight
            start = end
        self.heap = [self._entry(pair) for pair in self.counts]
        heapq.heapify(self.heap)

    def _spell(self, symbol, spelled: bytes) -> None:
        """Remember the bytes of ``symbol`` and its heap key (for the lexicographic rule)."""
        self.spelled[symbol] = spelled
        self.key[symbol] = inverted(spelled)

    def _entry(self, pair: Pair) -> tuple:
        """The heap entry of ``pair``: the smallest entry is the pair to merge."""
        if self.tie_break == "first":
            return (-self.counts[pair], self.first[pair], pair)
        left, right = pair
        return (-self.counts[pair], self.key[left], self.key[right], self.first[pair], pair)

    def _add(self, pair: Pair, node: int) -> None:
        """Count ``pair`` starting at ``node`` (the hot path of training: kept to plain steps)."""
        nodes = self.where.get(pair)
        if nodes is None:
            self.where[pair] = {node}
            self.counts[pair] = self.weights[node]
            self.first[pair] = node
        else:
            nodes.add(node)
            self.counts[pair] += self.weights[node]
            if node < self.first[pair]:
                self.first[pair] = node
        self.changed.add(pair)

    def _remove(self, pair: Pair, node: int) -> None:
        """Uncount ``pair`` starting at ``node``; forget the pair when no occurrence is left."""
        nodes = self.where[pair]
        nodes.discard(node)
        self.changed.add(pair)
        if nodes:
            self.counts[pair] -= self.weights[node]
        else:
            del self.counts[pair], self.where[pair], self.first[pair]

    def _key(self, pair: Pair) -> float:
        """What ranks ``pair`` in the heap now (smallest first): minus its count."""
        return -self.counts[pair]

    def pop_best(self) -> tuple[Pair, int] | None:
        """The pair to merge and its count (as :func:`~book.tokenizers.bpe.core.best_pair`)."""
        while self.heap:
            entry = heapq.heappop(self.heap)
            pair = entry[-1]
            if pair not in self.counts or self._key(pair) != entry[0]:
                continue  # stale: the pair's rank changed since this entry was pushed
            exact = min(self.where[pair])
            if exact != entry[-2]:
                self.first[pair] = exact
                heapq.heappush(self.heap, self._entry(pair))
                continue
            return pair, self.counts[pair]
        return None

    def merge(self, pair: Pair, new) -> None:
        """Merge every occurrence of ``pair``, left to right, updating only the pairs it touches.

        Around an occurrence ``a b``, between ``x`` and ``y``: the pairs ``x a`` and ``b y``
        lose one occurrence, ``x new`` and ``new y`` gain one; ``a b`` itself is gone once every
        occurrence is merged.
        """
        self._merge_occurrences(pair, new)
        self._push_changed()

    def _merge_occurrences(self, pair: Pair, new) -> None:
        """Merge the occurrences and recount around them; ``merged_weight`` says how many."""
        tokens, next_, prev, weights = self.tokens, self.next, self.prev, self.weights
        merged = 0
        add, remove = self._add, self._remove
        if self.tie_break == "lexicographic" and new not in self.spelled:
            self._spell(new, self.spelled[pair[0]] + self.spelled[pair[1]])
        occurrences = self.where[pair]
        for node in sorted(occurrences):
            if node not in occurrences:  # eaten by the previous one, as in "aaa"
                continue
            merged += weights[node]
            right = next_[node]
            after, before = next_[right], prev[node]
            if before >= 0:
                remove((tokens[before], tokens[node]), before)
            if after >= 0:
                remove((tokens[right], tokens[after]), right)
            tokens[node], next_[node] = new, after
            if after >= 0:
                prev[after] = node
                add((new, tokens[after]), node)
            if before >= 0:
                add((tokens[before], new), before)
        del self.counts[pair], self.where[pair], self.first[pair]
        self.changed.discard(pair)
        self.merged_weight = merged

    def _push_changed(self) -> None:
        """A fresh heap entry for every pair whose rank may have changed (old ones go stale)."""
        for changed in self.changed:
            if changed in self.counts:
                heapq.heappush(self.heap, self._entry(changed))
        self.changed.clear()


def train_merges(
    sequences: Mapping[Sequence[S], int] | Iterable[Sequence[S]],
    num_merges: int,
    new_symbol: NewSymbol = next_id,
    *,
    tie_break: TieBreak = "first",
    allow: Callable[[Pair[S]], bool] | None = None,
) -> list[Merge[S]]:
    """Learn up to ``num_merges`` merges, fast; the same merges as ``train_naive``, ties included.

    ``sequences`` is ``{sequence: count}`` in order of first occurrence (word frequencies,
    chunk counts; one whole text is ``{tuple(text.encode()): 1}``) or an iterable of sequences.
    ``new_symbol(rank, pair)`` names the symbol each merge makes (byte level: ``256 + rank``;
    character level: :func:`~book.tokenizers.bpe.core.joined`). ``tie_break`` is ``"first"``
    (the book's rule) or ``"lexicographic"`` (the greater pair of bytes wins, as in CS336).
    ``allow(pair)``, if given, may refuse a pair: it is passed over, as SuperBPE's trainer
    passes over too long superwords, until a change of its count brings it back to be refused
    again.

    >>> train_merges([b"ab", b"cd"], 1), train_merges([b"ab", b"cd"], 1, tie_break="lexicographic")
    ([((97, 98), 1)], [((99, 100), 1)])
    >>> train_merges([b"ab", b"cd"], 1, allow=lambda pair: pair != (97, 98))
    [((99, 100), 1)]
    """
    check_tie_break(tie_break)
    check_num_merges(num_merges)
    index = PairIndex(weighted(sequences), tie_break)
    merges: list[Merge[S]] = []
    for rank in range(num_merges):
        best = index.pop_best()
        while best is not None and allow is not None and not allow(best[0]):
            best = index.pop_best()
        if best is None:
            break
        merges.append(best)
        index.merge(best[0], new_symbol(rank, best[0]))
    return merges


Score = Callable[[int, int, int], float]  # (pair count, left count, right count) -> score


class ScoredPairIndex(PairIndex):
    """A :class:`PairIndex` that ranks pairs by ``score(pair count, left count, right count)``.

    WordPiece's score is one (chapter 11). A merge changes the counts of its two
    symbols, so the scores of every pair holding one of them, or the new symbol, are computed
    again (``pairs_of`` finds them). Ties go to the pair that occurs first, the book's rule.
    """

    def __init__(self, data: list[tuple[list[S], int]], score: Score):
        self.score = score
        self.symbol_counts: dict = {}
        for symbols, weight in data:
            for symbol in symbols:
                self.symbol_counts[symbol] = self.symbol_counts.get(symbol, 0) + weight
        self.pairs_of: dict = {}  # symbol -> the pairs it may be part of
        super().__init__(data, "first")
        for pair in self.counts:
            self._index(pair)

    def score_of(self, pair: Pair) -> float:
        """The score of ``pair`` now."""
        left, right = pair
        return self.score(self.counts[pair], self.symbol_counts[left], self.symbol_counts[right])

    def _key(self, pair: Pair) -> float:
        return -self.score_of(pair)

    def _entry(self, pair: Pair) -> tuple:
        return (self._key(pair), self.first[pair], pair)

    def _index(self, pair: Pair) -> None:
        self.pairs_of.setdefault(pair[0], set()).add(pair)
        self.pairs_of.setdefault(pair[1], set()).add(pair)

    def _add(self, pair: Pair, node: int) -> None:
        super()._add(pair, node)
        self._index(pair)

    def merge(self, pair: Pair, new) -> None:
        self._merge_occurrences(pair, new)
        counts, weight = self.symbol_counts, self.merged_weight
        counts[pair[0]] -= weight
        counts[pair[1]] -= weight
        counts[new] = counts.get(new, 0) + weight
        for symbol in {*pair, new}:
            alive = {held for held in self.pairs_of.get(symbol, ()) if held in self.counts}
            self.pairs_of[symbol] = alive
            self.changed |= alive
        self._push_changed()


def scored_merges(
    sequences: Mapping[Sequence[S], int] | Iterable[Sequence[S]],
    score: Score,
    new_symbol: NewSymbol,
) -> Iterator[tuple[Pair[S], float]]:
    """``(pair, score)`` of each merge, the best score first, for as long as pairs are left.

    Like :func:`train_merges` with ``score`` in place of the count; each merge is made when the
    next one is asked for.

    >>> from book.tokenizers.bpe.core import joined
    >>> wordpiece = lambda n, left, right: n / (left * right)
    >>> list(scored_merges({("a", "b"): 2, ("a", "c"): 1}, wordpiece, joined))
    [(('a', 'b'), 0.3333333333333333), (('a', 'c'), 1.0)]
    """
    index = ScoredPairIndex(weighted(sequences), score)
    rank = 0
    while (best := index.pop_best()) is not None:
        pair = best[0]
        value = index.score_of(pair)
        index.merge(pair, new_symbol(rank, pair))
        rank += 1
        yield pair, value


def train_bpe(
    input_path: str | Path,
    vocab_size: int,
    special_tokens: Iterable[str],
    *,
    workers: int | None = None,
    tie_break: TieBreak = "first",
    pattern: str = GPT2_PATTERN,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train byte-level BPE on a UTF-8 file: ``(vocab, merges)``, as CS336's assignment asks.

    ``vocab`` maps each id to its bytes: 0-255 the bytes, then one token per merge, then the
    special tokens; ``merges`` lists the pairs of bytes merged, in order. ``vocab_size``
    counts all of them. The text is cut at the special tokens, so no merge crosses or enters
    one; each part is pre-tokenized with ``pattern`` (GPT-2's by default). The file is
    counted in blocks by ``workers`` processes (None: one for a small file, else every CPU),
    and the counts are merged in file order, so the result does not depend on ``workers``.
    ``tie_break="lexicographic"`` reproduces CS336's reference (the greater pair of bytes
    wins a tie); the default is the book's rule (the pair that occurs first).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "corpus.txt")
    >>> _ = open(path, "w").write("low low<|endoftext|>lower")
    >>> vocab, merges = train_bpe(path, 259, ["<|endoftext|>"])
    >>> merges, vocab[257], vocab[258]
    ([(b'l', b'o'), (b'lo', b'w')], b'low', b'<|endoftext|>')
    """
    names = check_special_names(special_tokens)
    check_bpe_options(vocab_size, names, tie_break)  # before the long part: counting
    counts = file_chunk_counts(input_path, pattern, names, check_workers(workers))
    return train_bpe_from_counts(counts, vocab_size, names, tie_break=tie_break)


def check_bpe_options(vocab_size: object, names: Sequence[str], tie_break: object) -> int:
    """The number of merges that ``vocab_size`` leaves; a ValueError for a bad size or rule."""
    what = f"the {N_BYTES} byte tokens, one token per merge, {len(names)} special tokens"
    check_train_vocab_size(vocab_size, N_BYTES + len(names), what)
    check_tie_break(tie_break)
    return vocab_size - N_BYTES - len(names)


def train_bpe_from_counts(
    counts: Mapping[bytes, int],
    vocab_size: int,
    special_tokens: Iterable[str],
    *,
    tie_break: TieBreak = "first",
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """The merge step of :func:`train_bpe`: ``(vocab, merges)`` from the pre-token counts.

    ``counts`` maps each pre-token's bytes to how often it occurs, in order of first
    occurrence (what :func:`file_chunk_counts` gives, or counting on a cluster); the rest is as
    in :func:`train_bpe`.

    >>> vocab, merges = train_bpe_from_counts({b"low": 2, b"lower": 1}, 258, [])
    >>> merges, vocab[257]
    ([(b'l', b'o'), (b'lo', b'w')], b'low')
    """
    names = check_special_names(special_tokens)
    num_merges = check_bpe_options(vocab_size, names, tie_break)
    merges = train_merges(counts, num_merges, tie_break=tie_break)
    vocab = build_vocab(merges)
    pairs = [(vocab[left], vocab[right]) for (left, right), _count in merges]
    for name in names:
        vocab[len(vocab)] = name.encode("utf-8")
    return vocab, pairs


def file_chunk_counts(
    path: str | Path, pattern: str, names: Sequence[str] = (), workers: int | None = None
) -> dict[bytes, int]:
    """:func:`~book.tokenizers.bpe.pretokenize.training_chunk_counts` of a file, block by block.

    Blocks are counted in ``workers`` processes and their counts added up in file order, so
    the chunks keep their order of first occurrence (which the book's tie-break needs).
    """
    total = os.path.getsize(path)
    workers = choose_workers(check_workers(workers), total)
    blocks = file_blocks(path, pattern, names, block_size(total, workers))
    counts: dict[bytes, int] = {}
    setup = (str(path), pattern, tuple(names))
    for block_counts in map_blocks(_count_block, blocks, workers, _set_up_counting, setup):
        add_counts(counts, block_counts)
    return counts


def add_counts(counts: dict[bytes, int], more: Mapping[bytes, int]) -> dict[bytes, int]:
    """Add ``more`` into ``counts`` (and return it); chunks new to ``counts`` go last.

    Adding the blocks' counts in file order thus keeps each chunk at its first occurrence,
    however the additions are grouped: ``(a + b) + c`` and ``a + (b + c)`` are the same dict,
    in the same order.

    >>> add_counts({b"a": 1, b"b": 1}, {b"c": 1, b"a": 2})
    {b'a': 3, b'b': 1, b'c': 1}
    """
    get = counts.get
    for chunk, count in more.items():
        counts[chunk] = get(chunk, 0) + count
    return counts


_COUNTING: tuple[str, str, tuple[str, ...]] = ("", "", ())  # (path, pattern, names) of a worker


def _set_up_counting(path: str, pattern: str, names: tuple[str, ...]) -> None:
    """Remember what to count, once per worker process."""
    global _COUNTING
    _COUNTING = (path, pattern, names)


def _count_block(block: Block) -> dict[bytes, int]:
    """The chunk counts of one block of the file (runs in a worker process)."""
    path, pattern, names = _COUNTING
    return training_chunk_counts(read_block(path, block), pattern, names)
