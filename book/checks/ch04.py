"""Checks of exercises/04_char_bpe.ipynb, as one spec per task. The reference is
book.tokenizers.bpe.char_bpe.

Every task is a variant, an extension or a measurement of the chapter's code: what a merge
saves (overlapping pairs save less than they count), training with two more tie-breaks (CS336's
greatest pair, and Hugging Face's smallest ids), what becomes of the pairs that lose a tie, a
byte fallback for unknown characters and its decoder, and checking a table of pair counts
taken after some merges. Each task's known mistakes are code, the chapter's nearest cell among
them; every group of cases catches each of them (``tests/test_check_specs.py`` proves it on
seeds 1-20).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from functools import cache, lru_cache
from itertools import islice

from book import corpora, walkthroughs
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    random_text,
)
from book.tokenizers.bpe.char_bpe import (
    apply_merges,
    initial_splits,
    merge_pair,
    pair_counts,
    word_freqs,
)
from book.tokenizers.bpe.core import (
    get_pair_counts,
    joined,
    merge,
    train_naive,
    training_rounds,
)

TIES = {"zy": 1, "ab": 1, "yz": 1, "ba": 1}  # every pair ties: first seen ('z', 'y'), greatest too
LATE_TIE = {"xa": 2, "ab": 1, "ba": 3, "cab": 1}  # ties appear only after some merges
FIRST_NOT_GREATEST = {"ab": 2, "ba": 2, "cd": 1}  # first seen ('a', 'b'), greatest ('b', 'a')
# ('c', 'd') is seen first, but the more frequent word 'ab' holds the pair it ties with.
FIRST_IN_A_RARE_WORD = {"cd": 1, "cdx": 1, "ab": 2}
# With the marker every pair occurs once: ('a', 'b') has the smallest ids, ('a', '</w>') the
# smallest strings ('<' sorts before the letters).
MARKER_LAST = {"ab": 1, "a": 1}
SAME_LEFT = {"ac": 1, "ab": 1}  # ('a', 'c') is seen first, ('a', 'b') has the smaller ids
OVERLAP = {"aaaa": 2, "aaab": 1, "b": 5, "baaa": 1}
# CS336's case: ('BA', 'A') and ('B', 'ZZ') tie; as pairs ('BA', 'A') is greater, as joined
# strings 'BZZ' > 'BAA'.
CS336 = {"BA": 5, "ZZ": 5, "BAA": 3, "BZZ": 3}
LOW, HUG = walkthroughs.LOW_WORD_FREQS, walkthroughs.HUG_WORD_FREQS
CAT = word_freqs(walkthroughs.CAT_TEXT)


@cache
def _english_freqs(n_words: int = 3000) -> dict[str, int]:
    """Word frequencies of the first ``n_words`` words of the training plays."""
    return word_freqs(" ".join(corpora.english("train").split()[:n_words]))


def _random_freqs(rng: random.Random, letters: str = "abcde") -> dict[str, int]:
    """Word frequencies of made-up words over a small alphabet: many ties and overlaps."""
    words = sorted(
        {
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
            for _ in range(rng.randint(2, 8))
        }
    )  # sorted first: a set's order depends on the process's hash seed, and so would the draw
    rng.shuffle(words)
    return {word: rng.randint(1, 9) for word in words}


def _cs336_like(rng: random.Random) -> dict[str, int]:
    """A corpus where CS336's two ties meet: (xy, y) and (x, zz), with z > y."""
    x, y, z = rng.sample("bcdefgh", 3)
    y, z = sorted((y, z))
    big, small = rng.randint(4, 9), rng.randint(2, 3)
    words = {x + y: big, z + z: big, x + y + y: small, x + z + z: small}
    return dict(sorted(words.items(), key=lambda _: rng.random()))


# --- Task 1: merge_and_save ----------------------------------------------------------------------


def merge_and_save_reference(splits: dict, freqs: dict[str, int], pair: tuple) -> tuple:
    """(the splits with pair merged, tokens the merge removes from the corpus)."""
    merged = merge_pair(splits, pair)
    saved = sum((len(splits[w]) - len(merged[w])) * freqs.get(w, 0) for w in splits)
    return merged, saved


# The splits must come back unchanged: the probe returns [answer, splits unchanged].
UNCHANGED = """
def probe(answer, splits, *args):
    kept = {word: tuple(symbols) for word, symbols in splits.items()}
    return [answer(splits, *args), splits == kept]
"""


def _save_examples() -> Cases:
    overlap, low = initial_splits(OVERLAP, None), initial_splits(LOW)
    return [
        ((initial_splits(HUG), HUG, ("u", "g")), "each word counted as often as it occurs"),
        ((low, LOW, ("e", "s")), ""),
        ((low, LOW, ("t", "</w>")), "a pair with the marker"),
        ((low, LOW, ("x", "y")), "a pair that never occurs saves 0"),
        ((overlap, OVERLAP, ("a", "a")), "a pair that overlaps itself: runs of three or more"),
        ((merge_pair(overlap, ("a", "a")), OVERLAP, ("aa", "aa")), "merged symbols"),
        (
            ({"abc": ("ab", "c"), "bc": ("b", "c")}, {"abc": 2, "bc": 3}, ("b", "c")),
            "merges join whole symbols, not substrings",
        ),
        ((initial_splits(_english_freqs(400)), _english_freqs(400), ("t", "h")), "Shakespeare"),
    ]


def _save_draw(rng: random.Random) -> tuple:
    """One random case: words over 'ab' with a weighted run of a's (an overlap) among them,
    after up to two random merges (so that symbols can hold a pair's letters inside them)."""
    freqs, marker = _random_freqs(rng, "ab"), rng.choice([None, "</w>"])
    freqs["a" * rng.randint(3, 7)] = rng.randint(2, 5)
    splits = initial_splits(freqs, marker)
    for _ in range(rng.randint(0, 2)):
        splits = merge_pair(splits, rng.choice(sorted(pair_counts(splits, freqs))))
    pairs = sorted(pair_counts(splits, freqs)) or [("a", "a")]
    return splits, freqs, rng.choice([("a", "a"), rng.choice(pairs)])


