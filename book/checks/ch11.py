"""Checks of exercises/11_beyond_bpe.ipynb. References: small functions here and book.tokenizers.

Every task asks for something the chapter did not write line by line: the WordPiece score as an
exact fraction with every tied pair in order, the segmentation with the fewest pieces (greedy
longest match is not it), Viterbi over a lattice given as a list of edges with SentencePiece's
tie rule, and the E-step of Unigram training by forward-backward instead of listing
segmentations. Cases mix the Hugging Face course's toy corpus, hand-made ties, overlapping
pairs, words no vocabulary covers, Shakespeare with vocabularies trained by the book, and
inputs far too large to enumerate; the judge adds hidden cases drawn at random. Each task is one
spec; each group of cases holds a case built to catch every known mistake, and the errors a task
raises are a part of their own, so that ``tests/test_check_specs.py`` proves each mistake earns 0
(or loses only the part it names) on seeds 1-20.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import islice

from book import corpora
from book.checks.core import equal
from book.checks.sealed import SEALED
from book.checks.spec import Cases, Group, Mistake, TaskSpec, checks_of
from book.tokenizers.bpe.core import get_pair_counts, merge
from book.tokenizers.bpe.train import scored_merges
from book.tokenizers.unigram.lattice import (
    build_lattice,
    forward,
    marginals,
    piece_table,
    viterbi,
)
from book.tokenizers.unigram.unigram import Unigram
from book.tokenizers.wordpiece.model import greedy_longest_match
from book.tokenizers.wordpiece.normalizer import BertNormalizer
from book.tokenizers.wordpiece.train import merged_symbol, split_word, wordpiece_score
from book.tokenizers.wordpiece.wordpiece import WordPiece, words_of

UNCASED = BertNormalizer()  # BERT uncased: the words of the chapter and of the checks

COURSE_WORDS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
# The course's Unigram example: every strict substring of its five words, counted in them.
COURSE_PIECES = {
    "h": 15,
    "u": 36,
    "g": 20,
    "hu": 15,
    "ug": 20,
    "p": 17,
    "pu": 17,
    "n": 16,
    "un": 16,
    "b": 4,
    "bu": 4,
    "s": 5,
    "hug": 15,
    "gs": 5,
    "ugs": 5,
}
COURSE_LOG_P = {p: math.log(n / 210) for p, n in COURSE_PIECES.items()}


@cache
def _plays_words(n_chars: int = 4000) -> dict[str, int]:
    """BERT-uncased word counts of the start of the training plays."""
    return dict(Counter(words_of(corpora.english("train")[:n_chars], UNCASED)))


@cache
def _wordpiece_vocab() -> tuple[str, ...]:
    """A WordPiece vocabulary of 800 entries trained (by count) on the training plays."""
    text = corpora.english("train")[:40_000]
    return tuple(WordPiece.train(text, 800, score="frequency", normalizer=UNCASED).vocab)


@cache
def _unigram() -> Unigram:
    """A Unigram model of 500 pieces trained on the start of the training plays."""
    return Unigram.train(corpora.english("train")[:30_000], 500)


def _unigram_log_p() -> dict[str, float]:
    """The unigram's normal pieces and their scores (log-probabilities)."""
    return {p.piece: p.score for p in _unigram().pieces if p.kind == "normal"}


def _tempest_words(n: int) -> list[str]:
    """The first n distinct words of the held-out play, BERT-uncased."""
    return list(dict.fromkeys(words_of(corpora.english("heldout"), UNCASED)))[:n]


# --- the probes: run in the learner's kernel around the answer -----------------------------

# A Fraction does not travel from the learner's kernel: the cases compare (numerator,
# denominator) and the pairs, so a float score is wrong whatever its value.
AS_RATIO = """
def probe(answer, word_freqs, splits):
    from fractions import Fraction
    result = answer(word_freqs, splits)
    if isinstance(result, tuple) and len(result) == 2 and type(result[0]) is Fraction:
        return [[result[0].numerator, result[0].denominator], result[1]]
    return ["not a (Fraction, pairs) tuple", repr(result)[:80]]
"""

# Listing every segmentation of a 40-character word takes hours. The probe hands the answer
# log_p as a mapping that counts its look-ups and stops the answer with a message instead of
# letting the check hang. Forward-backward looks up each substring of a word a few times, so
# the budget is 20 look-ups per pair of positions in the words, and some to spare: listing runs
# out of it within seconds on a long word. The pieces and the look-ups are kept sealed
# (``sealed``): each piece iterated over costs a look-up too, so copying log_p costs its size,
# and listing on a copy runs into the judge's time limit instead. (The judge's kernel refuses
# sys.settrace, so counting lines is not an option.)
LOOKUP_BUDGET = (
    SEALED
    + """

class LookupBudget(Watched):
    __slots__ = ()


def probe(answer, word_freqs, log_p):
    budget = 10_000 + 20 * sum(len(word) ** 2 for word in word_freqs)
    spent = (
        f"stopped after {budget:,} look-ups of log_p: look up substrings, sum over the "
        "lattice (forward-backward); the budget grows with each word's length squared, not "
        "with the number of pieces, and is too small for listing segmentations"
    )
    costs = {"get": 1, "contains": 1, "iter": 1, "len": 0}
    store = mapping_server(dict(log_p), object(), costs, "log_p is read-only", budget, spent)
    return answer(word_freqs, LookupBudget(started(store)))
"""
)

LETTERS = "pqrstuvwxyz"


def _letters(rng: random.Random, n: int) -> list[str]:
    return rng.sample(LETTERS, n)


# --- Task 1: the WordPiece score, exact, with every tied pair ---------------------------------


def best_pairs_reference(word_freqs: dict[str, int], splits: dict[str, list[str]]):
    """(the top score as a Fraction, the pairs that have it: most frequent first, then in order
    of first occurrence).

    >>> best_pairs_reference({"ab": 2, "b": 1}, {"ab": ["a", "##b"], "b": ["b"]})
    (Fraction(1, 2), [('a', '##b')])
    """
    return _best_pairs(word_freqs, splits)


