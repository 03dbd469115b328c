"""Checks of exercises/04_char_bpe.ipynb. The reference is book.tokenizers.char_bpe.

Cases mix the walkthroughs' toy corpora (with ``</w>``, with ``_`` and without a marker), corpora full
of ties where "first in the data" differs from alphabetical order and from "last seen",
overlapping pairs (``aaaa``), and Shakespeare, so that no constant or shortcut passes.
"""

from __future__ import annotations

import random

import copy
from functools import cache

from book import corpora
from book.checks.core import Case, check_cases, check_function
from book.checks.spec import Call, Task, calls_of, function_task
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


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
AFTER_CALL = """
def after_call(function, value, *args):
    function(value, *args)
    return value
"""


def _random_freqs(rng: random.Random) -> dict[str, int]:
    """Word frequencies of made-up words over a small alphabet: many ties and overlaps."""
    words = {
        "".join(rng.choice("abcde") for _ in range(rng.randint(1, 6)))
        for _ in range(rng.randint(2, 8))
    }
    return {word: rng.randint(1, 9) for word in sorted(words, key=lambda _: rng.random())}


def _train_reference(freqs: dict[str, int], num_merges: int, marker: str | None) -> list:
    """The reference merges with the book's tie-break."""
    return learn_merges(initial_splits(freqs, marker), freqs, num_merges)[0]


def _table_reference(freqs: dict[str, int], num_merges: int, marker: str | None) -> list:
    """The reference numbered merge table."""
    merges = _train_reference(freqs, num_merges, marker)
    return [
        (number, pair, pair[0] + pair[1], count) for number, (pair, count) in enumerate(merges, 1)
    ]


def _wrong_reference(claimed: dict, freqs: dict[str, int], marker: str | None) -> dict:
    """The claimed pairs whose true count differs, with the true count."""
    counts = pair_counts(initial_splits(freqs, marker), freqs)
    return {pair: counts.get(pair, 0) for pair, n in claimed.items() if counts.get(pair, 0) != n}