def _save_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _save_draw, MERGE_AND_SAVE)


def _saved_by(merge_word):
    """A merge_and_save that merges each word with merge_word(symbols, pair)."""

    def merge_and_save(splits, freqs, pair):
        merged = {word: merge_word(symbols, pair) for word, symbols in splits.items()}
        return merged, sum((len(splits[w]) - len(merged[w])) * freqs.get(w, 0) for w in splits)

    return merge_and_save


def _right_to_left(symbols, pair):
    """The pair merged from the right: 'a a a' -> 'a aa'."""
    backwards = merge(symbols[::-1], pair[::-1], joined(0, pair))
    return tuple(backwards[::-1])


def _as_text(symbols, pair):
    """The pair merged by replacing text in the symbols written with spaces between them."""
    return tuple(" ".join(symbols).replace(" ".join(pair), joined(0, pair)).split(" "))


def _save_counted(splits, freqs, pair):
    return merge_pair(splits, pair), pair_counts(splits, freqs).get(pair, 0)


def _save_unweighted(splits, freqs, pair):
    merged = merge_pair(splits, pair)
    return merged, sum(len(splits[w]) - len(merged[w]) for w in splits)


def _save_in_place(splits, freqs, pair):
    saved = merge_and_save_reference(splits, freqs, pair)[1]
    for word in splits:
        splits[word] = tuple(merge(splits[word], pair, joined(0, pair)))
    return splits, saved


MERGE_AND_SAVE = TaskSpec(
    "merge_and_save",
    merge_and_save_reference,
    (Group("examples", 1, _save_examples), Group("random corpora", 1, hidden=_save_hidden)),
    (
        Mistake(
            "saved is not the pair's count: a pair that overlaps itself (a a a) is counted "
            "twice, but only one of the two can merge",
            _save_counted,
        ),
        Mistake("each word counts as often as it occurs in the corpus", _save_unweighted),
        Mistake(
            "build the new splits in a new dict: the splits you are given must not change",
            _save_in_place,
        ),
        Mistake(
            "a merge scans each word from the left: in a a a it is the first two that merge",
            _saved_by(_right_to_left),
        ),
        Mistake(
            "a merge joins two whole symbols: the pair's letters inside a longer symbol are "
            "not the pair",
            _saved_by(_as_text),
        ),
    ),
    "saved counts the tokens the corpus loses, each word as often as it occurs; the new "
    "splits hold the pair merged wherever the chapter's merge would merge it.",
    probe=UNCHANGED,
)

# --- Task 2: train_bpe ---------------------------------------------------------------------------

RULES = ("first", "lexicographic", "ids")


def train_reference(
    freqs: dict[str, int], num_merges: int, end_of_word: str | None = "</w>", tie_break="first"
) -> list:
    """The merges with any of the three tie-breaks (ValueError for another rule, at once)."""
    if tie_break not in RULES:  # the book's trainer would wait for the first round
        raise ValueError(f"tie_break must be one of {RULES}, not {tie_break!r}")
    if tie_break == "ids":
        return _trainer(_smallest_ids)(freqs, num_merges, end_of_word, tie_break)
    splits = initial_splits(freqs, end_of_word)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    return train_naive(sequences, num_merges, joined, tie_break=tie_break)


def _smallest_ids(tied: list, tie_break: str, ids: dict) -> tuple:
    """Hugging Face's rule on the chapter's ids: the tied pair whose (left id, right id) is
    smallest (tokenizers' trainer.rs, ``other.pair.cmp(&self.pair)``)."""
    return min(tied, key=lambda pair: (ids[pair[0]], ids[pair[1]]))


def _book_rules(tied: list, tie_break: str, ids: dict) -> tuple:
    """'first' and 'lexicographic' as the book's trainers break ties."""
    return tied[0] if tie_break == "first" else max(tied)


def _ids_or_book(tied: list, tie_break: str, ids: dict) -> tuple:
    """The right pick for each of the three rules."""
    if tie_break == "ids":
        return _smallest_ids(tied, tie_break, ids)
    return _book_rules(tied, tie_break, ids)


def _trainer(pick, order=None, min_count=1, rules=RULES, marker_sorted=False, seen=False, lazy=""):
    """A trainer that picks among the pairs tied at the top count with pick(tied, tie_break,
    ids), where ``ids`` numbers the tokens as the chapter's vocabulary does: the sorted
    characters, the marker, then each merge's new token (a token made twice keeps its first
    id). The options make mistakes: the words reordered by ``order``, training stopped below
    ``min_count``, only ``rules`` known (None: any rule accepted), the marker sorted among the
    characters, the characters numbered in the order they are ``seen``, an unknown rule
    rejected only when a round runs (``lazy="round"``) or a tie is broken (``lazy="tie"``).
    """

    def reject(tie_break):
        if rules is not None and tie_break not in rules:
            raise ValueError(f"unknown tie_break {tie_break!r}")

    def train(freqs, num_merges, end_of_word="</w>", tie_break="first"):
        if not lazy:
            reject(tie_break)
        freqs = dict(order(freqs)) if order else freqs
        alphabet = list(dict.fromkeys(ch for word in freqs for ch in word))
        alphabet = alphabet if seen else sorted(alphabet)
        marker = [] if end_of_word is None else [end_of_word]
        ids: dict[str, int] = {}
        for token in sorted(alphabet + marker) if marker_sorted else alphabet + marker:
            ids.setdefault(token, len(ids))
        splits, merges = initial_splits(freqs, end_of_word), []
        while len(merges) < num_merges:
            counts = pair_counts(splits, freqs)
            top = max(counts.values(), default=0)
            if top < min_count:
                break
            tied = [pair for pair, n in counts.items() if n == top]
            if lazy == "round" or (lazy == "tie" and len(tied) > 1):
                reject(tie_break)
            best = pick(tied, tie_break, ids)
            merges.append((best, top))
            ids.setdefault(joined(0, best), len(ids))
            splits = merge_pair(splits, best)
        return merges

    return train