def _best_pairs(
    word_freqs,
    splits,
    once_per_word: bool = False,
    float_ties: bool = False,
    close_ties: bool = False,
    by_count: bool = True,
    last_seen: bool = False,
):
    """best_pairs, and five mistakes: once_per_word counts a pair once in a word however often
    it occurs; float_ties finds the tied pairs with floats n / left / right; close_ties with
    floats equal up to math.isclose; by_count=False lists them in order of first occurrence
    only (the chapter's loop); last_seen orders equal counts by where the pair occurs last."""
    symbols: Counter[str] = Counter()
    pairs: dict[tuple[str, str], int] = {}
    for word, parts in splits.items():
        for symbol in parts:
            symbols[symbol] += word_freqs[word]
        if once_per_word:
            for pair in dict.fromkeys(zip(parts, parts[1:])):
                pairs[pair] = pairs.get(pair, 0) + word_freqs[word]
        elif last_seen:  # each occurrence moves the pair to the end of the dict
            for pair in zip(parts, parts[1:]):
                pairs[pair] = pairs.pop(pair, 0) + word_freqs[word]
        else:
            get_pair_counts(parts, pairs, word_freqs[word])
    if not pairs:
        raise ValueError("no word has two symbols: there is no pair to merge")
    scores = {pair: Fraction(n, symbols[pair[0]] * symbols[pair[1]]) for pair, n in pairs.items()}
    if float_ties:
        rounded = {pair: n / symbols[pair[0]] / symbols[pair[1]] for pair, n in pairs.items()}
        tied = [pair for pair in pairs if rounded[pair] == max(rounded.values())]
        return scores[tied[0]], tied
    if close_ties:
        rounded = {pair: float(score) for pair, score in scores.items()}
        tied = [pair for pair in pairs if math.isclose(rounded[pair], max(rounded.values()))]
        return scores[tied[0]], sorted(tied, key=lambda pair: -pairs[pair])
    top = max(scores.values())
    tied = [pair for pair, score in scores.items() if score == top]
    return top, sorted(tied, key=lambda pair: -pairs[pair]) if by_count else tied


def _splits_after(word_freqs: dict[str, int], n_merges: int) -> dict[str, list[str]]:
    """The splits after the first n merges of the book's WordPiece trainer."""
    splits = {word: split_word(word) for word in word_freqs}
    sequences = {tuple(splits[word]): freq for word, freq in word_freqs.items()}
    found = scored_merges(sequences, wordpiece_score, lambda _rank, pair: merged_symbol(pair))
    for pair, _score in islice(found, n_merges):
        new = merged_symbol(pair)
        splits = {word: merge(parts, pair, new) for word, parts in splits.items()}
    return splits


@cache
def _float_ties() -> tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...]:
    """Two (pair count, left count, right count) of equal scores, in which the fewer pairs come
    first and n / left / right rounds the two to different floats: a tie floats break."""
    triples: dict[Fraction, list[tuple[int, int, int]]] = {}
    for left in range(2, 13):
        for right in range(2, 13):
            for n in range(1, min(left, right)):
                triples.setdefault(Fraction(n, left * right), []).append((n, left, right))
    return tuple(
        (first, second)
        for same in triples.values()
        for first in same
        for second in same
        if first[0] < second[0]
        and first[0] / first[1] / first[2] != second[0] / second[1] / second[2]
    )


def _float_tie(rng: random.Random) -> dict[str, int]:
    """Words in which two pairs tie for the top score that floats tell apart; the pair that
    occurs first occurs fewer times."""
    filler, *letters = _letters(rng, 5)
    words: dict[str, int] = {}
    extra: dict[str, int] = {}
    for (n, left, right), (a, b) in zip(
        rng.choice(_float_ties()), zip(letters[::2], letters[1::2])
    ):
        words[a + b] = n
        extra[a] = left - n  # the left symbol alone, as a word of one symbol
        extra[filler + b] = right - n  # the right symbol after a symbol too common to score
    words |= extra
    words[filler] = 1000
    return words


def _near_tie(rng: random.Random) -> dict[str, int]:
    """Two pairs whose scores, 1/R and 1/(R + 1) with R above 10**10, differ by less than
    math.isclose's tolerance: the first is the top score alone."""
    filler, *letters = _letters(rng, 5)
    words: dict[str, int] = {}
    extra: dict[str, int] = {}
    right = rng.randint(10**10, 10**11)
    for r, (a, b) in zip((right, right + 1), zip(letters[::2], letters[1::2])):
        n = rng.randint(1, 9)
        words[a + b] = n  # the left symbol occurs only in the pair: the score is 1 / r
        extra[filler + b] = r - n
    words |= extra
    words[filler] = 10**13  # the filler's pairs score far below 1 / r
    return words


def _seen_twice(rng: random.Random) -> dict[str, int]:
    """Two pairs tied in score and count; the one that occurs first also occurs last."""
    e, f, g, p, q, r, s = _letters(rng, 7)
    first, last = rng.randint(1, 4), rng.randint(1, 4)
    lone = 1000  # the words' first letters: common, so their pairs score low
    return {e + p + q: first, g + r + s: first + last, f + p + q: last, e: lone, f: lone, g: lone}


def _pairs_targets(rng: random.Random) -> Cases:
    """Two words whose repeated pair (##g, ##g) ties for the top score, listed so that the
    first seen is not the first in sorted order, with counts that matter; a tie that floats
    break, between pairs of different counts; two scores closer than a float tolerance; and a
    tie of equal counts in which first and last occurrence disagree."""
    c, e, d, g = _letters(rng, 4)
    d, g = sorted((d, g))  # g > d: first seen (##g, ##g) comes after (##d, ##d) when sorted
    m, freq, lone = rng.randint(3, 5), rng.randint(2, 6), rng.randint(40, 80)
    words = {e + g * m: freq, c + d * m: freq, c: lone, e: lone}
    floats, near, twice = _float_tie(rng), _near_tie(rng), _seen_twice(rng)
    return [
        ((words, {w: split_word(w) for w in words}), "a pair repeated in a word, tied"),
        ((floats, {w: split_word(w) for w in floats}), "a tie floats break; most frequent first"),
        ((near, {w: split_word(w) for w in near}), "two scores closer than a float tolerance"),
        ((twice, {w: split_word(w) for w in twice}), "equal counts: the first occurrence"),
    ]


