"""Checks of exercises/10_beyond_bpe.ipynb. References: small functions here and book.tokenizers.

Every task asks for something the chapter did not write line by line: the WordPiece score as an
exact fraction with every tied pair in order, the segmentation with the fewest pieces (greedy
longest match is not it), Viterbi over a lattice given as a list of edges with SentencePiece's
tie rule, and the E-step of Unigram training by forward-backward instead of listing
segmentations. Cases mix the Hugging Face course's toy corpus, hand-made ties, overlapping
pairs, words no vocabulary covers, Shakespeare with vocabularies trained by the book, and
inputs far too large to enumerate; the judge adds hidden cases drawn at random.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import islice

from book import corpora
from book.checks.cases import Cases, check_on_cases, judge_calls
from book.checks.core import equal
from book.checks.spec import Call, Raises, Task
from book.tokenizers.bpe.core import get_pair_counts, merge
from book.tokenizers.bpe.train import scored_merges
from book.tokenizers.unigram.lattice import build_lattice, marginals, piece_table
from book.tokenizers.unigram.unigram import Unigram
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


# --- Task 1: the WordPiece score, exact, with every tied pair ---------------------------------


def best_pairs_reference(word_freqs: dict[str, int], splits: dict[str, list[str]]):
    """(the top score as a Fraction, the pairs that have it in order of first occurrence).

    >>> best_pairs_reference({"ab": 2, "b": 1}, {"ab": ["a", "##b"], "b": ["b"]})
    (Fraction(1, 2), [('a', '##b')])
    """
    symbols: Counter[str] = Counter()
    pairs: dict[tuple[str, str], int] = {}
    for word, parts in splits.items():
        for symbol in parts:
            symbols[symbol] += word_freqs[word]
        get_pair_counts(parts, pairs, word_freqs[word])
    if not pairs:
        raise ValueError("no word has two symbols: there is no pair to merge")
    scores = {pair: Fraction(n, symbols[pair[0]] * symbols[pair[1]]) for pair, n in pairs.items()}
    top = max(scores.values())
    return top, [pair for pair, score in scores.items() if score == top]


def _splits_after(word_freqs: dict[str, int], n_merges: int) -> dict[str, list[str]]:
    """The splits after the first n merges of the book's WordPiece trainer."""
    splits = {word: split_word(word) for word in word_freqs}
    sequences = {tuple(splits[word]): freq for word, freq in word_freqs.items()}
    found = scored_merges(sequences, wordpiece_score, lambda _rank, pair: merged_symbol(pair))
    for pair, _score in islice(found, n_merges):
        new = merged_symbol(pair)
        splits = {word: merge(parts, pair, new) for word, parts in splits.items()}
    return splits