def _ids_by(key):
    """A pick that breaks 'ids' ties by key(pair, ids) and the other two rules rightly."""

    def pick(tied: list, tie_break: str, ids: dict) -> tuple:
        if tie_break == "ids":
            return min(tied, key=lambda pair: key(pair, ids))
        return _book_rules(tied, tie_break, ids)

    return pick


def _rules(freqs: dict, marker, sizes=(3, 12, 40)) -> Cases:
    return [((dict(freqs), n, marker, rule), "") for rule in RULES for n in sizes]


def _train_walkthroughs() -> Cases:
    cases = _rules(HUG, "</w>") + _rules(HUG, None) + _rules(LOW, "</w>") + _rules(LOW, "_")
    cases += [
        ((dict(CS336), 3, None, "lexicographic"), "CS336's tie: compare pairs, not joined strings"),
        ((dict(FIRST_NOT_GREATEST), 2, None), "the default tie_break is 'first'"),
        ((dict(SAME_LEFT), 2, None, "ids"), "the same left symbol: the right ids decide"),
        ((dict(CAT), 15, None, "first"), "pairs that occur once are merged too"),
        ((dict(CAT), 15, None, "ids"), "pairs that occur once are merged too"),
        ((dict(FIRST_IN_A_RARE_WORD), 1, None, "first"), "first in the data, not most frequent"),
        ((dict(MARKER_LAST), 2, "</w>", "ids"), "the marker's id follows the characters'"),
    ]
    english = _english_freqs(1000)
    return cases + [
        ((english, 30, "</w>", rule), f"Shakespeare, tie_break={rule!r}") for rule in RULES
    ]


def _train_ties() -> Cases:
    cases = []
    for freqs, marker in [
        (TIES, None),
        (FIRST_NOT_GREATEST, None),
        (FIRST_IN_A_RARE_WORD, None),
        (LATE_TIE, "</w>"),
        (SAME_LEFT, "</w>"),
        (OVERLAP, None),
        (MARKER_LAST, "</w>"),
        (CS336, None),
        (CS336, "</w>"),
    ]:
        cases += _rules(freqs, marker, (1, 4, 12))
    return cases


def _train_errors() -> Cases:
    """Rules that are none of the three, with ties, with no tie, with no pair and with no merge
    asked for; beside them, the corpora of the ties with each of the three rules."""
    cases: Cases = [
        ((dict(TIES), 2, None, "last"), "any other rule raises ValueError"),
        ((dict(TIES), 3, None, "greatest"), "any other rule raises ValueError"),
        (({"ab": 3}, 2, None, "last"), "any other rule raises ValueError, with no tie too"),
        (({"ab": 3}, 1, None, "ids "), "any other rule raises ValueError, with no tie too"),
        (({"a": 3}, 2, None, "hf"), "any other rule raises ValueError, with no pair too"),
        ((dict(TIES), 0, None, "first!"), "any other rule raises ValueError, with no merge too"),
    ]
    return cases + [(args, "no error: one of the three rules") for args, _ in _train_ties()]


def _train_draw(rng: random.Random) -> tuple:
    """One random case: made-up words and a rule, CS336's two ties, a tie that the marker's
    id decides, two tied pairs with the same left symbol, or a tie first seen in rare words (a
    rule that is none is the errors part's)."""
    kind = rng.choice(["random", "random", "random", "cs336", "marker", "same left", "rare"])
    x, y, z, u, v = rng.sample("abcdefgh", 5)
    if kind == "cs336":
        return _cs336_like(rng), rng.randint(3, 6), None, "lexicographic"
    if kind == "marker":  # (x, y), (y, marker) and (x, marker) tie; x < y
        x, y = sorted((x, y))
        return {x + y: 2, x: 2}, rng.randint(1, 4), rng.choice(["</w>", "_"]), "ids"
    if kind == "same left":  # (x, z) seen first, (x, y) has the smaller right id
        y, z = sorted((y, z))
        n = rng.randint(1, 5)
        return {x + z: n, x + y: n}, rng.randint(1, 4), rng.choice([None, "</w>"]), "ids"
    if kind == "rare":  # (x, y) seen first, in two rare words; (u, v) in a frequent one
        freqs = {x + y: 1, x + y + z: 1, u + v: 2}
        return freqs, rng.randint(1, 4), rng.choice([None, "</w>"]), "first"
    freqs = _random_freqs(rng, rng.choice(["abcde", "ab"]))
    return freqs, rng.randint(4, 15), rng.choice([None, "</w>", "_"]), rng.choice(RULES)


def _train_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _train_draw, TRAIN_BPE, group="random corpora")


def _by_frequency(freqs: dict) -> list:
    return Counter(freqs).most_common()