def _no_pair(rng: random.Random) -> Cases:
    """Words of one symbol each: no pair to merge."""
    c, d = _letters(rng, 2)
    single = {c: rng.randint(1, 9), d: rng.randint(1, 9)}
    return [((single, {w: split_word(w) for w in single}), "no pair left: ValueError")]


def _pairs_errors() -> Cases:
    """No pair: ValueError; and, raising nothing, the cases every group holds."""
    return [
        (({}, {}), "no words: ValueError"),
        (({"a": 3, "ab": 1}, {"a": ["a"], "ab": ["ab"]}), "merged words: ValueError"),
        *_no_pair(random.Random(1)),
        *_pairs_targets(random.Random(4)),
    ]


def _pairs_course() -> Cases:
    words = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    return [
        ((COURSE_WORDS, _splits_after(COURSE_WORDS, 0)), "the course's words"),
        ((COURSE_WORDS, _splits_after(COURSE_WORDS, 1)), "after the first merge"),
        ((COURSE_WORDS, _splits_after(COURSE_WORDS, 3)), "after three merges"),
        ((words, _splits_after(words, 0)), "counts as weights"),
        *_pairs_targets(random.Random(1)),
    ]


def _pairs_ties() -> Cases:
    four = {"hug": 10, "pug": 5, "hugs": 5}
    return [
        ((four, _splits_after(four, 0)), "a four-way tie: most frequent first"),
        (
            ({"zy": 1, "ab": 1}, {"zy": ["z", "##y"], "ab": ["a", "##b"]}),
            "equal counts: first seen first",
        ),
        (({"aaaa": 2}, {"aaaa": ["a", "##a", "##a", "##a"]}), "overlapping pairs all count"),
        (({"ab": 3, "b": 4}, {"ab": ["a", "##b"], "b": ["b"]}), "a word of one symbol"),
        (
            ({"ab": 1, "cd": 1}, {"cd": ["c", "##d"], "ab": ["a", "##b"]}),
            "equal counts: words in the order of splits",
        ),
        *_pairs_targets(random.Random(2)),
    ]


def _pairs_shakespeare() -> Cases:
    plays = _plays_words()
    return [
        ((plays, _splits_after(plays, 0)), "Shakespeare"),
        ((plays, _splits_after(plays, 25)), "Shakespeare after 25 merges"),
        *_pairs_targets(random.Random(3)),
    ]


def _random_words(rng: random.Random, n: int) -> dict[str, int]:
    """n made-up words over a small alphabet (so that pairs repeat), with counts."""
    return {
        "".join(rng.choice("abcdeé") for _ in range(rng.randint(1, 7))): rng.randint(1, 9)
        for _ in range(n)
    }


def _pairs_hidden(rng: random.Random) -> Cases:
    words = _random_words(rng, rng.randint(3, 12))
    return [((words, _splits_after(words, rng.randint(0, 6))), "random"), *_pairs_targets(rng)]


def _pairs_without(change):
    """best_pairs on what change makes of (word_freqs, splits)."""
    return lambda word_freqs, splits: best_pairs_reference(*change(word_freqs, splits))


def _pairs_result(change):
    """best_pairs, then change applied to (top, tied)."""
    return lambda word_freqs, splits: change(*best_pairs_reference(word_freqs, splits))


def _pairs_no_error(word_freqs, splits):
    try:
        return best_pairs_reference(word_freqs, splits)
    except ValueError:
        return None, []  # no top score, no pairs: the forgotten check


BEST_PAIRS = TaskSpec(
    "best_pairs",
    best_pairs_reference,
    (
        Group("course words", 1, _pairs_course),
        Group("ties and repeats", 1, _pairs_ties),
        Group("random words", 1, _pairs_shakespeare, _pairs_hidden),
        Group("errors", 1, _pairs_errors, _no_pair),
    ),
    (
        Mistake(
            "the score is an exact fraction (a Fraction, not a float)",
            _pairs_result(lambda top, tied: (float(top), tied)),
        ),
        Mistake(
            "scores that are equal fractions can differ as floats (n / left / right rounds "
            "twice): find the tie with exact fractions",
            lambda word_freqs, splits: _best_pairs(word_freqs, splits, float_ties=True),
        ),
        Mistake(
            "two scores closer than a float tolerance are still different scores: only "
            "equal fractions tie",
            lambda word_freqs, splits: _best_pairs(word_freqs, splits, close_ties=True),
        ),
        Mistake(
            "pairs of equal count are listed in the order they first occur (the first word "
            "that has them), not where they occur last",
            lambda word_freqs, splits: _best_pairs(word_freqs, splits, last_seen=True),
        ),
        Mistake(
            "pairs of equal count are listed in the order they first occur with the words in "
            "the order of splits, not of word_freqs",
            _pairs_without(lambda freqs, splits: (freqs, {word: splits[word] for word in freqs})),
            part="ties and repeats",
        ),
        Mistake(
            "each occurrence counts times the word's count",
            _pairs_without(lambda freqs, splits: (dict.fromkeys(freqs, 1), splits)),
        ),
        Mistake(
            "list the tied pairs by their count, the most frequent first; the order of first "
            "occurrence only breaks equal counts",
            lambda word_freqs, splits: _best_pairs(word_freqs, splits, by_count=False),
        ),
        Mistake(
            "list the tied pairs most frequent first, then in the order they first occur, "
            "not sorted by their symbols",
            _pairs_result(lambda top, tied: (top, sorted(tied))),
        ),
        Mistake(
            "return every pair with that score, not only one",
            _pairs_result(lambda top, tied: (top, tied[:1])),
        ),
        Mistake(
            "a pair repeated in a word counts once per occurrence (overlapping pairs all count)",
            lambda word_freqs, splits: _best_pairs(word_freqs, splits, once_per_word=True),
        ),
        Mistake("no word has two symbols: raise ValueError", _pairs_no_error, part="errors"),
    ),
    "the top score must be the exact fraction of the pair's count over the product of its "
    "two symbols' counts, with every symbol and pair counted once per occurrence times its "
    "word's count; the pairs must be all those that reach it, most frequent first, equal "
    "counts in the order they first occur.",
    probe=AS_RATIO,
)


