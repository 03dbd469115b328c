"""Checks of exercises/04_char_bpe.ipynb. The reference is book.tokenizers.char_bpe.

Every task is a variant, an extension or a measurement of the chapter's code: what a merge
saves (overlapping pairs save less than they count), training with CS336's lexicographic
tie-break, the ranks the tie-break decides, a byte fallback for unknown characters and its
decoder, and checking a walkthrough's pair counts. Cases mix the walkthroughs' toy corpora
(with ``</w>``, with ``_`` and without a marker), corpora full of ties where "first in the
data" differs from "greatest" and from "last seen", overlapping pairs (``aaaa``), many
scripts and emoji, and Shakespeare; the judge adds hidden corpora drawn at random. Where a
case targets one mistake, its label says which (``[a pair that overlaps itself]``).
"""

from __future__ import annotations

import copy
import random
from functools import cache
from itertools import islice

from book import corpora, walkthroughs
from book.checks.cases import Cases, check_on_cases, judge_calls, outcome
from book.checks.core import Case
from book.checks.spec import Call, Task, random_text
from book.tokenizers.bpe.char_bpe import (
    apply_merges,
    initial_splits,
    merge_pair,
    pair_counts,
    word_freqs,
)
from book.tokenizers.bpe.core import joined, train_naive, training_rounds

TIES = {"zy": 1, "ab": 1, "yz": 1, "ba": 1}  # every pair ties: first seen ('z', 'y'), greatest too
LATE_TIE = {"xa": 2, "ab": 1, "ba": 3, "cab": 1}  # ties appear only after some merges
FIRST_NOT_GREATEST = {"ab": 2, "ba": 2, "cd": 1}  # first seen ('a', 'b'), greatest ('b', 'a')
OVERLAP = {"aaaa": 2, "aaab": 1, "b": 5, "baaa": 1}
CORPORA: list[tuple[dict[str, int], str | None]] = [
    (walkthroughs.HUG_WORD_FREQS, "</w>"),
    (walkthroughs.HUG_WORD_FREQS, None),
    (walkthroughs.LOW_WORD_FREQS, "</w>"),
    (walkthroughs.LOW_WORD_FREQS, "_"),
    (word_freqs(walkthroughs.CAT_TEXT), None),
    (TIES, None),
    (FIRST_NOT_GREATEST, None),
    (LATE_TIE, "</w>"),
    (OVERLAP, None),
    (OVERLAP, "</w>"),
]
TIE_BREAKS = ("first", "lexicographic")


@cache
def _english_freqs(n_words: int = 3000) -> dict[str, int]:
    """Word frequencies of the first ``n_words`` words of the training plays."""
    return word_freqs(" ".join(corpora.english("train").split()[:n_words]))


# --- the references ------------------------------------------------------------------------------


def merge_and_save_reference(splits: dict, freqs: dict[str, int], pair: tuple) -> tuple:
    """(the splits with pair merged, tokens the merge removes from the corpus)."""
    merged = merge_pair(splits, pair)
    saved = sum((len(splits[w]) - len(merged[w])) * freqs.get(w, 0) for w in splits)
    return merged, saved


def train_reference(
    freqs: dict[str, int],
    num_merges: int,
    end_of_word: str | None = "</w>",
    tie_break: str = "first",
) -> list:
    """The merges with either tie-break (ValueError for another rule)."""
    splits = initial_splits(freqs, end_of_word)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    return train_naive(sequences, num_merges, joined, tie_break=tie_break)


def tie_ranks_reference(
    freqs: dict[str, int], num_merges: int, end_of_word: str | None = "</w>"
) -> list[tuple[int, int]]:
    """(rank, number of pairs tied at the top) for each rank the book's tie-break decided."""
    splits = initial_splits(freqs, end_of_word)
    sequences = {splits[word]: freq for word, freq in freqs.items()}
    ties = []
    for done in islice(training_rounds(sequences, joined), num_merges):
        top = done.merge[1]
        n_tied = sum(count == top for count in done.counts.values())
        if n_tied > 1:
            ties.append((done.rank, n_tied))
    return ties


def byte_token(byte: int) -> str:
    """SentencePiece's spelling of a fallback byte: byte_token(233) -> '<0xE9>'."""
    return f"<0x{byte:02X}>"