TRAIN_BPE = TaskSpec(
    "train_bpe",
    train_reference,
    (
        Group("the walkthroughs", 1, _train_walkthroughs),
        Group("ties", 1, _train_ties),
        Group("random corpora", 1, hidden=_train_hidden),
        Group("errors", 1, _train_errors),
    ),
    (
        Mistake(
            "your tie-break compares the joined strings (a + b), not the pairs: CS336's "
            "('BA', 'A') beats ('B', 'ZZ') because 'BA' > 'B'",
            _trainer(
                lambda tied, rule, ids: (
                    max(tied, key=lambda p: p[0] + p[1])
                    if rule == "lexicographic"
                    else _ids_or_book(tied, rule, ids)
                )
            ),
        ),
        Mistake(
            "an unknown tie_break must raise ValueError at once, even when there is no pair "
            "to merge",
            _trainer(_ids_or_book, lazy="round"),
            part="errors",
        ),
        Mistake(
            "an unknown tie_break must raise ValueError at once, even when training never "
            "has a tie to break",
            _trainer(_ids_or_book, lazy="tie"),
            part="errors",
        ),
        Mistake(
            "your 'ids' rule takes the tied pair seen first, as 'first' does: it must compare "
            "the tokens' ids",
            _trainer(
                lambda tied, rule, ids: _book_rules(tied, "first" if rule == "ids" else rule, ids)
            ),
        ),
        Mistake(
            "this is the chapter's trainer: it ignores tie_break, so every rule takes the pair "
            "seen first",
            _trainer(lambda tied, rule, ids: tied[0], rules=None),
        ),
        Mistake(
            "these are the chapter's two trainers: 'ids' is a third rule, which picks by the "
            "tokens' ids",
            _trainer(_book_rules, rules=("first", "lexicographic")),
        ),
        Mistake(
            "'lexicographic' takes the greatest of the tied pairs, not the smallest",
            _trainer(
                lambda tied, rule, ids: (
                    min(tied) if rule == "lexicographic" else _ids_or_book(tied, rule, ids)
                )
            ),
        ),
        Mistake(
            "'first' takes the tied pair that occurs first in the data, not the last one seen",
            _trainer(
                lambda tied, rule, ids: (
                    tied[-1] if rule == "first" else _ids_or_book(tied, rule, ids)
                )
            ),
        ),
        Mistake(
            "'first' means first in the data, in the order of word_freqs: not the pair of the "
            "most frequent word",
            _trainer(_ids_or_book, order=_by_frequency),
        ),
        Mistake(
            "'first' means first in the data, in the order of word_freqs: not in alphabetical "
            "order of the words",
            _trainer(_ids_or_book, order=lambda freqs: sorted(freqs.items())),
        ),
        Mistake(
            "training stops only when no pair is left: a pair that occurs once is merged too",
            _trainer(_ids_or_book, min_count=2),
        ),
        Mistake(
            "a tie_break that names none of the three rules must raise ValueError",
            _trainer(_ids_or_book, rules=None),
            part="errors",
        ),
        Mistake(
            "'ids' compares the tokens' ids, not their strings: the marker and every merged "
            "token come after all the characters",
            _trainer(_ids_by(lambda pair, ids: pair)),
        ),
        Mistake(
            "'ids' compares the tokens' ids, not their lengths: a merged token's id is its "
            "place in the order the merges were learned",
            _trainer(_ids_by(lambda pair, ids: (len(pair[0]), pair[0], len(pair[1]), pair[1]))),
        ),
        Mistake(
            "'ids' takes the tied pair with the smallest ids, not the greatest",
            _trainer(_ids_by(lambda pair, ids: (-ids[pair[0]], -ids[pair[1]]))),
        ),
        Mistake(
            "'ids' compares the left symbols' ids first, and only when they are equal the "
            "right symbols' ids",
            _trainer(_ids_by(lambda pair, ids: ids[pair[0]])),
        ),
        Mistake(
            "'ids' compares the two ids one after the other, left first; their sum mixes them up",
            _trainer(_ids_by(lambda pair, ids: ids[pair[0]] + ids[pair[1]])),
        ),
        Mistake(
            "the characters' ids follow their sorted order, as in the chapter's vocabulary, "
            "not the order in which they first occur",
            _trainer(_ids_or_book, seen=True),
        ),
        Mistake(
            "the marker's id comes after every character's, as in the chapter's vocabulary, "
            "not in sorted order among them",
            _trainer(_ids_or_book, marker_sorted=True),
        ),
    ),
    "look at the tied pairs of the failing case's rounds: which one does the rule take, and "
    "does your trainer take it? Training ends only when no pair is left.",
)

# --- Task 3: tie_losers --------------------------------------------------------------------------


def _rounds(freqs, num_merges, end_of_word, tie_break="first") -> list[tuple]:
    """(rank, (pair chosen, its count), pairs tied at the top in data order, pair counts after
    the merge) for every rank trained."""
    return _rounds_of(tuple(freqs.items()), num_merges, end_of_word, tie_break)


@lru_cache(maxsize=64)  # the reference and the mistakes train on the same words
def _rounds_of(items: tuple, num_merges, end_of_word, tie_break) -> list[tuple]:
    freqs = dict(items)
    splits = initial_splits(freqs, end_of_word)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    rounds = []
    for done in islice(training_rounds(sequences, joined, tie_break=tie_break), num_merges):
        after: dict = {}
        for symbols, weight in done.sequences:
            get_pair_counts(symbols, after, weight)
        tied = [pair for pair, count in done.counts.items() if count == done.merge[1]]
        rounds.append((done.rank, done.merge, tied, after))
    return rounds


def _losers_with(before=False, order=list, keep_gone=True, keep_chosen=False, rule="first"):
    """tie_losers, or a mistake: the count before the merge, the losers in another order,
    pairs no longer there left out, the chosen pair kept, another tie-break."""

    def tie_losers(freqs, num_merges, end_of_word="</w>"):
        losers = []
        for rank, (chosen, top), tied, after in _rounds(freqs, num_merges, end_of_word, rule):
            for pair in order([p for p in tied if keep_chosen or p != chosen]):
                if keep_gone or after.get(pair, 0):
                    losers.append((rank, pair, top if before else after.get(pair, 0)))
        return losers

    return tie_losers


def tie_losers_reference(freqs: dict[str, int], num_merges: int, end_of_word="</w>") -> list:
    """(rank, pair, its count after the merge) for each pair that tied at the top and lost."""
    return _losers_with()(freqs, num_merges, end_of_word)


def _tie_ranks(freqs, num_merges, end_of_word="</w>"):
    """The chapter's nearest cell: the ranks the tie-break decided, with how many pairs tied."""
    rounds = _rounds(freqs, num_merges, end_of_word)
    return [(rank, len(tied)) for rank, _, tied, _ in rounds if len(tied) > 1]