def _count_pair_calls(inputs: list, hidden: bool) -> list[Call]:
    """count_pairs's counts and the order of its keys, as one list of items."""
    return [
        Call(
            f"list(count_pairs({_short(splits)}, {_short(freqs)}).items())",
            "list(count_pairs(a0, a1).items())",
            (splits, freqs),
            list(pair_counts(splits, freqs).items()),
            hidden,
        )
        for splits, freqs in inputs
    ]


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 04's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    hidden = [(_random_freqs(rng), rng.choice([None, "</w>", "_"])) for _ in range(4)]
    inputs = [(initial_splits(freqs, marker), freqs) for freqs, marker in CORPORA]
    inputs += [
        (
            learn_merges(
                initial_splits(walkthroughs.LOW_WORD_FREQS), walkthroughs.LOW_WORD_FREQS, 4
            )[1],
            walkthroughs.LOW_WORD_FREQS,
        ),
        ({"a": ("a",)}, {"a": 3}),
        (initial_splits(_english_freqs()), _english_freqs()),
    ]
    secret = [(initial_splits(freqs, marker), freqs) for freqs, marker in hidden]
    low, overlap = initial_splits(walkthroughs.LOW_WORD_FREQS), initial_splits(OVERLAP, None)
    merge_args = [
        (low, ("e", "s")),
        (low, ("t", "</w>")),
        (low, ("x", "y")),
        (overlap, ("a", "a")),
        (overlap, ("a", "b")),
        (merge_pair(overlap, ("a", "a")), ("aa", "aa")),
        ({"hug": ("h", "ug", "</w>")}, ("ug", "</w>")),
        ({"abc": ("ab", "c", "</w>"), "bc": ("b", "c", "</w>")}, ("b", "c")),
    ]
    merge_hidden = [
        (splits, rng.choice(list(pair_counts(splits, freqs)) or [("a", "b")]))
        for splits, freqs in secret
    ]
    merges = calls_of("merge_pair", merge_args, merge_pair) + calls_of(
        "merge_pair", merge_hidden, merge_pair, hidden=True
    )
    merges.append(
        Call(
            "the splits passed to merge_pair(splits, ('l', 'o')) afterwards",
            "after_call(merge_pair, a0, a1)",
            (low, ("l", "o")),
            low,
        )
    )
    train_fixed = [(dict(freqs), n, marker) for freqs, marker in CORPORA for n in (0, 3, 12, 40)]
    train_fixed.append((_english_freqs(), 25, "</w>"))
    train_hidden = [(freqs, rng.randint(1, 15), marker) for freqs, marker in hidden]
    low_bpe = CharBPE(
        _train_reference(walkthroughs.LOW_WORD_FREQS, 10, "</w>"),
        sorted(set("".join(walkthroughs.LOW_WORD_FREQS))),
        unk=True,
    )
    ordered = CharBPE(
        [(("b", "c"), 1), (("a", "b"), 1), (("a", "bc"), 1)], ["a", "b", "c"], unk=True
    )
    english = _english_bpe()
    word_calls = []
    for bpe, words, secret_words in [
        (
            low_bpe,
            ["lowest", "newer", "widest", "low", "bowl", "slow"],
            ["".join(rng.choice("lowestnrid") for _ in range(6))],
        ),
        (ordered, ["abc", "abcabc", "cab", "aab"], ["".join(rng.choice("abc") for _ in range(7))]),
        (
            english,
            ["Full", "fathom", "father", "Ariel's", "Zounds", "café", "strangest"],
            rng.sample(corpora.english("heldout").split(), 4),
        ),
    ]:
        args = [(word, list(bpe.merges), list(bpe.alphabet)) for word in words]
        word_calls += calls_of("encode_word", args, lambda w, m, a, bpe=bpe: bpe.tokenize(w))
        args = [(word, list(bpe.merges), list(bpe.alphabet)) for word in secret_words]
        word_calls += calls_of(
            "encode_word", args, lambda w, m, a, bpe=bpe: bpe.tokenize(w), hidden=True
        )
    table_fixed = [
        (word_freqs(walkthroughs.CAT_TEXT), walkthroughs.CAT_NUM_MERGES, walkthroughs.CAT_MARKER),
        (walkthroughs.LOW_WORD_FREQS, walkthroughs.LOW_004_NUM_MERGES, walkthroughs.LOW_004_MARKER),
        (walkthroughs.LOW_WORD_FREQS, walkthroughs.LOW_002_NUM_MERGES, walkthroughs.LOW_002_MARKER),
        (walkthroughs.HUG_WORD_FREQS, 3, walkthroughs.HUG_MARKER),
        (walkthroughs.HUG_WORD_FREQS, 8, "</w>"),
        (TIES, 5, None),
    ]
    made_up = {("x", "y"): 3, ("u", "g"): 19, ("h", "u"): 15}
    wrong_fixed = [
        (walkthroughs.LOW_004_CLAIMED_PAIR_COUNTS, walkthroughs.LOW_WORD_FREQS, "</w>"),
        (walkthroughs.LOW_004_CLAIMED_PAIR_COUNTS, walkthroughs.LOW_WORD_FREQS, None),
        (walkthroughs.HUG_CLAIMED_PAIR_COUNTS, walkthroughs.HUG_WORD_FREQS, None),
        (walkthroughs.HUG_CLAIMED_PAIR_COUNTS, walkthroughs.HUG_WORD_FREQS, "</w>"),
        (made_up, walkthroughs.HUG_WORD_FREQS, None),
    ]
    wrong_hidden = []
    for freqs, marker in hidden:
        counts = pair_counts(initial_splits(freqs, marker), freqs)
        claimed = {pair: n + rng.choice([0, 0, 1, -1]) for pair, n in counts.items()}
        claimed[("q", "z")] = rng.randint(1, 5)
        wrong_hidden.append((claimed, freqs, marker))
    return [
        Task(
            "count_pairs",
            2,
            ("count_pairs",),
            _count_pair_calls(inputs, False) + _count_pair_calls(secret, True),
            hint="loop over word_freqs.items(), add freq for each pair zip(symbols, symbols[1:]), "
            "and build a plain dict so pairs keep the order in which they were first seen.",
        ),
        Task(
            "merge_pair",
            2,
            ("merge_pair",),
            merges,
            setup=AFTER_CALL,
            hint="scan each word left to right; when symbols[i], symbols[i + 1] is the pair, "
            "append the joined symbol and skip 2, else append symbols[i] and skip 1. "
            "Build a new dict of tuples instead of changing the one you were given.",
        ),
        function_task(
            "train_bpe",
            3,
            train_fixed,
            _train_reference,
            hidden=train_hidden,
            hint="count, pick max(counts, key=counts.get) (the first of equal maxima: the pair "
            "seen first), record (pair, count), merge it everywhere, repeat; stop early "
            "when no pair is left. With end_of_word=None, spell words without a marker.",
        ),
        Task(
            "encode_word",
            2,
            ("encode_word",),
            word_calls,
            hint="start from [ch if ch in alphabet else '<unk>' for ch in word] + ['</w>'], then "
            "apply every merge in the order of the list, each one to the whole word.",
        ),
        function_task(
            "merge_table",
            2,
            table_fixed,
            _table_reference,
            hidden=[(freqs, rng.randint(1, 12), marker) for freqs, marker in hidden],
            hint="number the merges from 1, as the walkthroughs do, and stop when training stops: "
            "the cat corpus runs out of pairs after 14 merges.",
        ),
        function_task(
            "wrong_counts",
            2,
            wrong_fixed,
            _wrong_reference,
            hidden=wrong_hidden,
            hint="count the pairs of the words as spelled with end_of_word, and keep each claimed "
            "pair whose true count (0 if it never occurs) differs from the claim.",
        ),
    ]