# --- Task 2: the fewest pieces ------------------------------------------------------------------

# The vocabulary must come back unchanged: the probe returns [answer, vocab unchanged].
VOCAB_UNCHANGED = """
def probe(answer, word, vocab):
    kept = list(vocab)
    return [answer(word, vocab), vocab == kept]
"""


def fewest_pieces_reference(word: str, vocab: list[str]) -> list[str]:
    """A segmentation with the fewest WordPiece pieces, longest pieces first among those.

    >>> fewest_pieces_reference("abcdef", ["abc", "##d", "##e", "##f", "ab", "##cdef"])
    ['ab', '##cdef']
    """
    return _fewest(word, vocab)


def _fewest(
    word: str,
    vocab: list[str],
    max_chars: int = 100,
    longest: bool = True,
    at_most: bool = True,
    size=len,
) -> list[str]:
    """The fewest pieces; among ties the longest piece first. Mistakes: longest=False takes the
    shortest, at_most=False makes a word of exactly max_chars characters unknown too, size
    measures the word for the limit in something other than characters."""
    known = set(vocab)
    n = len(word)
    if size(word) > max_chars or (not at_most and size(word) == max_chars):
        return ["[UNK]"]

    def piece(i: int, j: int) -> str:
        return word[i:j] if i == 0 else "##" + word[i:j]

    need = [n + 1] * n + [0]  # need[i]: fewest pieces that cover word[i:]
    for i in range(n - 1, -1, -1):
        need[i] = min(
            [need[j] + 1 for j in range(i + 1, n + 1) if piece(i, j) in known], default=n + 1
        )
    if need[0] > n:
        return ["[UNK]"]
    pieces, i = [], 0
    while i < n:
        ends = range(n, i, -1) if longest else range(i + 1, n + 1)
        j = next(j for j in ends if piece(i, j) in known and need[j] == need[i] - 1)
        pieces.append(piece(i, j))
        i = j
    return pieces


def _fewest_by_last_piece(word: str, vocab: list[str], longest: bool) -> list[str]:
    """A mistake: the fewest pieces found from the start, ties settled while walking back from
    the end, so by the last piece (the longest or the shortest) instead of the first."""
    known, n = set(vocab), len(word)
    if n > 100:
        return ["[UNK]"]
    best: list[tuple[int, int] | None] = [(0, 0)] + [None] * n  # (pieces, start of the last)
    for end in range(1, n + 1):
        starts = range(end) if longest else range(end - 1, -1, -1)
        for start in starts:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            fewer = best[start] is not None and (
                best[end] is None or best[start][0] + 1 < best[end][0]
            )
            if piece in known and fewer:
                best[end] = (best[start][0] + 1, start)
    if best[n] is None:
        return ["[UNK]"]
    pieces, end = [], n
    while end > 0:
        start = best[end][1]
        pieces.append(word[start:end] if start == 0 else "##" + word[start:end])
        end = start
    return pieces[::-1]


def _fewest_sorting(word: str, vocab: list[str]) -> list[str]:
    """A mistake: the right pieces, after sorting the caller's vocab longest first."""
    vocab.sort(key=len, reverse=True)
    return fewest_pieces_reference(word, vocab)


def _fewest_targets(rng: random.Random) -> Cases:
    """A word greedy longest match over-cuts, ties of two and of three pieces that the first
    piece settles, and words of 100 and of more than 100 characters."""
    a, b, c, d, e, f = _letters(rng, 6)
    trap = [a + b + c, "##" + d, "##" + e, "##" + f, a + b, "##" + c + d + e + f]
    tie = [a, a + b, "##" + b, "##" + c, "##" + b + c]
    three = [a + b + c, "##" + d, "##" + e + f, a + b, "##" + c + d + e, "##" + f]
    run = [f, "##" + f, "##" + f + f]
    return [
        ((a + b + c + d + e + f, trap), "greedy takes the longest first piece: four pieces"),
        ((a + b + c, tie), "two segmentations of two pieces: the longer first piece"),
        ((a + b + c + d + e + f, three), "two segmentations of three pieces: the longer first"),
        ((f * 100, run), "100 characters"),
        ((f * rng.randint(101, 120), run), "more than 100 characters: [UNK]"),
    ]


def _fewest_greedy() -> Cases:
    course = ["[UNK]", "un", "##aff", "##able", "##a", "##ff", "##ab", "##le", "##ble"]
    return [
        (("xable", ["x", "##ab", "##a", "##ble"]), "greedy gets stuck; x ##a ##ble exists"),
        (("unaffable", course), "greedy is already the fewest"),
        (("b", ["a", "##b"]), "b exists only as ##b"),
        (("a", ["a", "##a"]), "a word of one character"),
        (("abc", ["a", "##b", "##c"]), "one piece per character"),
        *_fewest_targets(random.Random(1)),
    ]


def _fewest_unknown() -> Cases:
    return [
        (("naïve", ["n", "##a", "##v", "##e"]), "no piece for ï: [UNK]"),
        (("a" * 100, ["a", "##a", "##aa"]), "100 characters"),
        (("a" * 101, ["a", "##a", "##aa"]), "101 characters: [UNK]"),
        (("é" * 100, ["é", "##é"]), "100 characters, 200 bytes: the limit counts characters"),
        (("", ["a", "##a"]), "the empty word: no pieces"),
        *_fewest_targets(random.Random(2)),
    ]


def _fewest_trained() -> Cases:
    vocab = list(_wordpiece_vocab())
    words = ["strangely", "unmitigable", "swelling", "whereof", "sycorax", "uncharitably"]
    return [((word, vocab), "Tempest word, trained vocabulary") for word in words]


def _fewest_hidden(rng: random.Random) -> Cases:
    vocab = list(_wordpiece_vocab())
    cases: Cases = [((word, vocab), "random") for word in rng.sample(_tempest_words(400), 4)]
    small = ["a", "b", "##a", "##b", "##ab", "##ba", "ab", "##aab", "ba", "##bb"]
    cases += [
        (("".join(rng.choice("ab") for _ in range(rng.randint(1, 12))), small), "random")
        for _ in range(3)
    ]
    return cases + _fewest_targets(rng)


