"""The checks of chapter 10's exercises pass right answers and catch plausible wrong ones.

The wrong answers are the mistakes a reader makes here: scores as floats, counts not weighted
by word frequency, overlapping pairs counted once, ties sorted alphabetically or cut to one
pair; greedy longest match instead of the fewest pieces, the shortest first piece among ties,
the length limit forgotten; edges processed in list order, ties kept by the latest edge, no
error for an unreachable end; segmentations listed (too slow), counts not weighted, the best
path counted instead of all of them. The judge's tasks are graded in this process too: full
marks for right answers, none for unattempted ones, part for half-right ones.
"""

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from check_helpers import line, passes
from hypothesis import given
from hypothesis import strategies as st
from test_checks_ch01 import grade_locally

from book.checks import ch10
from book.tokenizers.unigram.lattice import build_lattice, forward, marginals, piece_table, viterbi
from book.tokenizers.wordpiece.wordpiece import greedy_longest_match

# --- right answers, written independently of the references -------------------------------------


def best_pairs_right(word_freqs, splits):
    symbols, pairs = Counter(), Counter()
    for word, parts in splits.items():
        for s in parts:
            symbols[s] += word_freqs[word]
        for pair in zip(parts, parts[1:]):
            pairs[pair] += word_freqs[word]
    if not pairs:
        raise ValueError("nothing to merge")
    scores = {p: Fraction(n, symbols[p[0]] * symbols[p[1]]) for p, n in pairs.items()}
    top = max(scores.values())
    return top, [p for p, s in scores.items() if s == top]


def fewest_right(word, vocab):
    """Breadth-first over positions: the first time the end is reached uses the fewest pieces."""
    if len(word) > 100:
        return ["[UNK]"]
    known = set(vocab)

    def piece(i, j):
        return word[i:j] if i == 0 else "##" + word[i:j]

    # From the end: the fewest pieces for each suffix, then the longest piece that keeps it.
    fewest = {len(word): 0}
    for i in range(len(word) - 1, -1, -1):
        options = [
            fewest[j] + 1
            for j in range(i + 1, len(word) + 1)
            if j in fewest and piece(i, j) in known
        ]
        if options:
            fewest[i] = min(options)
    if 0 not in fewest:
        return ["[UNK]"]
    out, i = [], 0
    while i < len(word):
        j = max(j for j in fewest if j > i and piece(i, j) in known and fewest[j] == fewest[i] - 1)
        out.append(piece(i, j))
        i = j
    return out


def viterbi_edges_right(n, edges):
    """Edges grouped by start (in list order), the starts taken from left to right."""
    if n == 0:
        return [], 0.0
    from_start = {}
    for k, edge in enumerate(edges):
        from_start.setdefault(edge[0], []).append(k)
    best = [None] * (n + 1)
    best[0] = (0.0, None)
    for start in range(n):
        for k in from_start.get(start, []):
            _, e, _, score = edges[k]
            if best[start] is not None:
                candidate = best[start][0] + score
                if best[e] is None or candidate > best[e][0]:
                    best[e] = (candidate, k)
    if best[n] is None:
        raise ValueError("unreachable")
    pieces, position = [], n
    while position:
        k = best[position][1]
        pieces.append(edges[k][2])
        position = edges[k][0]
    return pieces[::-1], best[n][0]


def expected_counts_right(word_freqs, log_p):
    """Through the book's lattice and its marginals."""
    names = list(log_p)
    table = piece_table({piece: (i, score) for i, (piece, score) in enumerate(log_p.items())})
    counts = Counter()
    for word, freq in word_freqs.items():
        lattice = build_lattice(word, table)
        if forward(lattice)[-1] == -math.inf:
            raise ValueError("cannot segment")
        used, _ = marginals(lattice)
        for piece_id, uses in used.items():
            counts[names[piece_id]] += freq * uses
    return dict(counts)


RIGHT = {
    "best_pairs": best_pairs_right,
    "fewest_pieces": fewest_right,
    "viterbi_edges": viterbi_edges_right,
    "expected_counts": expected_counts_right,
}