def _losers_examples() -> Cases:
    return [
        ((HUG, 6, "</w>"), "u n wins: n </w> is gone"),
        ((HUG, 6, None), "no marker"),
        ((LOW, 10, "</w>"), "three pairs tied"),
        ((dict(TIES), 4, None), "every pair tied: the losers in data order"),
        ((dict(LATE_TIE), 6, "</w>"), "ties appear only after some merges"),
        (({"ab": 3}, 5, None), "no tie, and training stops after one merge"),
        ((dict(OVERLAP), 6, None), "a pair that overlaps itself"),
        ((CAT, 15, None), "ranks count from 0"),
        ((_english_freqs(), 80, "</w>"), "Shakespeare"),
    ]


def _losers_draw(rng: random.Random) -> tuple:
    """One random case: random words, four two-letter words tied, or one pair far on top."""
    kind = rng.choice(["random", "random", "all tied", "unique top"])
    if kind == "all tied":
        freqs = {"".join(rng.sample("vwxyz", 2)): 1 for _ in range(4)}
    else:
        freqs = _random_freqs(rng, rng.choice(["abcde", "abc"]))
        if kind == "unique top":
            freqs["q" * rng.randint(2, 4)] = 20
    return freqs, rng.randint(3, 15), rng.choice([None, "</w>"])


def _losers_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _losers_draw, TIE_LOSERS)


TIE_LOSERS = TaskSpec(
    "tie_losers",
    tie_losers_reference,
    (Group("examples", 1, _losers_examples), Group("random corpora", 1, hidden=_losers_hidden)),
    (
        Mistake(
            "this lists the ranks the tie-break decided (the chapter's stepper cell); the task "
            "asks what became of each pair that lost",
            _tie_ranks,
        ),
        Mistake(
            "give each losing pair's count after the winner is merged, not the count it tied at",
            _losers_with(before=True),
        ),
        Mistake(
            "a losing pair that the merge removed everywhere is still listed, with count 0",
            _losers_with(keep_gone=False),
        ),
        Mistake(
            "list only the pairs that lost, not the one chosen", _losers_with(keep_chosen=True)
        ),
        Mistake(
            "list the losers of a round in the order they occur in the data, not sorted",
            _losers_with(order=sorted),
        ),
        Mistake(
            "train with the book's rule: among tied pairs, the one seen first wins",
            _losers_with(rule="lexicographic"),
        ),
    ),
    "for each round with a tie, compare your losers and their counts with the failing case's: "
    "which pairs tied, which one won, and what did its merge leave of the others?",
)


# --- Task 4: encode_fallback ---------------------------------------------------------------------


def byte_token(byte: int) -> str:
    """SentencePiece's spelling of a fallback byte: byte_token(233) -> '<0xE9>'."""
    return f"<0x{byte:02X}>"


def _encode_with(spell_unknown, order=1, marker=True, normal=""):
    """encode_fallback, or a mistake: unknown characters spelled another way, the merges
    replayed in another order, no marker, the text normalised first (``normal``)."""

    def encode(text: str, merges: list, alphabet: list[str]) -> list[str]:
        text = unicodedata.normalize(normal, text) if normal else text
        known, tokens = set(alphabet), []
        for word in text.split():
            symbols: list[str] = []
            for ch in word:
                symbols += [ch] if ch in known else spell_unknown(ch)
            tokens += apply_merges((*symbols, *["</w>"] * marker), merges[::order])
        return tokens

    return encode


encode_fallback_reference = _encode_with(lambda ch: [byte_token(b) for b in ch.encode("utf-8")])


@cache
def _english_merges(num_merges: int = 200) -> tuple[list, list[str]]:
    """Merges learned on 3,000 words of the plays, and their alphabet."""
    freqs = _english_freqs()
    return train_reference(freqs, num_merges), sorted({ch for word in freqs for ch in word})


@cache
def _low_model() -> tuple[list, list[str]]:
    return train_reference(LOW, 10), sorted(set("".join(LOW)))


FALLBACK_TEXTS = [
    ("lowest newer", "every character known"),
    ("café", "an unknown two-byte character: one token per byte, not per character"),
    ("Ωμέγα 日本語", "unknown characters of 2 and 3 bytes"),
    ("🦙 👨‍👩‍👧", "emoji: 4 bytes each, joiners too"),
    ("  lower\tnewest\n", "whitespace runs"),
    ("", "no words"),
    ("naïve Straße widest", ""),
    ("cafe\u0301 low\x07er", "a decomposed é and a control character, as they are"),
]


def _encode_examples() -> Cases:
    low, alphabet = _low_model()
    merges, english = _english_merges()
    ordered = [(("b", "c"), 1), (("a", "b"), 1), (("a", "bc"), 1)]
    return [((text, low, alphabet), note) for text, note in FALLBACK_TEXTS] + [
        (("abc cab é", ordered, ["a", "b", "c"]), "merges replayed in rank order"),
        (("Full fathom five, Ariel! naïve 🦙", merges, english), "Shakespeare's merges"),
    ]


def _fallback_text(rng: random.Random) -> str:
    """A random text with an unknown accented letter and an English word in it."""
    return " ".join(
        [
            random_text(rng, rng.randint(2, 6)),
            rng.choice(["café", "naïve", "Ωμέγα"]),
            rng.choice(["lowest", "the", "newer"]),
        ]
    )


def _encode_draw(rng: random.Random) -> tuple:
    """One random case: a random text with an unknown accented letter, an English word, a
    letter written with a combining mark, and a control character below 0x10 inside a word,
    under Shakespeare's merges or the low corpus's."""
    words = [
        _fallback_text(rng),
        rng.choice(["cafe\u0301", "n\u0303o", "A\u030angstr\u00f6m"]),
        rng.choice(["lo", "ne", "the"]) + rng.choice("\x00\x01\x07\x08\x0e\x0f") + "w",
    ]
    rng.shuffle(words)
    return " ".join(words), *rng.choice([_english_merges(), _low_model()])


def _encode_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _encode_draw, ENCODE_FALLBACK)