def encode_fallback_reference(text: str, merges: list, alphabet: list[str]) -> list[str]:
    """Tokens of text: unknown characters as their UTF-8 bytes, then the merges replayed."""
    known, tokens = set(alphabet), []
    for word in text.split():
        symbols: list[str] = []
        for ch in word:
            symbols += [ch] if ch in known else [byte_token(b) for b in ch.encode("utf-8")]
        tokens += apply_merges((*symbols, "</w>"), merges)
    return tokens


BYTE_TOKENS = {byte_token(b): bytes([b]) for b in range(256)}


def decode_fallback_reference(tokens: list[str]) -> str:
    """Text of tokens: byte tokens as bytes, '</w>' as a space, the last space dropped."""
    data = b"".join(BYTE_TOKENS.get(t) or t.replace("</w>", " ").encode("utf-8") for t in tokens)
    return data.decode("utf-8").removesuffix(" ")


def wrong_counts_reference(claimed: dict, freqs: dict[str, int], end_of_word: str | None) -> dict:
    """The claimed pairs whose true count differs, with the true count (0 if absent)."""
    counts = pair_counts(initial_splits(freqs, end_of_word), freqs)
    return {pair: counts.get(pair, 0) for pair, n in claimed.items() if counts.get(pair, 0) != n}


# --- the cases -----------------------------------------------------------------------------------


def _save_cases() -> Cases:
    """merge_and_save: overlaps, marker pairs, absent pairs, whole-symbol matches, weights."""
    low, overlap = initial_splits(walkthroughs.LOW_WORD_FREQS), initial_splits(OVERLAP, None)
    hug = initial_splits(walkthroughs.HUG_WORD_FREQS)
    english = _english_freqs(400)
    return [
        ((hug, walkthroughs.HUG_WORD_FREQS, ("u", "g")), "each word counted as often as it occurs"),
        ((low, walkthroughs.LOW_WORD_FREQS, ("e", "s")), ""),
        ((low, walkthroughs.LOW_WORD_FREQS, ("t", "</w>")), "a pair with the marker"),
        ((low, walkthroughs.LOW_WORD_FREQS, ("x", "y")), "a pair that never occurs saves 0"),
        ((overlap, OVERLAP, ("a", "a")), "a pair that overlaps itself saves less than its count"),
        ((merge_pair(overlap, ("a", "a")), OVERLAP, ("aa", "aa")), "merged symbols"),
        (
            ({"abc": ("ab", "c"), "bc": ("b", "c")}, {"abc": 2, "bc": 3}, ("b", "c")),
            "merges join whole symbols, not substrings",
        ),
        ((initial_splits(english), english, ("t", "h")), "Shakespeare"),
    ]


def _train_cases() -> Cases:
    """train_bpe: both rules on every corpus, a bad rule, Shakespeare."""
    cases: Cases = []
    for freqs, marker in CORPORA:
        for tie_break in TIE_BREAKS:
            for num_merges in (0, 3, 12, 40):
                cases.append(((dict(freqs), num_merges, marker, tie_break), ""))
    english = _english_freqs()
    cases += [
        ((english, 30, "</w>", "lexicographic"), "Shakespeare, greatest pair wins ties"),
        ((english, 30, "</w>", "first"), "Shakespeare, first in the data wins ties"),
        ((dict(TIES), 2, None, "last"), "any other rule raises ValueError"),
    ]
    return cases


def _tie_cases() -> Cases:
    """tie_ranks: ties early and late, none at all, a corpus that runs out of pairs."""
    english = _english_freqs()
    return [
        ((walkthroughs.HUG_WORD_FREQS, 6, "</w>"), ""),
        ((walkthroughs.HUG_WORD_FREQS, 6, None), "no marker"),
        ((walkthroughs.LOW_WORD_FREQS, 10, "</w>"), ""),
        ((dict(TIES), 4, None), "every pair tied: count them all"),
        ((dict(LATE_TIE), 6, "</w>"), "ties appear only after some merges"),
        (({"ab": 3}, 5, None), "no tie, and training stops after one merge"),
        ((word_freqs(walkthroughs.CAT_TEXT), 15, None), "ranks count from 0"),
        ((english, 120, "</w>"), "Shakespeare"),
    ]