def test_right_answers_pass(capsys):
    assert passes(capsys, ch10.check_best_pairs, best_pairs_right)
    assert passes(capsys, ch10.check_fewest_pieces, fewest_right)
    assert passes(capsys, ch10.check_viterbi_edges, viterbi_edges_right)
    assert passes(capsys, ch10.check_expected_counts, expected_counts_right)


def test_the_references_pass_their_own_checks(capsys):
    for name, check in [
        ("best_pairs", ch10.check_best_pairs),
        ("fewest_pieces", ch10.check_fewest_pieces),
        ("viterbi_edges", ch10.check_viterbi_edges),
        ("expected_counts", ch10.check_expected_counts),
    ]:
        assert passes(capsys, check, ch10.REFERENCES[name])


# --- the references agree with the book and with brute force -------------------------------------


@given(
    st.dictionaries(
        st.text("abc", min_size=1, max_size=6), st.integers(1, 9), min_size=1, max_size=6
    )
)
def test_best_pairs_agrees_with_the_book_trainer(word_freqs):
    from book.tokenizers.wordpiece.train import split_word, train_vocab

    splits = {w: split_word(w) for w in word_freqs}
    if all(len(parts) < 2 for parts in splits.values()):
        return
    _, merges = train_vocab(word_freqs, 10_000)
    top, tied = ch10.best_pairs_reference(word_freqs, splits)
    assert merges[0][0] == tied[0] and math.isclose(merges[0][1], float(top))


@given(
    st.text("ab", min_size=1, max_size=9),
    st.sets(st.sampled_from(["a", "b", "ab", "ba", "##a", "##b", "##ab", "##bb", "##aba"])),
)
def test_fewest_pieces_is_minimal_by_brute_force(word, vocab):
    vocab = sorted(vocab)
    got = ch10.fewest_pieces_reference(word, vocab)
    cuts = [c for c in itertools.product([0, 1], repeat=len(word) - 1)]
    lengths = []
    for cut in cuts:
        bounds = [0] + [i + 1 for i, c in enumerate(cut) if c] + [len(word)]
        pieces = [word[a:b] if a == 0 else "##" + word[a:b] for a, b in zip(bounds, bounds[1:])]
        if all(p in vocab for p in pieces):
            lengths.append(len(pieces))
    if lengths:
        assert len(got) == min(lengths) and "".join(p.removeprefix("##") for p in got) == word
        assert len(got) <= len(greedy_longest_match(word, set(vocab))) or (
            greedy_longest_match(word, set(vocab)) == ["[UNK]"]
        )
    else:
        assert got == ["[UNK]"]


@given(st.text("ab", min_size=1, max_size=8))
def test_viterbi_edges_agrees_with_the_book_encoder(word):
    scores = {"a": (0, -1.0), "b": (1, -1.5), "ab": (2, -2.0), "ba": (3, -2.5), "aba": (4, -3.0)}
    names = list(scores)
    lattice = build_lattice(word, piece_table(scores))
    edges = [(n.start, n.end, names[n.piece_id], n.score) for row in lattice for n in row]
    pieces, total = ch10.viterbi_edges_reference(len(word), edges[::-1])
    assert pieces == [names[n.piece_id] for n in viterbi(lattice)]
    assert math.isclose(total, sum(scores[p][1] for p in pieces))


def test_expected_counts_match_the_chapter_by_listing_segmentations():
    def segmentations(word):
        if not word:
            return [[]]
        return [
            [word[:k], *rest]
            for k in range(1, len(word) + 1)
            if word[:k] in ch10.COURSE_LOG_P
            for rest in segmentations(word[k:])
        ]

    want = Counter()
    for word, freq in ch10.COURSE_WORDS.items():
        segs = segmentations(word)
        probs = [math.exp(sum(ch10.COURSE_LOG_P[p] for p in s)) for s in segs]
        for seg, prob in zip(segs, probs):
            for piece in seg:
                want[piece] += freq * prob / sum(probs)
    got = ch10.expected_counts_reference(ch10.COURSE_WORDS, ch10.COURSE_LOG_P)
    assert got == pytest.approx(dict(want))