ENCODE_FALLBACK = TaskSpec(
    "encode_fallback",
    encode_fallback_reference,
    (Group("examples", 1, _encode_examples), Group("random texts", 1, hidden=_encode_hidden)),
    (
        Mistake(
            "an unknown character becomes one token per UTF-8 byte, not one per character",
            _encode_with(lambda ch: [f"<0x{ord(ch):02X}>"]),
        ),
        Mistake(
            "each byte is written with two hex digits, a leading zero included",
            _encode_with(lambda ch: [f"<0x{b:X}>" for b in ch.encode("utf-8")]),
        ),
        Mistake(
            "spell the characters as they are: normalising the text first changes what an "
            "unknown character's bytes are",
            _encode_with(lambda ch: [byte_token(b) for b in ch.encode("utf-8")], normal="NFC"),
        ),
        Mistake(
            "write the hex digits in upper case, as SentencePiece does",
            _encode_with(lambda ch: [f"<0x{b:02x}>" for b in ch.encode("utf-8")]),
        ),
        Mistake(
            "replay the merges in rank order, first merge first",
            _encode_with(lambda ch: [byte_token(b) for b in ch.encode("utf-8")], order=-1),
        ),
        Mistake(
            "every word ends with the marker '</w>' before the merges",
            _encode_with(lambda ch: [byte_token(b) for b in ch.encode("utf-8")], marker=False),
        ),
        Mistake(
            "this is the chapter's <unk>: an unknown character must become its UTF-8 bytes, "
            "so that nothing is lost",
            _encode_with(lambda ch: ["<unk>"]),
        ),
    ),
    "compare your tokens with the failing case's: the words the alphabet spells must come out "
    "as the chapter's encoding gives them, and only unknown characters as byte tokens.",
)

# --- Task 5: decode_fallback ---------------------------------------------------------------------

BYTE_TOKENS = {byte_token(b): bytes([b]) for b in range(256)}


def _drop_last_space(text: str) -> str:
    return text.removesuffix(" ")


def _decode_with(errors="strict", per_token=False, marker_late=False, end=_drop_last_space):
    """decode_fallback, or a mistake: the errors rule, each token decoded on its own, the
    marker replaced after decoding, another ``end`` than dropping one final space."""

    def decode(tokens: list[str]) -> str:
        def piece(token):
            text = token if marker_late else token.replace("</w>", " ")
            return BYTE_TOKENS.get(token) or text.encode("utf-8")

        pieces = [piece(t) for t in tokens]
        if per_token:
            text = "".join(p.decode("utf-8", "replace") for p in pieces)
        else:
            text = b"".join(pieces).decode("utf-8", errors)
        return end(text.replace("</w>", " ") if marker_late else text)

    return decode


decode_fallback_reference = _decode_with()


def _decode_latin1(tokens: list[str]) -> str:
    """A mistake: each byte token read as the character with that number (Latin-1)."""
    text = "".join(chr(BYTE_TOKENS[t][0]) if t in BYTE_TOKENS else t for t in tokens)
    return text.replace("</w>", " ").removesuffix(" ")


def _decode_looking_alike(read_as_byte):
    """A mistake: a token that read_as_byte(token) takes for a byte token is read as the byte
    of its characters 3 and 4."""

    def decode(tokens: list[str]) -> str:
        data = b"".join(
            bytes([int(t[3:5], 16)]) if read_as_byte(t) else t.replace("</w>", " ").encode()
            for t in tokens
        )
        return data.decode("utf-8").removesuffix(" ")

    return decode


def _decode_as_text(tokens: list[str]) -> str:
    """A mistake: the tokens joined as text, each '</w>' of the text a space, then the byte
    tokens read back from the text."""
    text = "".join(tokens).replace("</w>", " ")
    parts = re.split(r"(<0x[0-9A-F]{2}>)", text)
    data = b"".join(BYTE_TOKENS.get(part, part.encode("utf-8")) for part in parts)
    return data.decode("utf-8").removesuffix(" ")


def _decode_examples() -> Cases:
    low, alphabet = _low_model()
    cases: Cases = [
        ((encode_fallback_reference(text, low, alphabet),), note) for text, note in FALLBACK_TEXTS
    ]
    return cases + [
        ((["<0xE2>", "<0x82>", "<0xAC>", "</w>", "5", "</w>"],), "bytes of one character"),
        ((["lo", "w", "</w>", "<0x41>", "</w>"],), "a byte token of an ASCII letter"),
        ((["new", "est</w>", "low</w>"],), "the marker inside a token"),
        ((["<0xC3>", "</w>"],), "a broken byte sequence: decode strictly, raise"),
        ((["<0x3C>", "<0x2F>", "w", "<0x3E>", "</w>"],), "bytes that spell the marker are text"),
        ((["low", "<", "/", "w", ">", "</w>"],), "known characters that spell the marker are text"),
        ((["<", "0", "x", "4", "1", ">", "</w>"],), "known characters that spell a byte token"),
        (([],), "no tokens"),
        ((["a", "<0x20>", "</w>"],), "a space from a byte token is text"),
        ((["a", "<0x09>", "<0x20>", "</w>"],), "a tab and a space from byte tokens are text"),
        ((["<0x09>", "a", "</w>"],), "a tab from a byte token is text"),
        ((["lo", "w"],), "no marker at the end: no space to drop"),
        ((["<0x4", "1>", "</w>"],), "a token that only begins like a byte token is text"),
        # Tokens that only look like byte tokens, one of each kind: the examples' part (drawn
        # tokens are encode_fallback's, whose byte tokens are exact).
        ((["<0x41>b", "</w>"],), "a byte token followed by more is text"),
        ((["<0x41>x", "</w>"],), "a byte token followed by more is text"),
        ((["<0xc3>", "<0xa9>", "</w>"],), "lower-case hex digits are text"),
        ((["<0x4a>", "</w>"],), "lower-case hex digits are text"),
        ((["<0x4G>", "</w>"],), "a digit that is not hex: text"),
    ]