@cache
def _english_merges(num_merges: int = 200) -> tuple[list, list[str]]:
    """Merges learned on 3,000 words of the plays, and their alphabet."""
    freqs = _english_freqs()
    return train_reference(freqs, num_merges), sorted({ch for word in freqs for ch in word})


def _fallback_texts() -> list[tuple[str, str]]:
    """Texts for the byte fallback: known words, accents, many scripts, emoji, whitespace."""
    return [
        ("lowest newer", "every character known"),
        ("café", "an unknown two-byte character: one token per byte, not per character"),
        ("Ωμέγα 日本語", "unknown characters of 2 and 3 bytes"),
        ("🦙 👨‍👩‍👧", "emoji: 4 bytes each, joiners too"),
        ("  lower\tnewest\n", "whitespace runs"),
        ("", "no words"),
        ("naïve Straße widest", ""),
    ]


def _encode_cases() -> Cases:
    """encode_fallback on the low corpus and on Shakespeare's merges."""
    low = train_reference(walkthroughs.LOW_WORD_FREQS, 10)
    low_alphabet = sorted(set("".join(walkthroughs.LOW_WORD_FREQS)))
    merges, alphabet = _english_merges()
    ordered = [(("b", "c"), 1), (("a", "b"), 1), (("a", "bc"), 1)]
    cases: Cases = [((text, low, low_alphabet), note) for text, note in _fallback_texts()]
    cases += [
        (("abc cab é", ordered, ["a", "b", "c"]), "merges replayed in rank order"),
        (("Full fathom five, Ariel! naïve 🦙", merges, alphabet), "Shakespeare's merges"),
    ]
    return cases


def _decode_cases() -> Cases:
    """decode_fallback: tokens of encode_fallback, hand-made ones, a broken byte sequence."""
    low = train_reference(walkthroughs.LOW_WORD_FREQS, 10)
    low_alphabet = sorted(set("".join(walkthroughs.LOW_WORD_FREQS)))
    cases: Cases = [
        ((encode_fallback_reference(text, low, low_alphabet),), note)
        for text, note in _fallback_texts()
    ]
    cases += [
        ((["<0xE2>", "<0x82>", "<0xAC>", "</w>", "5", "</w>"],), "bytes of one character"),
        ((["lo", "w", "</w>", "<0x41>", "</w>"],), "a byte token of an ASCII letter"),
        ((["new", "est</w>", "low</w>"],), "the marker inside a token"),
        ((["<0xC3>", "</w>"],), "a broken byte sequence: decode strictly, raise"),
        ((["<0x3C>", "<0x2F>", "w", "<0x3E>", "</w>"],), "bytes that spell the marker are text"),
        (([],), "no tokens"),
    ]
    return cases


def _wrong_cases() -> Cases:
    """wrong_counts: the walkthroughs' claims with and without a marker, made-up claims."""
    made_up = {("x", "y"): 3, ("u", "g"): 19, ("h", "u"): 15}
    return [
        ((walkthroughs.LOW_MISCOUNTED_PAIR_COUNTS, walkthroughs.LOW_WORD_FREQS, "</w>"), ""),
        (
            (walkthroughs.LOW_MISCOUNTED_PAIR_COUNTS, walkthroughs.LOW_WORD_FREQS, None),
            "no marker: pairs with </w> never occur, count 0",
        ),
        ((walkthroughs.HUG_CLAIMED_PAIR_COUNTS, walkthroughs.HUG_WORD_FREQS, None), ""),
        ((walkthroughs.HUG_CLAIMED_PAIR_COUNTS, walkthroughs.HUG_WORD_FREQS, "</w>"), ""),
        ((made_up, walkthroughs.HUG_WORD_FREQS, None), "keep the order of claimed"),
    ]


# --- the checks the notebook runs ----------------------------------------------------------------