FEWEST_PIECES = TaskSpec(
    "fewest_pieces",
    fewest_pieces_reference,
    (
        Group("greedy traps", 1, _fewest_greedy),
        Group("unknown and long words", 1, _fewest_unknown),
        Group("trained vocabulary", 1, _fewest_trained, _fewest_hidden),
    ),
    (
        Mistake(
            "greedy longest match (the chapter's encoder) is not the fewest pieces",
            lambda word, vocab: greedy_longest_match(word, set(vocab)),
        ),
        Mistake(
            "a tie is settled by the first piece (the longest), then the second, and so on; "
            "your answer keeps the longest last piece",
            lambda word, vocab: _fewest_by_last_piece(word, vocab, longest=True),
        ),
        Mistake(
            "a tie is settled by the first piece (the longest), then the second, and so on; "
            "your answer keeps the shortest last piece",
            lambda word, vocab: _fewest_by_last_piece(word, vocab, longest=False),
        ),
        Mistake(
            "among segmentations with the fewest pieces, take the longest piece first",
            lambda word, vocab: _fewest(word, vocab, longest=False),
        ),
        Mistake(
            "a word of more than 100 characters is '[UNK]', as in BERT",
            lambda word, vocab: _fewest(word, vocab, max_chars=10**9),
        ),
        Mistake(
            "a word of exactly 100 characters is still segmented: only longer words are '[UNK]'",
            lambda word, vocab: _fewest(word, vocab, at_most=False),
        ),
        Mistake(
            "the limit counts characters, not bytes: a word of 100 accented letters is "
            "still segmented",
            lambda word, vocab: _fewest(word, vocab, size=lambda w: len(w.encode())),
            part="unknown and long words",
        ),
        Mistake("do not change the vocabulary you are given: it stays as it came", _fewest_sorting),
    ),
    "the answer must be a segmentation into entries of the vocabulary (## on every piece after "
    "the first) with no more pieces than any other; among those, the one with the longest "
    "first piece, then the longest second, and so on. A word that no segmentation covers, or "
    "of more than 100 characters, is ['[UNK]']; the empty word has no pieces; vocab comes "
    "back unchanged.",
    probe=VOCAB_UNCHANGED,
)


# --- Task 3: Viterbi over a lattice given as edges ---------------------------------------------

Edge = tuple[int, int, str, float]


def viterbi_edges_reference(n: int, edges: list[Edge]) -> tuple[list[str], float]:
    """The best path from 0 to n over edges (start, end, piece, log-probability).

    Ties keep the path whose last edge starts earliest (SentencePiece's rule); among edges
    with the same start and end, the one listed first.

    >>> viterbi_edges_reference(2, [(1, 2, "b", -1.0), (0, 1, "a", -1.0), (0, 2, "ab", -2.0)])
    (['ab'], -2.0)
    """
    return _viterbi(n, edges)


# The orders in which _viterbi may visit the edges: the reference's (by start, stable, so
# equal starts keep the list's order), and three mistakes.
VISIT = {
    "by start": lambda edge: edge[0],
    "by end": lambda edge: edge[1],
    "whole tuple": lambda edge: edge,
}


def _viterbi(n: int, edges: list[Edge], order: str | None = "by start", strictly: bool = True):
    """Viterbi over edges; order=None (as listed), another order or strictly=False are
    mistakes."""
    best: list[tuple[float, int] | None] = [(0.0, -1)] + [None] * n  # (score, edge index)
    visit = range(len(edges))
    if order is not None:
        visit = sorted(visit, key=lambda k: VISIT[order](edges[k]))  # stable
    for k in visit:
        start, end, _, score = edges[k]
        if best[start] is None:
            continue
        candidate = best[start][0] + score
        if (
            best[end] is None
            or candidate > best[end][0]
            or (not strictly and candidate == best[end][0])
        ):
            best[end] = (candidate, k)
    if best[n] is None:
        raise ValueError(f"no path from 0 to {n}")
    pieces, position = [], n
    while position > 0:
        start, _, piece, _ = edges[best[position][1]]
        pieces.append(piece)
        position = start
    return pieces[::-1], best[n][0]


def _viterbi_from_end(n: int, edges: list[Edge]):
    """A mistake: the best path searched from the end, which on a tie keeps the path whose
    first edge ends latest (the longest first piece), among equal edges the first listed."""
    best: list[tuple[float, int] | None] = [None] * n + [(0.0, -1)]  # best path from here to n
    for k in sorted(range(len(edges)), key=lambda k: -edges[k][1]):  # stable
        start, end, _, score = edges[k]
        if best[end] is not None and (best[start] is None or best[end][0] + score > best[start][0]):
            best[start] = (best[end][0] + score, k)
    if best[0] is None:
        raise ValueError(f"no path from 0 to {n}")
    pieces, position = [], 0
    while position < n:
        _, end, piece, _ = edges[best[position][1]]
        pieces.append(piece)
        position = end
    return pieces, best[0][0]


def lattice_edges(unigram: Unigram, text: str) -> tuple[int, list[Edge]]:
    """(length, edges) of the lattice of ``text`` under a trained Unigram model."""
    normalized = unigram.normalize(text)
    edges = [
        (node.start, node.end, normalized[node.start : node.end], node.score)
        for row in unigram.lattice(normalized)
        for node in row
    ]
    return len(normalized), edges


def _long_lattice(n: int, seed: int) -> tuple[int, list[Edge]]:
    """A lattice over n positions with one to three edges from each (every position reaches
    the end), far too big to enumerate."""
    rng = random.Random(seed)
    edges = []
    for start in range(n):
        fits = [length for length in (1, 2, 3) if start + length <= n]
        for length in rng.sample(fits, rng.randint(1, len(fits))):
            score = round(-rng.uniform(0.5, 9.0), 3)
            edges.append((start, start + length, f"p{start}.{length}", score))
    edges.sort(key=lambda e: -e[0])  # last edges first: order must not matter
    return n, edges


