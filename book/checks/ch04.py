"""Checks of exercises/04_char_bpe.ipynb. The reference is book.tokenizers.char_bpe.

Cases mix the walkthroughs' toy corpora (with ``</w>``, with ``_`` and without a marker), corpora full
of ties where "first in the data" differs from alphabetical order and from "last seen",
overlapping pairs (``aaaa``), and Shakespeare, so that no constant or shortcut passes.
"""

from __future__ import annotations

import copy
from functools import cache

from book import corpora
from book.checks.core import Case, check_cases, check_function
from book import walkthroughs
from book.tokenizers.char_bpe import (
    CharBPE,
    initial_splits,
    learn_merges,
    merge_pair,
    pair_counts,
    word_freqs,
)

# (word_freqs, end_of_word) pairs that training and counting are checked on.
TIES = {"zy": 1, "ab": 1, "yz": 1, "ba": 1}  # all pairs tie: first seen is ('z', 'y')
LATE_TIE = {"xa": 2, "ab": 1, "ba": 3, "cab": 1}  # ties appear only after some merges
OVERLAP = {"aaaa": 2, "aaab": 1, "b": 5, "baaa": 1}
CORPORA = [
    (walkthroughs.HUG_WORD_FREQS, "</w>"),
    (walkthroughs.HUG_WORD_FREQS, None),
    (walkthroughs.LOW_WORD_FREQS, "</w>"),
    (walkthroughs.LOW_WORD_FREQS, "_"),
    (word_freqs(walkthroughs.CAT_TEXT), None),
    (TIES, None),
    (LATE_TIE, "</w>"),
    (OVERLAP, None),
    (OVERLAP, "</w>"),
]


def _marker(end_of_word: str | None) -> str:
    """How a case names its marker."""
    return "no marker" if end_of_word is None else repr(end_of_word)


@cache
def _english_freqs(n_words: int = 3000) -> dict[str, int]:
    """Word frequencies of the first ``n_words`` words of the training plays."""
    return word_freqs(" ".join(corpora.english("train").split()[:n_words]))


@cache
def _english_bpe(num_merges: int = 300) -> CharBPE:
    """The chapter's English tokenizer, cut to its first ``num_merges`` merges."""
    text = corpora.english("train")
    alphabet = set("".join(text.split()))
    return CharBPE.train(text, vocab_size=len(alphabet) + 2 + num_merges, unk=True)


def check_count_pairs(count_pairs) -> None:
    """count_pairs(splits, word_freqs) -> {pair: weighted count}, in order of first occurrence."""
    cases = []
    inputs = [(initial_splits(freqs, marker), freqs) for freqs, marker in CORPORA]
    inputs.append((learn_merges(initial_splits(walkthroughs.LOW_WORD_FREQS), walkthroughs.LOW_WORD_FREQS, 4)[1],
                   walkthroughs.LOW_WORD_FREQS))
    inputs.append(({"a": ("a",)}, {"a": 3}))
    inputs.append((initial_splits(_english_freqs()), _english_freqs()))
    for splits, freqs in inputs:  # first the counts, then the order of the keys
        call = f"count_pairs({_short(splits)}, {_short(freqs)})"
        cases.append(Case(call, lambda s=splits, f=freqs: count_pairs(copy.deepcopy(s), dict(f)),
                          pair_counts(splits, freqs)))
    for splits, freqs in inputs:
        call = f"the order of the keys of count_pairs({_short(splits)}, {_short(freqs)})"
        cases.append(Case(call, lambda s=splits, f=freqs: list(count_pairs(copy.deepcopy(s), dict(f))),
                          list(pair_counts(splits, freqs))))
    check_cases("count_pairs", {"count_pairs": count_pairs}, cases, points=2,
                hint="loop over word_freqs.items(), add freq for each pair zip(symbols, symbols[1:]), "
                     "and build a plain dict so pairs keep the order in which they were first seen.")


def check_merge_pair(merge_pair_) -> None:
    """merge_pair(splits, pair) -> new splits with pair merged left to right; input unchanged."""
    low = initial_splits(walkthroughs.LOW_WORD_FREQS)
    overlap = initial_splits(OVERLAP, None)
    calls = [
        ((low, ("e", "s")), merge_pair(low, ("e", "s"))),
        ((low, ("t", "</w>")), merge_pair(low, ("t", "</w>"))),
        ((low, ("x", "y")), low),
        ((overlap, ("a", "a")), merge_pair(overlap, ("a", "a"))),
        ((overlap, ("a", "b")), merge_pair(overlap, ("a", "b"))),
        ((merge_pair(overlap, ("a", "a")), ("aa", "aa")), merge_pair(merge_pair(overlap, ("a", "a")), ("aa", "aa"))),
        (({"hug": ("h", "ug", "</w>")}, ("ug", "</w>")), {"hug": ("h", "ug</w>")}),
        # "b" + "c" is not a pair of ("ab", "c"): merges join whole symbols, not substrings.
        (({"abc": ("ab", "c", "</w>"), "bc": ("b", "c", "</w>")}, ("b", "c")),
         {"abc": ("ab", "c", "</w>"), "bc": ("bc", "</w>")}),
    ]
    cases = [Case(f"merge_pair({_short(splits)}, {pair!r})",
                  lambda s=splits, p=pair: merge_pair_(copy.deepcopy(s), p), expected)
             for (splits, pair), expected in calls]

    def input_after_call():
        splits = copy.deepcopy(low)
        merge_pair_(splits, ("l", "o"))
        return splits

    cases.append(Case("the splits passed to merge_pair(splits, ('l', 'o')) afterwards", input_after_call, low))
    check_cases("merge_pair", {"merge_pair": merge_pair_}, cases, points=2,
                hint="scan each word left to right; when symbols[i], symbols[i + 1] is the pair, "
                     "append the joined symbol and skip 2, else append symbols[i] and skip 1. "
                     "Build a new dict of tuples instead of changing the one you were given.")