def _best_pairs_cases() -> Cases:
    """Course words, ties, overlaps, words without pairs, Shakespeare before and after merges."""
    plays = _plays_words()
    cases: Cases = [
        ((COURSE_WORDS, _splits_after(COURSE_WORDS, 0)), "the course's words"),
        ((COURSE_WORDS, _splits_after(COURSE_WORDS, 1)), "after the first merge"),
        ((COURSE_WORDS, _splits_after(COURSE_WORDS, 3)), "after three merges"),
        (
            ({"hug": 10, "pug": 5, "hugs": 5}, _splits_after({"hug": 10, "pug": 5, "hugs": 5}, 0)),
            "a four-way tie, in order of first occurrence",
        ),
        (
            ({"zy": 1, "ab": 1}, {"zy": ["z", "##y"], "ab": ["a", "##b"]}),
            "a tie: first seen, not alphabetical",
        ),
        (({"aaaa": 2}, {"aaaa": ["a", "##a", "##a", "##a"]}), "overlapping pairs all count"),
        (({"ab": 3, "b": 4}, {"ab": ["a", "##b"], "b": ["b"]}), "a word of one symbol"),
        (({"a": 3, "b": 1}, {"a": ["a"], "b": ["b"]}), "no pair left: ValueError"),
        (
            (
                {"low": 5, "lower": 2, "newest": 6, "widest": 3},
                _splits_after({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 0),
            ),
            "counts as weights",
        ),
        ((plays, _splits_after(plays, 0)), "Shakespeare"),
        ((plays, _splits_after(plays, 25)), "Shakespeare after 25 merges"),
    ]
    return cases


BEST_PAIRS_HINT = (
    "count every symbol and every adjacent pair, each occurrence times the word's count "
    "(overlapping pairs all count); score = Fraction(pair count, left count * right count) "
    "(a Fraction, not a float); return (top score, [every pair with that score, in the order "
    "the pairs first occur: words in dict order, left to right]); no pair at all: ValueError."
)


def check_best_pairs(best_pairs) -> None:
    """best_pairs(word_freqs, splits) -> (top score as a Fraction, tied pairs in order seen)."""
    check_on_cases(
        "best_pairs", best_pairs, best_pairs_reference, _best_pairs_cases(), 3, BEST_PAIRS_HINT
    )


# --- Task 2: the fewest pieces ------------------------------------------------------------------


def fewest_pieces_reference(word: str, vocab: list[str], max_chars: int = 100) -> list[str]:
    """A segmentation with the fewest WordPiece pieces, longest pieces first among those.

    >>> fewest_pieces_reference("abcdef", ["abc", "##d", "##e", "##f", "ab", "##cdef"])
    ['ab', '##cdef']
    """
    known = set(vocab)
    n = len(word)
    if n > max_chars:
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
        j = next(j for j in range(n, i, -1) if piece(i, j) in known and need[j] == need[i] - 1)
        pieces.append(piece(i, j))
        i = j
    return pieces


def _fewest_cases() -> Cases:
    """Greedy failures, ties, unknown characters, the length limit, a trained vocabulary."""
    greedy_trap = ["abc", "##d", "##e", "##f", "ab", "##cdef"]
    tie = ["a", "ab", "##b", "##c", "##bc"]
    course = ["[UNK]", "un", "##aff", "##able", "##a", "##ff", "##ab", "##le", "##ble"]
    vocab = list(_wordpiece_vocab())
    cases: Cases = [
        (("abcdef", greedy_trap), "greedy takes abc and needs four pieces"),
        (("xable", ["x", "##ab", "##a", "##ble"]), "greedy gets stuck; x ##a ##ble exists"),
        (("abc", tie), "two segmentations of two pieces: the longer first piece"),
        (("unaffable", course), "greedy is already the fewest"),
        (("naïve", ["n", "##a", "##v", "##e"]), "no piece for ï: [UNK]"),
        (("a" * 100, ["a", "##a", "##aa"]), "100 characters"),
        (("a" * 101, ["a", "##a", "##aa"]), "101 characters: [UNK]"),
        (("b", ["a", "##b"]), "b exists only as ##b"),
    ]
    cases += [
        ((word, vocab), "Tempest word, trained vocabulary")
        for word in ["strangely", "unmitigable", "swelling", "whereof", "sycorax", "uncharitably"]
    ]
    return cases


FEWEST_HINT = (
    "dynamic programming from the end: need[i] = fewest pieces covering word[i:] (need[len] = "
    "0), trying every piece word[i:j], with '##' when i > 0; then walk from 0 taking the "
    "longest piece that keeps the count optimal; no segmentation, or more than 100 "
    "characters: ['[UNK]']. Greedy longest match is not enough."
)


def check_fewest_pieces(fewest_pieces) -> None:
    """fewest_pieces(word, vocab) -> the fewest WordPiece pieces, longest first among ties."""
    check_on_cases(
        "fewest_pieces", fewest_pieces, fewest_pieces_reference, _fewest_cases(), 3, FEWEST_HINT
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
    best: list[tuple[float, int] | None] = [(0.0, -1)] + [None] * n  # (score, edge index)
    order = sorted(range(len(edges)), key=lambda k: edges[k][0])  # stable: ties keep list order
    for k in order:
        start, end, _, score = edges[k]
        if best[start] is None:
            continue
        candidate = best[start][0] + score
        if best[end] is None or candidate > best[end][0]:
            best[end] = (candidate, k)
    if best[n] is None:
        raise ValueError(f"no path from 0 to {n}")
    pieces, position = [], n
    while position > 0:
        start, _, piece, _ = edges[best[position][1]]
        pieces.append(piece)
        position = start
    return pieces[::-1], best[n][0]


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
    """A lattice over n positions with one to three edges from each, far too big to enumerate."""
    rng = random.Random(seed)
    edges = []
    for start in range(n):
        for length in rng.sample([1, 2, 3], rng.randint(1, 3)):
            if start + length <= n:
                edges.append(
                    (start, start + length, f"p{start}.{length}", round(-rng.uniform(0.5, 9.0), 3))
                )
    edges.sort(key=lambda e: -e[0])  # last edges first: order must not matter
    return n, edges


def _viterbi_cases() -> Cases:
    """Ties, unsorted and duplicate edges, unreachable ends, trained lattices, a long one."""
    tie = [(0, 1, "a", -1.0), (1, 2, "b", -1.0), (0, 2, "ab", -2.0)]
    three = [(0, 1, "x", -1.0), (1, 3, "yz", -2.0), (0, 2, "xy", -2.0), (2, 3, "z", -1.0)]
    cases: Cases = [
        ((2, tie), "a tie: the last edge that starts earliest"),
        ((2, tie[::-1]), "the same edges in another order"),
        ((3, three), "a tie between xy+z and x+yz"),
        ((2, [(0, 1, "a", -1.0), (0, 1, "A", -0.5), (1, 2, "b", -0.25)]), "two edges, one span"),
        (
            (2, [(0, 1, "a", -1.0), (0, 1, "A", -1.0), (1, 2, "b", -1.0)]),
            "equal edges on one span: the first listed",
        ),
        ((3, [(0, 1, "a", -1.0), (1, 2, "b", -1.0)]), "nothing reaches 3: ValueError"),
        ((0, []), "an empty text"),
        (
            (4, [(0, 2, "ab", -0.1), (2, 4, "cd", -0.1), (0, 1, "a", -3.0), (1, 4, "bcd", -0.5)]),
            "the best prefix is not on the best path",
        ),
    ]
    unigram = _unigram()
    cases += [
        (lattice_edges(unigram, word), "a word's lattice under a trained model")
        for word in ["unhallowed", "thereafter", "Sycorax", "moonshine's"]
    ]
    cases.append((_long_lattice(3000, 1), "3,000 positions: too many paths to list"))
    return cases


VITERBI_HINT = (
    "best[0] = 0; go through the edges in order of their start (a stable sort keeps the order "
    "of edges with equal starts) and keep, for each end, the best score and the edge that gave "
    "it, replacing it only when strictly better; then walk back from n; return (pieces, total "
    "log-probability); n unreachable: ValueError."
)


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


def check_viterbi_edges(viterbi_edges) -> None:
    """viterbi_edges(n, edges) -> (pieces, log-probability) of the best path from 0 to n."""
    check_on_cases(
        "viterbi_edges",
        viterbi_edges,
        viterbi_edges_reference,
        _viterbi_cases(),
        3,
        VITERBI_HINT,
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


def _em_cases() -> Cases:
    """The course's corpus, hand-checked sums, words no piece covers, long words, Shakespeare."""
    halves = {"a": math.log(0.5), "aa": math.log(0.3), "aaa": math.log(0.2)}
    log_p = _unigram_log_p()
    words = {
        f"▁{w}": n
        for w, n in list(Counter(corpora.english("heldout").split()).items())[:300]
        if set(f"▁{w}") <= set(log_p)
    }
    cases: Cases = [
        ((COURSE_WORDS, COURSE_LOG_P), "the course's corpus and pieces"),
        (
            ({"ab": 2}, {"a": math.log(0.5), "b": math.log(0.5), "ab": math.log(0.25)}),
            "two segmentations of equal probability",
        ),
        (({"hug": 1}, {"hug": 0.0}), "a single piece: used once per word"),
        (({"abc": 1}, {"a": -1.0, "b": -1.0}), "c is no piece: ValueError"),
        (({"a" * 40: 3}, halves), "40 characters: about 23 billion segmentations"),
        ((words, log_p), "Tempest words, a trained model's pieces"),
    ]
    return cases


EM_HINT = (
    "no listing of segmentations (a long word has billions): forward alpha[j] = log of the "
    "summed probability of all ways to reach j, backward beta[i] = all ways from i to the end, "
    "each edge i->j used with probability exp(alpha[i] + log_p + beta[j] - alpha[n]); add "
    "freq times that to the piece's count (floats); a word with no segmentation: ValueError."
)


def check_expected_counts(expected_counts) -> None:
    """expected_counts(word_freqs, log_p) -> {piece: expected uses}, by forward-backward."""
    check_on_cases(
        "expected_counts",
        expected_counts,
        expected_counts_reference,
        _em_cases(),
        3,
        EM_HINT,
        compare=_close_counts,
    )


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")

# A Fraction does not travel from the learner's kernel: the judge calls best_pairs through this.
AS_RATIO = """
def as_ratio(result):
    from fractions import Fraction
    if isinstance(result, tuple) and len(result) == 2 and type(result[0]) is Fraction:
        return ((result[0].numerator, result[0].denominator), result[1])
    return ("not a (Fraction, pairs) tuple", repr(result)[:80])
"""


def _ratio(result):
    """What as_ratio makes of the reference's result (errors stay as they are)."""
    if isinstance(result, Raises):
        return result
    return ((result[0].numerator, result[0].denominator), result[1])


def _random_words(rng: random.Random, n: int) -> dict[str, int]:
    """n made-up words over a small alphabet (so that pairs repeat), with counts."""
    letters = "abcdeé"
    words = {
        "".join(rng.choice(letters) for _ in range(rng.randint(1, 7))): rng.randint(1, 9)
        for _ in range(n)
    }
    return words


def _hidden(rng: random.Random) -> dict[str, Cases]:
    """Hidden cases of every task, drawn from rng."""
    pairs_cases: Cases = []
    for _ in range(3):
        words = _random_words(rng, rng.randint(3, 12))
        pairs_cases.append(((words, _splits_after(words, rng.randint(0, 6))), "hidden"))
    vocab = list(_wordpiece_vocab())
    tempest = _tempest_words(400)
    fewest: Cases = [((word, vocab), "hidden") for word in rng.sample(tempest, 6)]
    small = ["a", "b", "##a", "##b", "##ab", "##ba", "ab", "##aab", "ba", "##bb"]
    fewest += [
        (("".join(rng.choice("ab") for _ in range(rng.randint(1, 12))), small), "hidden")
        for _ in range(3)
    ]
    unigram = _unigram()
    viterbi: Cases = [(lattice_edges(unigram, word), "hidden") for word in rng.sample(tempest, 4)]
    viterbi.append((_long_lattice(rng.randint(200, 1500), rng.randint(0, 10**6)), "hidden"))
    log_p = _unigram_log_p()
    sample = {
        f"▁{w}": rng.randint(1, 5) for w in rng.sample(tempest, 30) if set(f"▁{w}") <= set(log_p)
    }
    em: Cases = [((sample, log_p), "hidden")]
    weights = {"a": math.log(0.4), "b": math.log(0.3), "ab": math.log(0.2), "ba": math.log(0.1)}
    em.append(
        (({"".join(rng.choice("ab") for _ in range(rng.randint(5, 30))): 2}, weights), "hidden")
    )
    return {
        "best_pairs": pairs_cases,
        "fewest_pieces": fewest,
        "viterbi_edges": viterbi,
        "expected_counts": em,
    }


REFERENCES = {
    "best_pairs": best_pairs_reference,
    "fewest_pieces": fewest_pieces_reference,
    "viterbi_edges": viterbi_edges_reference,
    "expected_counts": expected_counts_reference,
}
CASES = {
    "best_pairs": _best_pairs_cases,
    "fewest_pieces": _fewest_cases,
    "viterbi_edges": _viterbi_cases,
    "expected_counts": _em_cases,
}
HINTS = {
    "best_pairs": BEST_PAIRS_HINT,
    "fewest_pieces": FEWEST_HINT,
    "viterbi_edges": VITERBI_HINT,
    "expected_counts": EM_HINT,
}
COMPARE = {"viterbi_edges": _close_path, "expected_counts": _close_counts}


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 10's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    hidden = _hidden(rng)
    tasks = []
    for name, reference in REFERENCES.items():
        calls = judge_calls(name, reference, CASES[name](), False)
        calls += judge_calls(name, reference, hidden[name], True)
        setup = ""
        if name == "best_pairs":
            calls = [
                Call(
                    call.label,
                    f"as_ratio({call.expr})",
                    call.args,
                    _ratio(call.expected),
                    call.hidden,
                )
                for call in calls
            ]
            setup = AS_RATIO
        extra = {"compare": COMPARE[name]} if name in COMPARE else {}
        tasks.append(Task(name, 3, (name,), calls, HINTS[name], setup=setup, **extra))
    return tasks