def _viterbi_targets(rng: random.Random) -> Cases:
    """A tie (the path whose last edge starts earliest) listed latest start first, a tie of
    two pieces each in which the longest first piece is not the earliest last edge, edges
    listed out of order, equal edges on one span listed out of alphabetical order, and one
    piece on two edges of different scores."""
    a, b, c = _letters(rng, 3)
    low, middle, high = sorted(_letters(rng, 3))
    score = -rng.randint(1, 12) / 4  # quarters: the two sides of the tie add up exactly
    tie = [(1, 2, b, score), (0, 2, a + b, 2 * score), (0, 1, a, score)]
    three = [
        (0, 2, a + b, 2 * score),
        (2, 3, c, score),
        (0, 1, a, score),
        (1, 3, b + c, 2 * score),
    ]
    rng.shuffle(three)
    late = [(1, 2, b, score / 2), (0, 1, a, score), (0, 2, a + b, 2 * score)]
    span = [(0, 1, middle, score), (0, 1, low, score), (0, 1, high, score), (1, 2, b, score)]
    twice = [(0, 1, a, score / 2), (0, 1, a, 2 * score), (1, 2, b, score)]
    return [
        ((2, tie), "a tie: the path whose last edge starts earliest"),
        ((3, three), "a tie of two pieces each: not the longest first piece"),
        ((2, late), "an edge listed before the edge that reaches its start"),
        ((2, span), "equal edges on one span: the first listed"),
        ((2, twice), "one piece on two edges: the total of the path's edges"),
    ]


def _unreachable(rng: random.Random) -> Cases:
    """Edges that stop short of the end."""
    a, b = _letters(rng, 2)
    score = -rng.randint(1, 12) / 4
    return [((3, [(0, 1, a, score), (1, 2, b, score)]), "nothing reaches the end: ValueError")]


def _viterbi_errors() -> Cases:
    """No path: ValueError; and, raising nothing, the cases every group holds."""
    return [
        ((2, []), "no edges: ValueError"),
        ((3, [(0, 1, "a", -1.0), (2, 3, "c", -1.0)]), "a gap in the middle: ValueError"),
        *_unreachable(random.Random(1)),
        *_viterbi_targets(random.Random(3)),
    ]


def _viterbi_ties() -> Cases:
    tie = [(0, 1, "a", -1.0), (1, 2, "b", -1.0), (0, 2, "ab", -2.0)]
    three = [(0, 1, "x", -1.0), (1, 3, "yz", -2.0), (0, 2, "xy", -2.0), (2, 3, "z", -1.0)]
    return [
        ((2, tie), "a tie: the last edge that starts earliest"),
        ((2, tie[::-1]), "the same edges in another order"),
        ((3, three), "a tie between xy+z and x+yz"),
        (
            (2, [(0, 1, "a", -1.0), (0, 1, "A", -1.0), (1, 2, "b", -1.0)]),
            "equal edges on one span: the first listed",
        ),
        *_viterbi_targets(random.Random(1)),
    ]


def _viterbi_paths() -> Cases:
    best_prefix = [(0, 2, "ab", -0.1), (2, 4, "cd", -0.1), (0, 1, "a", -3.0), (1, 4, "bcd", -0.5)]
    return [
        ((2, [(0, 1, "a", -1.0), (0, 1, "A", -0.5), (1, 2, "b", -0.25)]), "two edges, one span"),
        ((0, []), "an empty text"),
        ((4, best_prefix), "the best prefix is not on the best path"),
        (_long_lattice(3000, 1), "3,000 positions: too many paths to list"),
        *_viterbi_targets(random.Random(2)),
    ]


def _viterbi_trained() -> Cases:
    words = ["unhallowed", "thereafter", "Sycorax", "moonshine's"]
    return [(lattice_edges(_unigram(), w), "a word's lattice under a trained model") for w in words]


def _viterbi_hidden(rng: random.Random) -> Cases:
    words = rng.sample(_tempest_words(400), 4)
    cases: Cases = [(lattice_edges(_unigram(), word), "random") for word in words]
    cases.append((_long_lattice(rng.randint(200, 1500), rng.randint(0, 10**6)), "random"))
    return cases + _viterbi_targets(rng)


def _viterbi_total_by_piece(n, edges):
    """A mistake: the right pieces, their total looked up by piece (the last edge's score)."""
    pieces, _ = viterbi_edges_reference(n, edges)
    score_of = {piece: score for _, _, piece, score in edges}
    return pieces, float(sum(score_of[piece] for piece in pieces))


def _viterbi_no_error(n, edges):
    try:
        return viterbi_edges_reference(n, edges)
    except ValueError:
        return [], -math.inf


def _close_path(got, expected) -> bool:
    """Pieces equal, and the total equal up to float rounding."""
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[1], float):
        return (
            isinstance(got, tuple)
            and len(got) == 2
            and equal(got[0], expected[0])
            and isinstance(got[1], float)
            and math.isclose(got[1], expected[1], rel_tol=1e-9, abs_tol=1e-9)
        )
    return equal(got, expected)


VITERBI_EDGES = TaskSpec(
    "viterbi_edges",
    viterbi_edges_reference,
    (
        Group("ties", 1, _viterbi_ties),
        Group("paths", 1, _viterbi_paths),
        Group("trained lattices", 1, _viterbi_trained, _viterbi_hidden),
        Group("errors", 1, _viterbi_errors, _unreachable),
    ),
    (
        Mistake(
            "an edge can only extend a path that reaches its start: the edges' order in the "
            "list is not an order to visit them in",
            lambda n, edges: _viterbi(n, edges, order=None),
        ),
        Mistake(
            "on a tie, the path whose last edge starts earliest wins; searching from the end "
            "keeps the longest first piece instead, a different path when each has two "
            "pieces or more",
            _viterbi_from_end,
        ),
        Mistake(
            "on a tie, the path whose last edge starts earliest wins; visiting the edges by "
            "their end lets the list's order decide",
            lambda n, edges: _viterbi(n, edges, order="by end"),
        ),
        Mistake(
            "replace a position's best only when strictly better: a tie keeps the path whose "
            "last edge starts earliest",
            lambda n, edges: _viterbi(n, edges, strictly=False),
        ),
        Mistake(
            "among equal edges on one span, the one listed first wins; sorting the edges as "
            "whole tuples puts them in the order of their pieces' text",
            lambda n, edges: _viterbi(n, edges, order="whole tuple"),
        ),
        Mistake(
            "the total is the sum of the scores of the edges on the path; one piece can label "
            "edges of different scores",
            _viterbi_total_by_piece,
        ),
        Mistake("an end that no path reaches raises ValueError", _viterbi_no_error, part="errors"),
    ),
    "the answer must be a path of edges from 0 to n with the highest total score (the sum of "
    "its edges' scores); at every position, among paths of equal total, the one whose last "
    "edge starts earliest, and among equal edges on one span, the one listed first. No path: "
    "ValueError.",
    compare=_close_path,
)