def _decode_hidden(rng: random.Random) -> Cases:
    low, alphabet = _low_model()
    tokens = encode_fallback_reference(_fallback_text(rng), low, alphabet)
    spelled = [byte_token(b) for b in b"</w>"]
    rng.shuffle(spelled)  # the marker's bytes, in some order: still text
    at = rng.choice([0] + [i + 1 for i, token in enumerate(tokens) if token == "</w>"])
    broken = [byte_token(rng.choice([0xC3, 0xE2, 0xF0, 0x80])), "</w>"]
    digit = rng.choice("0123456789ABCDEF")
    return [
        ((tokens,), "random"),
        ((tokens[:at] + [byte_token(b) for b in b"</w>"] + tokens[at:],), "random"),
        ((tokens[:at] + spelled + ["</w>"] + tokens[at:],), "random"),
        ((tokens[:at] + ["<", "/", "w", ">", "</w>"] + tokens[at:],), "random"),
        (
            (
                tokens[:at]
                + ["<", "0", "x", *f"{rng.randrange(256):02X}", ">", "</w>"]
                + tokens[at:],
            ),
            "random",
        ),
        ((tokens + broken,), "random"),
        ((tokens + [*rng.choice([["<0x20>"], ["<0x09>", "<0x20>"]]), "</w>"],), "random"),
        ((tokens + [rng.choice(["low", "e", "<0x41>"])],), "random"),
        ((tokens + [f"<0x{digit}", f"{rng.choice('0123456789ABCDEF')}>", "</w>"],), "random"),
    ]


DECODE_FALLBACK = TaskSpec(
    "decode_fallback",
    decode_fallback_reference,
    (Group("examples", 1, _decode_examples), Group("random tokens", 1, hidden=_decode_hidden)),
    (
        Mistake(
            "one character can span several byte tokens: decoding each token on its own breaks it",
            _decode_with(per_token=True),
        ),
        Mistake("drop the space after the last word", _decode_with(end=str)),
        Mistake(
            "drop only the one space that the last marker adds: other whitespace at the "
            "ends of the text is text",
            _decode_with(end=str.rstrip),
        ),
        Mistake(
            "drop only the one space that the last marker adds: other whitespace at the "
            "ends of the text is text",
            _decode_with(end=str.strip),
        ),
        Mistake(
            "drop only the one space that the last marker adds: a space that a byte token "
            "gives is text",
            _decode_with(end=lambda text: text.rstrip(" ")),
        ),
        Mistake(
            "drop the last character only when it is a space: tokens need not end with a marker",
            _decode_with(end=lambda text: text[:-1]),
        ),
        Mistake(
            "a byte token is exactly '<0x', two upper-case hex digits and '>': a token that "
            "only begins that way is text",
            _decode_looking_alike(lambda t: t.startswith("<0x")),
        ),
        Mistake(
            "a byte token is exactly '<0x', two upper-case hex digits and '>': a token with "
            "more after them is text",
            _decode_looking_alike(lambda t: t.startswith("<0x") and len(t) >= 6),
            part="examples",
        ),
        Mistake(
            "a byte token is exactly '<0x', two upper-case hex digits and '>': a token with "
            "more after them is text",
            _decode_looking_alike(lambda t: re.match(r"<0x[0-9A-F]{2}>", t)),
            part="examples",
        ),
        Mistake(
            "a byte token's two hex digits are upper-case: with lower-case ones it is text",
            _decode_looking_alike(lambda t: re.fullmatch(r"<0x[0-9A-Fa-f]{2}>", t)),
            part="examples",
        ),
        Mistake(
            "'</w>' is a space only in a token that is not a byte token: bytes that spell "
            "it are text",
            _decode_with(marker_late=True),
        ),
        Mistake(
            "decode strictly: a broken byte sequence is an error, not a '\ufffd'",
            _decode_with(errors="replace"),
        ),
        Mistake(
            "decode strictly: a broken byte sequence is an error, not something to drop",
            _decode_with(errors="ignore"),
        ),
        Mistake(
            "a byte token is one byte of UTF-8, not the character with that number: é is two "
            "byte tokens",
            _decode_latin1,
        ),
        Mistake(
            "this is the chapter's decoding: a byte token stands for one byte, not for its "
            "own text",
            lambda tokens: "".join(tokens).replace("</w>", " ").removesuffix(" "),
        ),
        Mistake(
            "read each token on its own: the characters of neighbouring tokens never join "
            "into a marker or a byte token",
            _decode_as_text,
        ),
    ),
    "decode_fallback must undo encode_fallback: look at the first character that differs in "
    "the failing case, and at the tokens it came from.",
)

# --- Task 6: wrong_counts ------------------------------------------------------------------------


def wrong_counts_reference(
    claimed: dict, freqs: dict[str, int], end_of_word: str | None, merges: list
) -> list:
    """[(pair, true count)] for the claimed pairs whose count after merges differs, in order."""
    splits = initial_splits(freqs, end_of_word)
    counts = pair_counts({w: apply_merges(s, merges) for w, s in splits.items()}, freqs)
    return [(pair, counts.get(pair, 0)) for pair, n in claimed.items() if counts.get(pair, 0) != n]


AB_THEN_BC = [(("a", "b"), 0), (("b", "c"), 0)]  # by hand: the b of ab is then taken


def _counts_by_text(claimed: dict, freqs: dict, end_of_word, merges: list) -> list:
    """A mistake: each word's symbols joined with spaces, each merge replayed as a text
    replacement ('b c' -> 'bc' also joins the b that ends 'ab')."""
    splits = {}
    for word, symbols in initial_splits(freqs, end_of_word).items():
        text = " ".join(symbols)
        for (left, right), _ in merges:
            text = text.replace(f"{left} {right}", left + right)
        splits[word] = tuple(text.split(" "))
    counts = pair_counts(splits, freqs)
    return [(pair, counts.get(pair, 0)) for pair, n in claimed.items() if counts.get(pair, 0) != n]


