"""The checks of chapter 04's exercises pass right answers and catch plausible wrong ones."""

from collections import Counter

import pytest

from book.checks import ch04
from book.tokenizers.char_bpe import CharBPE, initial_splits, learn_merges, merge_pair, merge_symbols, pair_counts

from check_helpers import passes


def train_right(word_freqs, num_merges, end_of_word="</w>"):
    return learn_merges(initial_splits(word_freqs, end_of_word), word_freqs, num_merges)[0]


def train_with(pick, word_freqs, num_merges, end_of_word="</w>"):
    """A trainer that chooses the pair with ``pick(counts)``; the rest is right."""
    splits = initial_splits(word_freqs, end_of_word)
    merges = []
    for _ in range(num_merges):
        counts = pair_counts(splits, word_freqs)
        if not counts:
            break
        best = pick(counts)
        merges.append((best, counts[best]))
        splits = merge_pair(splits, best)
    return merges


def encode_right(word, merges, alphabet):
    return CharBPE(merges, alphabet, unk=True).tokenize(word)


def table_right(word_freqs, num_merges, end_of_word):
    merges = train_right(word_freqs, num_merges, end_of_word)
    return [(n, pair, pair[0] + pair[1], count) for n, (pair, count) in enumerate(merges, 1)]


def wrong_counts_right(claimed, word_freqs, end_of_word):
    counts = pair_counts(initial_splits(word_freqs, end_of_word), word_freqs)
    return {pair: counts.get(pair, 0) for pair, n in claimed.items() if counts.get(pair, 0) != n}


def test_right_answers_pass(capsys):
    assert passes(capsys, ch04.check_count_pairs, pair_counts)
    assert passes(capsys, ch04.check_merge_pair, merge_pair)
    assert passes(capsys, ch04.check_train_bpe, train_right)
    assert passes(capsys, ch04.check_encode_word, encode_right)
    assert passes(capsys, ch04.check_merge_table, table_right)
    assert passes(capsys, ch04.check_wrong_counts, wrong_counts_right)


@pytest.mark.parametrize("wrong", [
    lambda splits, freqs: {p: c for p, c in sorted(pair_counts(splits, freqs).items())},  # sorted keys
    lambda splits, freqs: dict(Counter(p for s in splits.values() for p in zip(s, s[1:]))),  # unweighted
    lambda splits, freqs: {p: c for w, f in freqs.items() for p, c in  # overlaps counted once per word
                           Counter(set(zip(splits[w], splits[w][1:]))).items()},
    lambda splits, freqs: {(1, 2): 3},
])
def test_count_pairs_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_count_pairs, wrong)


def merge_in_place(splits, pair):
    for word, symbols in splits.items():
        splits[word] = merge_symbols(symbols, pair)
    return splits


def merge_with_replace(splits, pair):
    """Joins symbols with spaces and replaces text: merges across symbol boundaries."""
    a, b = pair
    return {w: tuple(" ".join(s).replace(f"{a} {b}", a + b).split(" ")) for w, s in splits.items()}


@pytest.mark.parametrize("wrong", [
    merge_in_place,
    merge_with_replace,
    lambda splits, pair: {w: list(merge_symbols(s, pair)) for w, s in splits.items()},  # lists
    lambda splits, pair: {w: merge_symbols(s[::-1], pair[::-1])[::-1] for w, s in splits.items()},  # right to left
])
def test_merge_pair_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_merge_pair, wrong)


@pytest.mark.parametrize("pick", [
    min,  # alphabetical among everything: not even the most frequent
    lambda counts: max(sorted(counts), key=counts.get),  # ties broken alphabetically
    lambda counts: max(reversed(counts), key=counts.get),  # ties go to the pair seen last
])
def test_train_bpe_catches_wrong_choices(capsys, pick):
    assert not passes(capsys, ch04.check_train_bpe, lambda *args: train_with(pick, *args))


def train_without_stopping(word_freqs, num_merges, end_of_word="</w>"):
    """Forgets that pairs can run out: max() of no counts raises."""
    splits = initial_splits(word_freqs, end_of_word)
    merges = []
    for _ in range(num_merges):
        counts = pair_counts(splits, word_freqs)
        best = max(counts, key=counts.get)
        merges.append((best, counts[best]))
        splits = merge_pair(splits, best)
    return merges


def test_train_bpe_catches_ignoring_the_marker_argument_and_not_stopping(capsys):
    assert not passes(capsys, ch04.check_train_bpe, lambda f, n, eow="</w>": train_right(f, n))
    assert not passes(capsys, ch04.check_train_bpe, train_without_stopping)


@pytest.mark.parametrize("wrong", [
    lambda word, merges, alphabet: encode_right(word, merges[::-1], alphabet),  # reverse order
    lambda word, merges, alphabet: CharBPE(merges, alphabet, unk=True).tokenize(word)[:-1],  # drops marker
    lambda word, merges, alphabet: CharBPE(merges, sorted(set(alphabet) | set(word))).tokenize(word),  # no <unk>
    lambda word, merges, alphabet: list(word) + ["</w>"],  # no merges
])
def test_encode_word_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_encode_word, wrong)


@pytest.mark.parametrize("wrong", [
    lambda f, n, eow: [(i, pair, pair[0] + pair[1], c) for i, (pair, c) in enumerate(train_right(f, n, eow))],
    lambda f, n, eow: table_right(f, n, "</w>"),
    lambda f, n, eow: [(i, pair, pair[0] + pair[1], c) for i, (pair, c) in
                       enumerate(train_with(lambda c: max(sorted(c), key=c.get), f, n, eow), 1)],
])
def test_merge_table_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_merge_table, wrong)


@pytest.mark.parametrize("wrong", [
    lambda claimed, freqs, eow: {("w", "e"): 8},  # the one answer the chapter shows
    lambda claimed, freqs, eow: wrong_counts_right(claimed, freqs, "</w>"),  # ignores the marker
    lambda claimed, freqs, eow: {p: c for p, c in wrong_counts_right(claimed, freqs, eow).items() if c},  # drops 0
    lambda claimed, freqs, eow: {p: claimed[p] for p in wrong_counts_right(claimed, freqs, eow)},  # claims
])
def test_wrong_counts_catches(capsys, wrong):
    assert not passes(capsys, ch04.check_wrong_counts, wrong)