def check_train_bpe(train_bpe) -> None:
    """train_bpe(word_freqs, num_merges, end_of_word) -> [(pair, count), ...] with the book's tie-break."""
    calls = []
    for freqs, marker in CORPORA:
        for num_merges in (0, 3, 12, 40):
            expected, _ = learn_merges(initial_splits(freqs, marker), freqs, num_merges)
            calls.append(((dict(freqs), num_merges, marker), expected))
    english = _english_freqs()
    calls.append(((english, 25, "</w>"), learn_merges(initial_splits(english), english, 25)[0]))
    check_function("train_bpe", train_bpe, calls, points=3,
                   hint="count, pick max(counts, key=counts.get) (the first of equal maxima: the pair "
                        "seen first), record (pair, count), merge it everywhere, repeat; stop early "
                        "when no pair is left. With end_of_word=None, spell words without a marker.")


def check_encode_word(encode_word) -> None:
    """encode_word(word, merges, alphabet) -> tokens: unknown characters as '<unk>', then the merges."""
    low = CharBPE(learn_merges(initial_splits(walkthroughs.LOW_WORD_FREQS), walkthroughs.LOW_WORD_FREQS, 10)[0],
                  sorted(set("".join(walkthroughs.LOW_WORD_FREQS))), unk=True)
    english = _english_bpe()
    ordered = CharBPE([(("b", "c"), 1), (("a", "b"), 1), (("a", "bc"), 1)], ["a", "b", "c"], unk=True)
    calls = []
    for bpe, words in [(low, ["lowest", "newer", "widest", "low", "bowl", "slow"]),
                       (ordered, ["abc", "abcabc", "cab", "aab"]),
                       (english, ["Full", "fathom", "father", "Ariel's", "Zounds", "café", "strangest"])]:
        for word in words:
            calls.append(((word, list(bpe.merges), list(bpe.alphabet)), bpe.tokenize(word)))
    check_function("encode_word", encode_word, calls, points=2,
                   hint="start from [ch if ch in alphabet else '<unk>' for ch in word] + ['</w>'], then "
                        "apply every merge in the order of the list, each one to the whole word.")


def check_merge_table(merge_table) -> None:
    """merge_table(word_freqs, num_merges, end_of_word) -> [(number, pair, new token, count), ...]."""
    calls = []
    for freqs, marker, num_merges in [
        (word_freqs(walkthroughs.CAT_TEXT), walkthroughs.CAT_MARKER, walkthroughs.CAT_NUM_MERGES),
        (walkthroughs.LOW_WORD_FREQS, walkthroughs.LOW_004_MARKER, walkthroughs.LOW_004_NUM_MERGES),
        (walkthroughs.LOW_WORD_FREQS, walkthroughs.LOW_002_MARKER, walkthroughs.LOW_002_NUM_MERGES),
        (walkthroughs.HUG_WORD_FREQS, walkthroughs.HUG_MARKER, 3),
        (walkthroughs.HUG_WORD_FREQS, "</w>", 8),
        (TIES, None, 5),
    ]:
        merges, _ = learn_merges(initial_splits(freqs, marker), freqs, num_merges)
        rows = [(number, pair, pair[0] + pair[1], count) for number, (pair, count) in enumerate(merges, 1)]
        calls.append(((dict(freqs), num_merges, marker), rows))
    check_function("merge_table", merge_table, calls, points=2,
                   hint="number the merges from 1, as the walkthroughs do, and stop when training stops: the "
                        "cat corpus runs out of pairs after 14 merges.")


def check_wrong_counts(wrong_counts) -> None:
    """wrong_counts(claimed, word_freqs, end_of_word) -> {pair: true count} where a claim is wrong."""
    made_up = {("x", "y"): 3, ("u", "g"): 19, ("h", "u"): 15}
    calls = []
    for claimed, freqs, marker in [
        (walkthroughs.LOW_004_CLAIMED_PAIR_COUNTS, walkthroughs.LOW_WORD_FREQS, "</w>"),
        (walkthroughs.LOW_004_CLAIMED_PAIR_COUNTS, walkthroughs.LOW_WORD_FREQS, None),
        (walkthroughs.HUG_CLAIMED_PAIR_COUNTS, walkthroughs.HUG_WORD_FREQS, None),
        (walkthroughs.HUG_CLAIMED_PAIR_COUNTS, walkthroughs.HUG_WORD_FREQS, "</w>"),
        (made_up, walkthroughs.HUG_WORD_FREQS, None),
    ]:
        counts = pair_counts(initial_splits(freqs, marker), freqs)
        expected = {pair: counts.get(pair, 0) for pair, n in claimed.items() if counts.get(pair, 0) != n}
        calls.append(((dict(claimed), dict(freqs), marker), expected))
    check_function("wrong_counts", wrong_counts, calls, points=2,
                   hint="count the pairs of the words as spelled with end_of_word, and keep each claimed "
                        "pair whose true count (0 if it never occurs) differs from the claim.")


def _short(value) -> str:
    """A short label for a big argument: its first two items and how many there are."""
    if isinstance(value, dict) and len(value) > 3:
        first = ", ".join(f"{k!r}: {v!r}" for k, v in list(value.items())[:2])
        return f"{{{first}, … {len(value)} items}}"
    return repr(value)
