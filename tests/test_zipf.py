"""Tests of Zipf's law fitted by least squares and by maximum likelihood (book.analysis.zipf)."""

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.analysis.zipf import rank_frequencies, zipf_least_squares, zipf_max_likelihood
from book.tokenizers.basic.words import split_words

counts_lists = st.lists(st.integers(1, 10_000), min_size=2, max_size=60)


@pytest.mark.parametrize("a", [0.5, 1.0, 1.5, 2.0])
def test_both_fits_recover_an_exact_power_law(a):
    counts = [1e6 * r**-a for r in range(1, 500)]
    assert zipf_least_squares(counts) == pytest.approx(a)
    assert zipf_max_likelihood(counts) == pytest.approx(a)


@given(counts_lists)
def test_max_likelihood_solves_its_first_order_condition(counts):
    a = zipf_max_likelihood(counts)
    frequencies = rank_frequencies(counts)
    log_ranks = np.log(np.arange(1, len(frequencies) + 1))
    weights = np.exp(-a * log_ranks)
    observed = frequencies @ log_ranks / frequencies.sum()
    model = weights @ log_ranks / weights.sum()
    # At the maximum the model's mean log rank is the observed one; at the bound a = 0 the
    # observed ranks are spread at least as evenly as equal counts would spread them.
    assert model == pytest.approx(observed, abs=1e-9) or (a == 0 and model <= observed + 1e-12)


@given(counts_lists, st.integers(2, 50))
def test_scaling_and_order_change_nothing_but_the_least_squares_intercept(counts, factor):
    scaled = [factor * c for c in reversed(counts)]
    assert zipf_max_likelihood(scaled) == pytest.approx(zipf_max_likelihood(counts))
    assert zipf_least_squares(scaled) == pytest.approx(zipf_least_squares(counts))


@given(counts_lists)
def test_max_likelihood_is_never_negative_for_ranked_counts(counts):
    assert zipf_max_likelihood(counts) >= 0


def test_top_fits_only_the_most_frequent_ranks():
    counts = [100, 50, 33, 25, 1, 1, 1, 1]
    assert zipf_least_squares(counts, top=4) == pytest.approx(zipf_least_squares(counts[:4]))
    assert zipf_max_likelihood(counts, top=4) == pytest.approx(zipf_max_likelihood(counts[:4]))


def test_the_two_fits_disagree_on_the_plays():
    """Chapter 03's numbers: least squares 1.01, maximum likelihood 0.90."""
    words = [w for w in split_words(corpora.english("train")) if w[0].isalpha()]
    counts = Counter(words).values()
    assert round(zipf_least_squares(counts), 2) == 1.01
    assert round(zipf_max_likelihood(counts), 2) == 0.90
    assert math.isclose(zipf_least_squares(counts, top=100), 0.763, abs_tol=5e-4)


@pytest.mark.parametrize(
    ("counts", "message"),
    [([7], "at least two ranks"), ([], "at least two ranks"), ([3, 0], "positive")],
)
def test_bad_counts_say_what_to_do(counts, message):
    with pytest.raises(ValueError, match=message):
        zipf_max_likelihood(counts)
    with pytest.raises(ValueError, match=message):
        zipf_least_squares(counts)