# --- Task 4: the E-step by forward-backward ------------------------------------------------------


def expected_counts_reference(word_freqs: dict[str, int], log_p: dict[str, float]) -> dict:
    """Expected uses of each piece over all segmentations of all words (forward-backward).

    Each word's lattice under the pieces, and its marginals (the E-step of Unigram training).

    >>> counts = expected_counts_reference({"ab": 2}, {"a": math.log(0.5), "b": math.log(0.5),
    ...                                                "ab": math.log(0.25)})
    >>> {piece: round(count, 9) for piece, count in counts.items()}
    {'a': 1.0, 'ab': 1.0, 'b': 1.0}
    """
    pieces = list(log_p)
    table = piece_table({piece: (i, score) for i, (piece, score) in enumerate(log_p.items())})
    counts: dict[str, float] = {}
    for word, freq in word_freqs.items():
        used, log_z = marginals(build_lattice(word, table))
        if log_z == -math.inf:
            raise ValueError(f"no segmentation of {word!r} into the pieces")
        for piece_id, uses in used.items():
            if uses > 0:
                piece = pieces[piece_id]
                counts[piece] = counts.get(piece, 0.0) + freq * uses
    return counts


def _close_counts(got, expected) -> bool:
    """The same pieces (ignoring those expected less than 1e-9 times), counts up to rounding."""
    if not isinstance(expected, dict):
        return equal(got, expected)
    if not isinstance(got, dict):
        return False
    try:
        ours = {k for k, v in expected.items() if v > 1e-9}
        theirs = {k for k, v in got.items() if not isinstance(v, (int, float)) or v > 1e-9}
        return ours == theirs and all(
            isinstance(got[k], float) and math.isclose(got[k], expected[k], rel_tol=1e-6)
            for k in ours
        )
    except TypeError:
        return False


def _em_targets(rng: random.Random) -> Cases:
    """A word of two segmentations whose probabilities sum to less than 1, counted more than
    once; a piece of four characters, and a piece that one segmentation uses twice; and a word
    with far too many segmentations to list."""
    a, b = _letters(rng, 2)
    p_a, p_b, p_ab, p_ba, p_abab = (rng.randint(2, 6) / 10 for _ in range(5))
    log_p = {a: math.log(p_a), b: math.log(p_b), a + b: math.log(p_ab)}
    longer = log_p | {(a + b) * 2: math.log(p_abab)}
    long = log_p | {b + a: math.log(p_ba)}
    k = rng.randint(20, 30)
    return [
        (({a + b: rng.randint(2, 9)}, log_p), "two segmentations, weighted by the word's count"),
        (({(a + b) * 2: rng.randint(1, 5)}, longer), "a piece of 4 characters; a piece twice"),
        (({(a + b) * k: 1}, long), f"{2 * k} characters: more than 10**8 segmentations"),
    ]


def _em_small() -> Cases:
    return [
        ((COURSE_WORDS, COURSE_LOG_P), "the course's corpus and pieces"),
        (
            ({"ab": 2}, {"a": math.log(0.5), "b": math.log(0.5), "ab": math.log(0.25)}),
            "two segmentations of equal probability",
        ),
        (({"hug": 1}, {"hug": 0.0}), "a single piece: used once per word"),
        *_em_targets(random.Random(1)),
    ]


def _em_long() -> Cases:
    halves = {"a": math.log(0.5), "aa": math.log(0.3), "aaa": math.log(0.2)}
    return [
        (({"a" * 40: 3}, halves), "40 characters: about 23 billion segmentations"),
        (
            ({"a" * 200: 1}, {"a": math.log(0.01)}),
            "200 characters: a probability below the smallest float",
        ),
        *_em_targets(random.Random(2)),
    ]


def _uncovered(rng: random.Random) -> Cases:
    """A word with a character that is no piece."""
    a, b, c = _letters(rng, 3)
    log_p = {a: math.log(0.5), b: math.log(0.3), a + b: math.log(0.2)}
    return [(({a + b + c: 1}, log_p), f"{c} is no piece: ValueError")]


def _em_errors() -> Cases:
    """A word no segmentation covers: ValueError; and, raising nothing, the cases every group
    holds."""
    return [
        (({"abc": 1}, {"a": -1.0, "b": -1.0}), "c is no piece: ValueError"),
        (({"ab": 2, "ba": 1}, {"a": -1.0, "ab": -1.5}), "the second word: b is no piece"),
        *_uncovered(random.Random(1)),
        *_em_targets(random.Random(3)),
    ]


def _em_trained() -> Cases:
    log_p = _unigram_log_p()
    words = {
        f"▁{w}": n
        for w, n in list(Counter(corpora.english("heldout").split()).items())[:300]
        if set(f"▁{w}") <= set(log_p)
    }
    return [((words, log_p), "Tempest words, a trained model's pieces")]


def _em_hidden(rng: random.Random) -> Cases:
    log_p = _unigram_log_p()
    words = rng.sample(_tempest_words(400), 30)
    sample = {f"▁{w}": rng.randint(1, 5) for w in words if set(f"▁{w}") <= set(log_p)}
    weights = {"a": math.log(0.4), "b": math.log(0.3), "ab": math.log(0.2), "ba": math.log(0.1)}
    run = "".join(rng.choice("ab") for _ in range(rng.randint(5, 16)))
    return [((sample, log_p), "random"), (({run: 2}, weights), "random"), *_em_targets(rng)]


