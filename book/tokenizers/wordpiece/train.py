"""Training a WordPiece vocabulary: merge the pair with the best score, again and again.

The score of a pair is count(ab) / (count(a) x count(b)) (``score="likelihood"``, WordPiece's
rule as the Hugging Face course reconstructs it) or count(ab) (``score="frequency"``, BPE's
rule, which ``tokenizers``' WordPiece trainer uses). The vocabulary is the special tokens, the
alphabet (first characters and ``##`` characters, sorted), then one entry per merge.

Training is incremental. After a merge only the words holding the pair change, so only their
symbols and pairs are recounted and only the scores that can change are recomputed: those of
the pairs in those words and of the pairs sharing a symbol with the merge. Pairs are kept in
buckets by score, so the best score and its tied pairs are found without scanning them all;
a tie goes to the pair that occurs first in the training words, the book's rule.

>>> vocab, merges = train_vocab({"hug": 10, "pug": 5, "hugs": 5}, 9)
>>> vocab  # the first merge wins a four-way tie at 0.05 by coming first
['[UNK]', '##g', '##s', '##u', 'h', 'p', 'hu', 'pu', 'hug']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from book.tokenizers.base import check_train_vocab_size

UNK_TOKEN = "[UNK]"
PREFIX = "##"

Pair = tuple[str, str]
Merge = tuple[str, str, float]


def wordpiece_score(pair_count: int, left_count: int, right_count: int) -> float:
    """The likelihood score of a pair: how much more often its parts occur together than apart.

    >>> wordpiece_score(20, 20, 40), wordpiece_score(20, 400, 400)  # rare parts win
    (0.025, 0.000125)
    """
    return pair_count / (left_count * right_count)


def split_word(word: str, prefix: str = PREFIX) -> list[str]:
    """A word as WordPiece's training starts it: its characters, all but the first prefixed.

    >>> split_word("hugs")
    ['h', '##u', '##g', '##s']
    """
    return [word[0]] + [prefix + ch for ch in word[1:]]


def merge_symbols(left: str, right: str, prefix: str = PREFIX) -> str:
    """The symbol a merge makes: ``right`` loses its prefix, ``left`` keeps its own.

    >>> merge_symbols("h", "##u"), merge_symbols("##g", "##s")
    ('hu', '##gs')
    """
    return left + (right[len(prefix) :] if right.startswith(prefix) else right)


class PairScores:
    """Symbol and pair counts over a set of split words, and each pair's score, kept current."""

    def __init__(self, words: Mapping[str, int], splits: dict[str, list[str]], score: str):
        if score not in ("likelihood", "frequency"):
            raise ValueError(f"score must be 'likelihood' or 'frequency', got {score!r}")
        self.words, self.splits, self.score = words, splits, score
        self.order = {word: i for i, word in enumerate(splits)}  # for the tie-break
        self.symbols: Counter[str] = Counter()
        self.pairs: Counter[Pair] = Counter()
        self.where: dict[Pair, set[str]] = {}  # the words a pair may occur in
        self.pairs_of: dict[str, set[Pair]] = {}  # the pairs a symbol may be part of
        self.scores: dict[Pair, float] = {}
        self.by_score: dict[float, set[Pair]] = {}
        self.first: dict[Pair, tuple[int, int]] = {}  # first_occurrence, until the pair changes
        for word in splits:
            self.count(word, +1)
        self.rescore(set(self.pairs))

    def count(self, word: str, sign: int) -> set[Pair]:
        """Add (sign=+1) or remove (-1) one word's symbols and pairs; the pairs it holds."""
        symbols, n = self.splits[word], sign * self.words[word]
        for symbol in symbols:
            self.symbols[symbol] += n
        pairs = set(zip(symbols, symbols[1:]))
        for pair in zip(symbols, symbols[1:]):
            self.pairs[pair] += n
            self.where.setdefault(pair, set()).add(word)
            self.pairs_of.setdefault(pair[0], set()).add(pair)
            self.pairs_of.setdefault(pair[1], set()).add(pair)
        return pairs

    def rescore(self, pairs: set[Pair]) -> None:
        """Recompute the scores of ``pairs``, dropping those that no longer occur."""
        for pair in pairs:
            self.first.pop(pair, None)  # its words changed: so may its first occurrence
            old = self.scores.pop(pair, None)
            if old is not None:
                self.by_score[old].discard(pair)
                if not self.by_score[old]:
                    del self.by_score[old]
            if self.pairs[pair] <= 0:
                self.pairs.pop(pair, None)
                continue
            left, right = self.symbols[pair[0]], self.symbols[pair[1]]
            n = self.pairs[pair]
            new = float(n) if self.score == "frequency" else wordpiece_score(n, left, right)
            self.scores[pair] = new
            self.by_score.setdefault(new, set()).add(pair)

    def first_occurrence(self, pair: Pair) -> tuple[int, int]:
        """(index of the first word holding the pair, position of the pair in that word)."""
        if pair in self.first:
            return self.first[pair]
        found = (len(self.order), 0)
        for word in self.where[pair]:
            if self.order[word] < found[0]:
                symbols = self.splits[word]
                for i in range(len(symbols) - 1):
                    if (symbols[i], symbols[i + 1]) == pair:
                        found = (self.order[word], i)
                        break
        self.first[pair] = found
        return found

    def best(self) -> tuple[Pair, float]:
        """The pair with the highest score (ties: first in the words) and its score."""
        top = max(self.by_score)
        tied = self.by_score[top]
        pair = next(iter(tied)) if len(tied) == 1 else min(tied, key=self.first_occurrence)
        return pair, top

    def merge(self, pair: Pair, merged: str) -> None:
        """Merge ``pair`` into ``merged`` in every word, and update what changed."""
        changed: set[Pair] = set()
        for word in self.where.pop(pair, ()):
            changed |= self.count(word, -1)
            self.splits[word] = merge_in(self.splits[word], pair, merged)
            changed |= self.count(word, +1)
        for symbol in (*pair, merged):
            changed |= self.pairs_of.get(symbol, set())
        self.rescore(changed)


def train_vocab(
    words: Mapping[str, int],
    vocab_size: int,
    *,
    specials: Sequence[str] = (UNK_TOKEN,),
    prefix: str = PREFIX,
    score: str = "likelihood",
) -> tuple[list[str], list[Merge]]:
    """The vocabulary learned from word counts (in id order), and the merges with their scores.

    Stops at ``vocab_size`` entries (everything counted) or when no pair is left. A merge that
    makes an entry already in the vocabulary adds nothing but still counts as a merge.
    """
    splits = {word: split_word(word, prefix) for word in words if word}
    alphabet = sorted({symbol for symbols in splits.values() for symbol in symbols})
    vocab = list(dict.fromkeys([*specials, *alphabet]))
    check_train_vocab_size(
        vocab_size,
        len(vocab),
        f"the {len(specials)} special tokens and the {len(alphabet)} "
        "characters, with and without the prefix",
    )
    stats = PairScores(words, splits, score)
    known, merges = set(vocab), []
    while len(vocab) < vocab_size and stats.scores:
        pair, best = stats.best()
        merged = merge_symbols(*pair, prefix)
        merges.append((*pair, best))
        if merged not in known:
            vocab.append(merged)
            known.add(merged)
        stats.merge(pair, merged)
    return vocab, merges


def merge_in(symbols: list[str], pair: Pair, merged: str) -> list[str]:
    """``symbols`` with each occurrence of ``pair``, left to right, replaced by ``merged``.

    >>> merge_in(["a", "##a", "##a"], ("a", "##a"), "aa")
    ['aa', '##a']
    """
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(merged)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out