HINTS = {
    "merge_and_save": "saved is what the merge removes, word by word: (symbols before - symbols "
    "after) * the word's frequency. It is not the pair's count: in a a a the pair occurs twice "
    "but only one merge fits. Build new tuples in a new dict; do not change the one you get.",
    "train_bpe": "find the top count, then the pairs that have it, in the order count_pairs "
    "lists them: 'first' takes the first of them, 'lexicographic' the greatest, max(tied) "
    "(not the smallest, and not the last seen). Stop early when no pair is left; raise "
    "ValueError for any other tie_break.",
    "tie_ranks": "train with the book's rule and, before each merge, count the pairs whose count "
    "equals the top count; record (rank, that number) when it is more than 1. Ranks count from "
    "0, and a round with no pair left ends training.",
    "encode_fallback": "an unknown character becomes one <0xHH> token per UTF-8 byte "
    "(ch.encode('utf-8'), two upper-case hex digits: f'<0x{b:02X}>'), not one per character; "
    "every word ends with '</w>', then the merges are replayed in rank order.",
    "decode_fallback": "turn every token into bytes (a <0xHH> token is bytes([int(HH, 16)]), "
    "any other its UTF-8), join them all before decoding, since one character can span several "
    "tokens; decode strictly and drop the last space. '</w>' is a space only in a token that "
    "is not a byte token.",
    "wrong_counts": "count the pairs of the words as spelled with end_of_word, and keep each "
    "claimed pair whose true count (0 if it never occurs) differs from the claim, in the order "
    "of claimed.",
}
POINTS = {
    "merge_and_save": 2,
    "train_bpe": 3,
    "tie_ranks": 2,
    "encode_fallback": 2,
    "decode_fallback": 2,
    "wrong_counts": 2,
}


def check_merge_and_save(merge_and_save) -> None:
    """merge_and_save(splits, word_freqs, pair) -> (new splits, tokens saved); input unchanged."""
    low = initial_splits(walkthroughs.LOW_WORD_FREQS)

    def input_after_call():
        splits = copy.deepcopy(low)
        merge_and_save(splits, dict(walkthroughs.LOW_WORD_FREQS), ("l", "o"))
        return splits

    unchanged = Case(
        "the splits passed to merge_and_save afterwards [must be unchanged]", input_after_call, low
    )
    check_on_cases(
        "merge_and_save",
        merge_and_save,
        merge_and_save_reference,
        _save_cases(),
        POINTS["merge_and_save"],
        HINTS["merge_and_save"],
        [unchanged],
    )


def check_train_bpe(train_bpe) -> None:
    """train_bpe(word_freqs, num_merges, end_of_word, tie_break) -> [(pair, count), ...]."""
    default = Case(
        "train_bpe(FIRST_NOT_GREATEST, 2, None) [the default tie_break is 'first']",
        lambda: outcome(train_bpe, dict(FIRST_NOT_GREATEST), 2, None),
        train_reference(FIRST_NOT_GREATEST, 2, None),
    )
    check_on_cases(
        "train_bpe",
        train_bpe,
        train_reference,
        _train_cases(),
        POINTS["train_bpe"],
        HINTS["train_bpe"],
        [default],
    )


def check_tie_ranks(tie_ranks) -> None:
    """tie_ranks(word_freqs, num_merges, end_of_word) -> [(rank, number of tied pairs), ...]."""
    check_on_cases(
        "tie_ranks",
        tie_ranks,
        tie_ranks_reference,
        _tie_cases(),
        POINTS["tie_ranks"],
        HINTS["tie_ranks"],
    )


def check_encode_fallback(encode_fallback) -> None:
    """encode_fallback(text, merges, alphabet) -> tokens with <0xHH> byte tokens."""
    check_on_cases(
        "encode_fallback",
        encode_fallback,
        encode_fallback_reference,
        _encode_cases(),
        POINTS["encode_fallback"],
        HINTS["encode_fallback"],
    )


def check_decode_fallback(decode_fallback) -> None:
    """decode_fallback(tokens) -> text; a broken byte sequence raises."""
    check_on_cases(
        "decode_fallback",
        decode_fallback,
        decode_fallback_reference,
        _decode_cases(),
        POINTS["decode_fallback"],
        HINTS["decode_fallback"],
    )


