"""PickyBPE (Chizhov et al., EMNLP 2024): BPE that removes the tokens its merges use up.

Ordinary BPE keeps every intermediate token: to make ``" Kentucky"`` it may first make
``"entucky"``, which then almost never occurs alone yet keeps its place in the vocabulary.
PickyBPE checks, after each merge of ``x`` and ``y``, the *Intersection over Self* of each
part: the share of its occurrences that the merge used up,

    IoS(x) = f(x, y) / f(x)     (token counts just before the merge)

and removes a part whose IoS is above the threshold (0.9 in the authors' command line): its
remaining occurrences go back to the tokens it was made of, and its place in the vocabulary
goes to a later merge. A removed token comes back, with its id, if a later merge makes its
bytes again. The 256 bytes are never removed. Training stops when the vocabulary (bytes,
tokens made, minus tokens removed) reaches ``vocab_size``. With ``threshold=1`` nothing is
ever removed: ordinary BPE, the same merges and ids as :class:`RegexTokenizer
<book.tokenizers.bpe.regex_bpe.RegexTokenizer>`.

Encoding replays the training's events in order within each chunk, merges and removals
alike (the authors' event-sequence encoder), so a removed token never appears in the output.

>>> tok = PickyBPE.train("abc abc abc xbd", 259, threshold=0.9, pattern=r"\\S+|\\s+")
>>> [f"{event.kind} {tok.spell(event.token).decode()}" for event in tok.events]
['merge ab', 'merge abc', 'remove ab', 'merge xb', 'merge xbd', 'remove xb']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NamedTuple

from book.tokenizers.base import N_BYTES, Described, check_train_vocab_size
from book.tokenizers.bpe.core import (
    Pair,
    decode_utf8,
    get_pair_counts,
    merge,
    surrogate_error,
    utf8_bytes,
)
from book.tokenizers.bpe.patterns import CL100K_PATTERN, compile_pattern
from book.tokenizers.bpe.pretokenize import chunk_counts
from book.tokenizers.errors import tokens_for_ids


class Event(NamedTuple):
    """One step of training: a merge making ``token`` of ``parts`` (a pair), or the removal of
    ``token``, whose occurrences become ``parts``. ``score`` is what decided it: the pair's
    count for a merge (BPE's score), the token's IoS for a removal."""

    kind: Literal["merge", "remove"]
    token: int
    parts: tuple[int, ...]
    score: float


def check_threshold(threshold: object) -> float:
    """``threshold`` if it is a number in (0, 1]; else a ValueError that says so."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ValueError(f"threshold must be a number in (0, 1], got {threshold!r}")
    if not 0 < threshold <= 1:
        raise ValueError(
            f"threshold must be in (0, 1] (1: never remove, ordinary BPE; the paper tries "
            f"0.6 to 0.9), got {threshold!r}"
        )
    return float(threshold)


class _Chunks:
    """The distinct chunks as symbol lists, with the pair and token counts kept up to date, and
    which chunks hold each pair and each token (so a merge or removal touches only those)."""

    def __init__(self, counts: dict[bytes, int]):
        self.symbols = [list(chunk) for chunk in counts]
        self.weights = list(counts.values())
        self.pair_counts: dict[Pair, int] = {}
        self.token_counts: dict[int, int] = {}
        self.with_pair: dict[Pair, set[int]] = {}
        self.with_token: dict[int, set[int]] = {}
        for i in range(len(self.symbols)):
            self._count(i, +1)

    def _count(self, i: int, sign: int) -> None:
        """Add (``sign=+1``) or take away (-1) chunk ``i``'s pairs and tokens."""
        symbols, weight = self.symbols[i], self.weights[i] * sign
        for table, where, items in (
            (self.pair_counts, self.with_pair, get_pair_counts(symbols)),
            (self.token_counts, self.with_token, _counts(symbols)),
        ):
            for item, n in items.items():
                table[item] = table.get(item, 0) + n * weight
                if sign > 0:
                    where.setdefault(item, set()).add(i)
                elif table[item] == 0:
                    del table[item]

    def rewrite(self, chunks: Iterable[int], change) -> None:
        """Replace each listed chunk's symbols by ``change(symbols)``, keeping the counts."""
        for i in sorted(chunks):
            self._count(i, -1)
            self.symbols[i] = change(self.symbols[i])
            self._count(i, +1)

    def best_pair(self) -> Pair | None:
        """The most frequent pair; among equals, the one that occurs first (the book's rule)."""
        if not self.pair_counts:
            return None
        top = max(self.pair_counts.values())
        tied = [pair for pair, n in self.pair_counts.items() if n == top]
        return tied[0] if len(tied) == 1 else min(tied, key=self._first_occurrence)

    def _first_occurrence(self, pair: Pair) -> tuple[int, int]:
        """(chunk, position) of the first occurrence of ``pair``."""
        self.with_pair[pair] = {i for i in self.with_pair[pair] if self._holds(i, pair)}
        i = min(self.with_pair[pair])
        return i, list(zip(self.symbols[i], self.symbols[i][1:])).index(pair)

    def _holds(self, i: int, pair: Pair) -> bool:
        """Whether chunk ``i`` holds ``pair`` now (the sets of chunks may hold stale ones)."""
        return pair in zip(self.symbols[i], self.symbols[i][1:])


def _counts(symbols: list[int]) -> dict[int, int]:
    """How often each symbol occurs in ``symbols``."""
    counts: dict[int, int] = {}
    for symbol in symbols:
        counts[symbol] = counts.get(symbol, 0) + 1
    return counts


def _merging(pair: Pair, new: int):
    """A function that merges each occurrence of ``pair`` in a symbol list into ``new``."""
    return lambda symbols: merge(symbols, pair, new)


def _replace(token: int, parts: tuple[int, ...]):
    """A function that replaces each ``token`` of a symbol list by ``parts``."""
    return lambda symbols: [
        s for symbol in symbols for s in (parts if symbol == token else (symbol,))
    ]


class PickyBPE(Described):
    """Byte-level BPE inside a split pattern's chunks, trained with removals (see the module).

    ``events`` lists the merges and removals in training order; the vocabulary holds the bytes
    and the tokens made and not removed, with their ids (which have gaps where tokens were
    removed).
    """

    def __init__(self, events: Iterable[Event], pattern: str = CL100K_PATTERN):
        self.events = list(events)
        self.pattern = pattern
        self._regex = compile_pattern(pattern)
        spelled = {byte: bytes([byte]) for byte in range(N_BYTES)}
        present = set(spelled)
        for event in self.events:
            if event.kind == "merge":
                spelled[event.token] = b"".join(spelled[part] for part in event.parts)
                present.add(event.token)
            else:
                present.discard(event.token)
        self._spelled = spelled
        self.vocab = {token_id: spelled[token_id] for token_id in sorted(present)}
        self._cache: dict[str, list[int]] = {}

    @classmethod
    def train(
        cls, text: str, vocab_size: int, *, threshold: float = 0.9, pattern: str = CL100K_PATTERN
    ) -> PickyBPE:
        """Merge and remove until the vocabulary holds ``vocab_size`` tokens (or pairs run out).

        >>> PickyBPE.train("ab ab", 258, threshold=1.0).vocab[257]
        b' ab'
        """
        check_train_vocab_size(vocab_size, N_BYTES, "the 256 bytes and the tokens kept")
        threshold = check_threshold(threshold)
        chunks = _Chunks(chunk_counts(text, pattern))
        events: list[Event] = []
        made: dict[int, tuple[int, ...]] = {}  # each token made: the present tokens it spells
        removed: dict[bytes, int] = {}  # the bytes of each removed token: its id
        gone: set[int] = set()  # the removed tokens' ids
        spelled = {byte: bytes([byte]) for byte in range(N_BYTES)}
        size = next_id = N_BYTES
        while size < vocab_size and (pair := chunks.best_pair()) is not None:
            count = chunks.pair_counts[pair]
            before = {part: chunks.token_counts[part] for part in pair}
            data = spelled[pair[0]] + spelled[pair[1]]
            new = removed.pop(data, None)
            if new is None:
                new, next_id = next_id, next_id + 1
                spelled[new] = data
            gone.discard(new)
            made[new] = pair
            chunks.rewrite(chunks.with_pair.pop(pair), _merging(pair, new))
            events.append(Event("merge", new, pair, count))
            size += 1
            for part in before:
                ios = (before[part] - chunks.token_counts.get(part, 0)) / before[part]
                if part >= N_BYTES and ios > threshold:
                    parts = _expand(made, gone, part)
                    chunks.rewrite(chunks.with_token.pop(part, set()), _replace(part, parts))
                    removed[spelled[part]] = part
                    gone.add(part)
                    events.append(Event("remove", part, parts, ios))
                    size -= 1
        return cls(events, pattern)

    @property
    def n_vocab(self) -> int:
        """One more than the largest id."""
        return max(self.vocab) + 1

    def spell(self, token_id: int) -> bytes:
        """The bytes of any token training made, removed ones included."""
        return self._spelled[token_id]

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of vocabulary token ``token_id``."""
        return tokens_for_ids(self.vocab, [token_id], self.n_vocab)[0]

    def encode(self, text: str) -> list[int]:
        """Ids of ``text``: in each chunk, the training's merges and removals replayed in order.

        >>> tok = PickyBPE.train("abc abc abc xbd", 259, pattern=r"\\S+|\\s+")
        >>> [tok.vocab[i] for i in tok.encode("ab abc")]  # "ab" was made, then removed
        [b'a', b'b', b' ', b'abc']
        """
        ids: list[int] = []
        try:
            for chunk in self._regex.findall(text):
                cached = self._cache.get(chunk)
                if cached is None:
                    cached = self._cache[chunk] = self._replay(list(utf8_bytes(chunk)))
                ids.extend(cached)
        except UnicodeEncodeError:  # say where the surrogate is in the text, not in its chunk
            raise surrogate_error(text) from None
        return ids

    def _replay(self, symbols: list[int]) -> list[int]:
        for event in self.events:
            if event.kind == "merge":
                if event.parts[0] in symbols:
                    symbols = merge(symbols, event.parts, event.token)
            elif event.token in symbols:
                symbols = _replace(event.token, event.parts)(symbols)
        return symbols

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The text of ``ids`` (invalid UTF-8 as U+FFFD, or an error with ``errors="strict"``)."""
        return decode_utf8(tokens_for_ids(self.vocab, ids, self.n_vocab), errors)

    def _describe(self) -> dict[str, object]:
        removals = sum(event.kind == "remove" for event in self.events)
        return {"tokens": len(self.vocab), "removals": removals}


def _expand(made: dict[int, tuple[int, ...]], gone: set[int], token: int) -> tuple[int, ...]:
    """What ``token`` was made of, each part that is ``gone`` (removed) replaced by its own."""
    return tuple(
        piece
        for part in made[token]
        for piece in (_expand(made, gone, part) if part in gone else (part,))
    )