# --- wrong answers are caught, and the line names the mistake --------------------------------


def best_pairs_float(word_freqs, splits):
    top, tied = best_pairs_right(word_freqs, splits)
    return float(top), tied


def best_pairs_unweighted(word_freqs, splits):
    return best_pairs_right(dict.fromkeys(word_freqs, 1), splits)


def best_pairs_alphabetical(word_freqs, splits):
    top, tied = best_pairs_right(word_freqs, splits)
    return top, sorted(tied)


def best_pairs_one(word_freqs, splits):
    top, tied = best_pairs_right(word_freqs, splits)
    return top, tied[:1]


def best_pairs_distinct(word_freqs, splits):
    """Counts a pair once per word, however often it repeats there."""
    return best_pairs_right(word_freqs, {w: list(dict.fromkeys(p)) for w, p in splits.items()})


def best_pairs_none(word_freqs, splits):
    try:
        return best_pairs_right(word_freqs, splits)
    except ValueError:
        return None


@pytest.mark.parametrize(
    "wrong, says",
    [
        (best_pairs_float, "a Fraction, not a float"),
        (best_pairs_unweighted, "times the word's count"),
        (best_pairs_alphabetical, "in the order"),
        (best_pairs_one, "every pair with that score"),
        (best_pairs_distinct, "overlapping pairs all count"),
        (best_pairs_none, "ValueError"),
    ],
)
def test_best_pairs_catches(capsys, wrong, says):
    out = line(capsys, ch10.check_best_pairs, wrong)
    assert out.startswith("✘") and says in out, out


def fewest_greedy(word, vocab):
    return greedy_longest_match(word, set(vocab))


def fewest_shortest_first(word, vocab):
    """The fewest pieces, but the shortest first piece among ties."""
    best = fewest_right(word, vocab)
    if best == ["[UNK]"]:
        return best
    if len(word) >= 16:
        return best
    for cut in reversed(list(itertools.product([0, 1], repeat=len(word) - 1))):  # early cuts first
        bounds = [0] + [i + 1 for i, c in enumerate(cut) if c] + [len(word)]
        pieces = [word[a:b] if a == 0 else "##" + word[a:b] for a, b in zip(bounds, bounds[1:])]
        if len(pieces) == len(best) and all(p in vocab for p in pieces):
            return pieces
    return best


def fewest_no_limit(word, vocab):
    known = set(vocab)
    return (
        fewest_right(word, vocab)
        if len(word) <= 100
        else (["a"] + ["##a"] * (len(word) - 1) if {"a", "##a"} <= known else ["[UNK]"])
    )


@pytest.mark.parametrize(
    "wrong, says",
    [
        (fewest_greedy, "Greedy longest match is not enough"),
        (fewest_shortest_first, "longest piece"),
        (fewest_no_limit, "more than 100"),
    ],
)
def test_fewest_pieces_catches(capsys, wrong, says):
    out = line(capsys, ch10.check_fewest_pieces, wrong)
    assert out.startswith("✘") and says in out, out


def viterbi_in_list_order(n, edges):
    """Processes edges as listed: wrong when a later edge starts earlier."""
    best = {0: (0.0, None)}
    for _ in range(2):  # twice, so most ends are reached; ties still depend on list order
        for k, (s, e, _, score) in enumerate(edges):
            if s in best and (e not in best or best[s][0] + score > best[e][0]):
                best[e] = (best[s][0] + score, k)
    if n not in best:
        raise ValueError("unreachable")
    pieces, position = [], n
    while position:
        k = best[position][1]
        pieces.append(edges[k][2])
        position = edges[k][0]
    return pieces[::-1], best[n][0]