def check_wrong_counts(wrong_counts) -> None:
    """wrong_counts(claimed, word_freqs, end_of_word) -> {pair: true count} of wrong claims."""
    check_on_cases(
        "wrong_counts",
        wrong_counts,
        wrong_counts_reference,
        _wrong_cases(),
        POINTS["wrong_counts"],
        HINTS["wrong_counts"],
    )


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
AFTER_CALL = """
def after_call(function, value, *args):
    function(value, *args)
    return value
"""


def _random_freqs(rng: random.Random, letters: str = "abcde") -> dict[str, int]:
    """Word frequencies of made-up words over a small alphabet: many ties and overlaps."""
    words = {
        "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
        for _ in range(rng.randint(2, 8))
    }
    return {word: rng.randint(1, 9) for word in sorted(words, key=lambda _: rng.random())}


def _hidden(rng: random.Random) -> dict[str, Cases]:
    """Hidden cases of every task, drawn from rng."""
    corpora_ = [(_random_freqs(rng), rng.choice([None, "</w>", "_"])) for _ in range(4)]
    save = []
    for freqs, marker in corpora_:
        splits = initial_splits(freqs, marker)
        pairs = list(pair_counts(splits, freqs)) or [("a", "b")]
        save.append(((splits, freqs, rng.choice(pairs)), "hidden"))
    train = [
        ((freqs, rng.randint(1, 15), marker, rng.choice(TIE_BREAKS)), "hidden")
        for freqs, marker in corpora_
    ]
    ties = [((freqs, rng.randint(3, 15), marker), "hidden") for freqs, marker in corpora_]
    merges, alphabet = _english_merges()
    texts = [random_text(rng, rng.randint(2, 8)) for _ in range(3)]
    encode = [((text, merges, alphabet), "hidden") for text in texts]
    freqs, marker = corpora_[0]
    small = train_reference(freqs, rng.randint(1, 8), marker or "</w>")
    encode.append(
        (("".join(rng.choice("abcdeé🦙 ") for _ in range(12)), small, list("abcde")), "hidden")
    )
    decode = [((encode_fallback_reference(*args),), "hidden") for args, _ in encode]
    wrong = []
    for freqs, marker in corpora_:
        counts = pair_counts(initial_splits(freqs, marker), freqs)
        claimed = {pair: n + rng.choice([0, 0, 1, -1]) for pair, n in counts.items()}
        claimed[("q", "z")] = rng.randint(1, 5)
        wrong.append(((claimed, freqs, marker), "hidden"))
    return {
        "merge_and_save": save,
        "train_bpe": train,
        "tie_ranks": ties,
        "encode_fallback": encode,
        "decode_fallback": decode,
        "wrong_counts": wrong,
    }


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 04's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    fixed = {
        "merge_and_save": (_save_cases(), merge_and_save_reference),
        "train_bpe": (_train_cases(), train_reference),
        "tie_ranks": (_tie_cases(), tie_ranks_reference),
        "encode_fallback": (_encode_cases(), encode_fallback_reference),
        "decode_fallback": (_decode_cases(), decode_fallback_reference),
        "wrong_counts": (_wrong_cases(), wrong_counts_reference),
    }
    hidden = _hidden(rng)
    tasks = []
    for name, (cases, reference) in fixed.items():
        calls = judge_calls(name, reference, cases, False)
        calls += judge_calls(name, reference, hidden[name], True)
        setup = ""
        if name == "merge_and_save":
            low = initial_splits(walkthroughs.LOW_WORD_FREQS)
            calls.append(
                Call(
                    "the splits passed to merge_and_save afterwards [must be unchanged]",
                    "after_call(merge_and_save, a0, a1, a2)",
                    (low, dict(walkthroughs.LOW_WORD_FREQS), ("l", "o")),
                    low,
                )
            )
            setup = AFTER_CALL
        if name == "train_bpe":
            calls.append(
                Call(
                    "train_bpe(FIRST_NOT_GREATEST, 2, None) [the default tie_break is 'first']",
                    "train_bpe(a0, a1, a2)",
                    (dict(FIRST_NOT_GREATEST), 2, None),
                    train_reference(FIRST_NOT_GREATEST, 2, None),
                )
            )
        tasks.append(Task(name, POINTS[name], (name,), calls, HINTS[name], setup=setup))
    return tasks