def _wrong_examples() -> Cases:
    made_up = {("x", "y"): 3, ("u", "g"): 19, ("h", "u"): 15}
    claims = walkthroughs.LOW_MISCOUNTED_PAIR_COUNTS
    hug, hug_merges = walkthroughs.HUG_CLAIMED_PAIR_COUNTS, walkthroughs.HUG_CLAIMED_MERGES
    low_merges = train_reference(LOW, 10)
    cs336_merges = train_reference(LOW, 3, None, "lexicographic")
    return [
        ((claims, LOW, "</w>", []), ""),
        ((claims, LOW, None, []), "no marker: pairs with </w> never occur, count 0"),
        ((claims, LOW, "</w>", low_merges[:3]), "after merges: the counts change"),
        ((claims, LOW, "</w>", low_merges[:7]), "merges replayed in rank order"),
        ((hug, HUG, None, []), ""),
        ((hug, HUG, "</w>", hug_merges[:2]), "after two merges"),
        (({("u", "n"): 16, ("h", "ug"): 15}, HUG, None, hug_merges[:1]), "the course's counts"),
        ((made_up, HUG, None, []), "keep the order of claimed"),
        (({("x", "y"): 0, ("q", "u"): 1, ("u", "g"): 20}, HUG, None, []), "absent pairs count 0"),
        ((claims, LOW, None, cs336_merges[:3]), "merges learned with CS336's rule"),
        ((hug, HUG, None, [(("n", "</w>"), 0), (("h", "u"), 0)]), "merges written by hand"),
        (
            ({("ab", "c"): 2, ("a", "bc"): 0}, {"abc": 2, "bc": 1}, None, AB_THEN_BC),
            "a merge joins two whole symbols: b c is no pair once ab is made",
        ),
    ]


def _wrong_draw(rng: random.Random) -> tuple:
    """Claims about made-up words after some merges (learned with any of the three rules, or
    chosen by hand, a pair inside a merged token among them): mostly right, some off by one,
    some as they were before the merges, one with the marker, and a pair that never occurs."""
    freqs, marker = _random_freqs(rng), rng.choice([None, "</w>"])
    spelled = initial_splits(freqs, marker)
    rule = rng.choice([*RULES, "by hand"])
    if rule == "by hand":  # pairs that occur, each chosen at random
        merges, splits = [], spelled
        for _ in range(rng.randint(1, 4)):
            pairs = sorted(pair_counts(splits, freqs))
            if pairs:
                merges.append((rng.choice(pairs), 0))
                splits = merge_pair(splits, merges[-1][0])
        # Then, half the time, a merged token's last character and the symbol after it: no
        # pair of symbols, though a text replacement would join them.
        crossing = {(a[-1], b) for s in splits.values() for a, b in zip(s, s[1:]) if len(a) > 1}
        if crossing and rng.random() < 0.5:
            merges.append((rng.choice(sorted(crossing)), 0))
    else:
        merges = train_reference(freqs, rng.randint(0, 4), marker, rule)
    after = pair_counts({w: apply_merges(s, merges) for w, s in spelled.items()}, freqs)
    before = pair_counts(spelled, freqs)
    marked = pair_counts(initial_splits(freqs, "</w>"), freqs)
    ends = sorted(pair for pair in marked if pair[1] == "</w>")
    pairs = sorted(set(after) | set(rng.sample(sorted(before), min(3, len(before)))))
    pairs += [rng.choice(ends), ("q", "z")]  # right only with the marker; never occurs
    rng.shuffle(pairs)
    true = {**marked, **before, **after}
    return {p: true.get(p, 1) + rng.choice([0, 0, 1, -1]) for p in pairs}, freqs, marker, merges


def _wrong_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(rng, _wrong_draw, WRONG_COUNTS)


WRONG_COUNTS = TaskSpec(
    "wrong_counts",
    wrong_counts_reference,
    (
        Group("the walkthroughs' claims", 1, _wrong_examples),
        Group("random claims", 1, hidden=_wrong_hidden),
    ),
    (
        Mistake(
            "the claims are about the words after the merges: these are the counts before any "
            "merge, as the chapter counted them",
            lambda c, f, eow, merges: wrong_counts_reference(c, f, eow, []),
        ),
        Mistake(
            "replay the merges in rank order: a merge can only join symbols that earlier "
            "merges made",
            lambda c, f, eow, merges: wrong_counts_reference(c, f, eow, merges[::-1]),
        ),
        Mistake(
            "spell the words with end_of_word as given: with None there is no marker",
            lambda c, f, eow, merges: wrong_counts_reference(c, f, "</w>", merges),
        ),
        Mistake(
            "a claimed pair that does not occur has count 0, so its claim is wrong",
            lambda c, f, eow, merges: [
                (p, n) for p, n in wrong_counts_reference(c, f, eow, merges) if n
            ],
        ),
        Mistake(
            "apply the merges you are given: training your own, with the book's rule, gives "
            "other merges when they were learned with another rule or chosen by hand",
            lambda c, f, eow, merges: wrong_counts_reference(
                c, f, eow, train_reference(f, len(merges), eow)
            ),
        ),
        Mistake(
            "a merge joins two whole symbols: replacing text also joins the last letter of "
            "one symbol to the next (the b of ab to c)",
            _counts_by_text,
        ),
        Mistake(
            "return the true counts of the wrong claims, not the claimed ones",
            lambda c, f, eow, merges: [
                (p, c[p]) for p, _ in wrong_counts_reference(c, f, eow, merges)
            ],
        ),
        Mistake(
            "keep the wrong claims in the order of claimed, not sorted",
            lambda c, f, eow, merges: sorted(wrong_counts_reference(c, f, eow, merges)),
        ),
    ),
    "compare your list with the failing case's: which claims are wrong, what each one's "
    "true count is, and in which order they come.",
)

SPECS = (MERGE_AND_SAVE, TRAIN_BPE, TIE_LOSERS, ENCODE_FALLBACK, DECODE_FALLBACK, WRONG_COUNTS)
check, judge_tasks = checks_of(SPECS)

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