def _em_with(uses_of):
    """Expected counts where uses_of(lattice, table) gives a word's {piece id: uses}."""

    def expected_counts(word_freqs, log_p):
        pieces = list(log_p)
        table = piece_table({piece: (i, score) for i, (piece, score) in enumerate(log_p.items())})
        counts: dict[str, float] = {}
        for word, freq in word_freqs.items():
            for piece_id, uses in uses_of(build_lattice(word, table)).items():
                if uses > 0:
                    counts[pieces[piece_id]] = counts.get(pieces[piece_id], 0.0) + freq * uses
        return counts

    return expected_counts


def _em_listing(word_freqs, log_p):
    """The chapter's E-step, which lists every segmentation with its probability: right on short
    words; a long word's probability rounds to 0, so it divides by zero; on a word of more
    segmentations than the probe's budget of look-ups, the probe stops it, as it stops a
    learner's."""
    budget = 10_000 + 20 * sum(len(word) ** 2 for word in word_freqs)
    for word in word_freqs:
        ways = [1] + [0] * len(word)  # ways[j]: the segmentations of word[:j]
        for j in range(1, len(word) + 1):
            ways[j] = sum(ways[i] for i in range(j) if word[i:j] in log_p)
        if ways[-1] > budget:
            raise RuntimeError(f"listing segmentations: stopped after {budget:,} look-ups")
    return _em_plain(word_freqs, log_p, underflow=ZeroDivisionError)


def _em_piece_max(word_freqs, log_p):
    """A mistake: a piece's uses in a word are the most probable of its places, not their sum."""
    table = piece_table({piece: (i, score) for i, (piece, score) in enumerate(log_p.items())})
    backwards = piece_table(
        {piece[::-1]: (i, score) for i, (piece, score) in enumerate(log_p.items())}
    )
    pieces, counts = list(log_p), {}
    for word, freq in word_freqs.items():
        lattice = build_lattice(word, table)
        alpha = forward(lattice)
        beta = forward(build_lattice(word[::-1], backwards))[::-1]
        if alpha[-1] == -math.inf:
            raise ValueError(f"no segmentation of {word!r} into the pieces")
        uses: dict[int, float] = {}
        for row in lattice:
            for node in row:
                used = math.exp(alpha[node.start] + node.score + beta[node.end] - alpha[-1])
                uses[node.piece_id] = max(uses.get(node.piece_id, 0.0), used)
        for piece_id, used in uses.items():
            if used > 0:
                counts[pieces[piece_id]] = counts.get(pieces[piece_id], 0.0) + freq * used
    return counts


def _em_plain(word_freqs, log_p, underflow=ValueError):
    """A mistake: forward-backward in plain probabilities, which round to 0 on a long word (and
    raise underflow there)."""
    table = piece_table({piece: (i, score) for i, (piece, score) in enumerate(log_p.items())})
    pieces, counts = list(log_p), {}
    for word, freq in word_freqs.items():
        lattice = build_lattice(word, table)
        if forward(lattice)[-1] == -math.inf:
            raise ValueError(f"no segmentation of {word!r} into the pieces")
        nodes = [node for row in lattice for node in row]  # by start
        alpha, beta = [1.0] + [0.0] * len(word), [0.0] * len(word) + [1.0]
        for node in nodes:
            alpha[node.end] += alpha[node.start] * math.exp(node.score)
        for node in reversed(nodes):
            beta[node.start] += math.exp(node.score) * beta[node.end]
        if alpha[-1] == 0.0:
            raise underflow(f"the probability of {word!r} rounds to 0")
        for node in nodes:
            used = alpha[node.start] * math.exp(node.score) * beta[node.end] / alpha[-1]
            counts[pieces[node.piece_id]] = counts.get(pieces[node.piece_id], 0.0) + freq * used
    return counts


def _best_path_uses(lattice) -> dict[int, float]:
    uses: Counter[int] = Counter()
    for node in viterbi(lattice):
        uses[node.piece_id] += 1
    return {piece_id: float(n) for piece_id, n in uses.items()}


def _unnormalized_uses(lattice) -> dict[int, float]:
    used, log_z = marginals(lattice)
    if log_z == -math.inf:
        raise ValueError("no segmentation")
    return {piece_id: uses * math.exp(log_z) for piece_id, uses in used.items()}


EXPECTED_COUNTS = TaskSpec(
    "expected_counts",
    expected_counts_reference,
    (
        Group("hand-checked sums", 1, _em_small),
        Group("long words", 1, _em_long),
        Group("trained pieces", 1, _em_trained, _em_hidden),
        Group("errors", 1, _em_errors, _uncovered),
    ),
    (
        Mistake(
            "listing every segmentation cannot finish on a long word (the check stops it): "
            "sum over the lattice, from the start and from the end",
            _em_listing,
        ),
        Mistake(
            "add each word's expected uses times its count",
            lambda word_freqs, log_p: expected_counts_reference(
                dict.fromkeys(word_freqs, 1), log_p
            ),
        ),
        Mistake(
            "count every segmentation, each with its probability, not only the best one",
            _em_with(_best_path_uses),
        ),
        Mistake(
            "divide by the word's total probability: a piece's uses are probabilities given "
            "the word",
            _em_with(_unnormalized_uses),
        ),
        Mistake(
            "a piece can be longer than 3 characters: look for every piece of log_p",
            lambda word_freqs, log_p: expected_counts_reference(
                word_freqs, {piece: s for piece, s in log_p.items() if len(piece) <= 3}
            ),
        ),
        Mistake(
            "a piece that can be used in several places of a word adds the uses of all of "
            "them, not the largest",
            _em_piece_max,
        ),
        Mistake(
            "a word the pieces cannot cover raises ValueError",
            _em_with(lambda lattice: marginals(lattice)[0]),
            part="errors",
        ),
        Mistake(
            "a long word's probability is below the smallest float: keep alpha and beta as "
            "logs, and add two logs with the larger one taken out, so that no exponential "
            "rounds to 0",
            _em_plain,
            part="long words",
        ),
    ),
    "each count must be the expected number of uses of the piece over all segmentations of "
    "each word, each segmentation weighted by its probability given the word, times the "
    "word's count; a word that no segmentation covers raises ValueError.",
    compare=_close_counts,
    probe=LOOKUP_BUDGET,
)

SPECS = (BEST_PAIRS, FEWEST_PIECES, VITERBI_EDGES, EXPECTED_COUNTS)
check, judge_tasks = checks_of(SPECS)

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