def viterbi_latest_tie(n, edges):
    """Keeps the latest of equal candidates (>= instead of >)."""
    best = {0: (0.0, None)}
    for k in sorted(range(len(edges)), key=lambda k: edges[k][0]):
        s, e, _, score = edges[k]
        if s in best and (e not in best or best[s][0] + score >= best[e][0]):
            best[e] = (best[s][0] + score, k)
    if n not in best:
        raise ValueError("unreachable")
    pieces, position = [], n
    while position:
        k = best[position][1]
        pieces.append(edges[k][2])
        position = edges[k][0]
    return pieces[::-1], best[n][0]


def viterbi_no_error(n, edges):
    try:
        return viterbi_edges_right(n, edges)
    except ValueError:
        return [], -math.inf


@pytest.mark.parametrize(
    "wrong, says",
    [
        (viterbi_in_list_order, "in order of their start"),
        (viterbi_latest_tie, "only when strictly better"),
        (viterbi_no_error, "ValueError"),
    ],
)
def test_viterbi_edges_catches(capsys, wrong, says):
    out = line(capsys, ch10.check_viterbi_edges, wrong)
    assert out.startswith("✘") and says in out, out


def em_listing(word_freqs, log_p):
    """Lists every segmentation: right, but hopeless on a 40-character word."""
    if any(len(w) > 20 for w in word_freqs):
        raise MemoryError("too many segmentations to list")
    return expected_counts_right(word_freqs, log_p)


def em_unweighted(word_freqs, log_p):
    return expected_counts_right(dict.fromkeys(word_freqs, 1), log_p)


def em_best_path_only(word_freqs, log_p):
    """Counts the pieces of the best segmentation only (hard EM)."""
    names = list(log_p)
    table = piece_table({piece: (i, score) for i, (piece, score) in enumerate(log_p.items())})
    counts = Counter()
    for word, freq in word_freqs.items():
        try:
            path = viterbi(build_lattice(word, table))
        except ValueError:
            raise ValueError("cannot segment") from None
        for node in path:
            counts[names[node.piece_id]] += float(freq)
    return dict(counts)


@pytest.mark.parametrize(
    "wrong, says",
    [
        (em_listing, "no listing of segmentations"),
        (em_unweighted, "freq times"),
        (em_best_path_only, "each edge i->j used with probability"),
    ],
)
def test_expected_counts_catches(capsys, wrong, says):
    out = line(capsys, ch10.check_expected_counts, wrong)
    assert out.startswith("✘") and says in out, out


# --- the judge ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_the_judge_gives_right_answers_full_marks(tmp_path, seed):
    tasks = ch10.judge_tasks(random.Random(seed))
    assert grade_locally(tasks, RIGHT, tmp_path) == {task.name: task.points for task in tasks}


def test_the_judge_gives_unattempted_answers_nothing(tmp_path):
    def unattempted(*args):
        raise NotImplementedError()

    tasks = ch10.judge_tasks(random.Random(3))
    answers = {name: unattempted for name in RIGHT}
    assert set(grade_locally(tasks, answers, tmp_path).values()) == {0}


def test_the_judge_gives_half_right_answers_part_of_the_points(tmp_path):
    half = dict(RIGHT, best_pairs=best_pairs_float, fewest_pieces=fewest_greedy)
    tasks = ch10.judge_tasks(random.Random(4))
    assert grade_locally(tasks, half, tmp_path) == {
        "best_pairs": 0,
        "fewest_pieces": 0,
        "viterbi_edges": 3,
        "expected_counts": 3,
    }


def test_hidden_cases_are_new_and_differ_between_draws():
    first, second = ch10.judge_tasks(random.Random(5)), ch10.judge_tasks(random.Random(6))
    for a, b in zip(first, second):
        hidden_a = [call.args for call in a.calls if call.hidden]
        hidden_b = [call.args for call in b.calls if call.hidden]
        assert hidden_a and hidden_a != hidden_b, a.name
        visible = [call.args for call in a.calls if not call.hidden]
        assert not any(args in visible for args in hidden_a), a.name
