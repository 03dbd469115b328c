"""Tests of BLT's entropy patching with the book's byte n-gram model (book.analysis.patching)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.analysis.ngram import NGramModel
from book.analysis.patching import (
    byte_model,
    bytes_per_patch,
    next_byte_entropies,
    patch_starts,
    patches,
)

MODEL = byte_model(corpora.english("train")[:20_000], order=3)
entropy_lists = st.lists(st.floats(0, 8), max_size=30)
thresholds = st.floats(-1, 9)


def test_entropies_are_those_of_the_models_next_byte_distribution():
    data = b"Full fathom five"
    for i, bits in enumerate(next_byte_entropies(MODEL, data)):
        p = MODEL.probs(data[max(0, i - 2) : i])
        assert bits == pytest.approx(-sum(q * math.log2(q) for q in p))
        assert 0 <= bits <= 8


def test_word_starts_are_harder_than_word_middles():
    # What patching relies on: after a space the next byte is less certain than inside a word.
    text = corpora.english("heldout")[:3_000].encode()
    entropies = np.array(next_byte_entropies(MODEL, text))
    after_space = np.array([i > 0 and text[i - 1] == 32 for i in range(len(text))])
    inside = np.array(
        [i > 1 and 97 <= text[i - 1] <= 122 and 97 <= text[i] <= 122 for i in range(len(text))]
    )
    assert entropies[after_space].mean() > entropies[inside].mean() + 1


@given(st.text(max_size=40), thresholds, st.booleans())
def test_patches_join_to_the_bytes(text, threshold, monotonic):
    data = text.encode()
    starts = patch_starts(next_byte_entropies(MODEL, data), threshold, monotonic=monotonic)
    assert b"".join(patches(data, starts)) == data
    assert all(patches(data, starts))  # no empty patch


@given(entropy_lists, thresholds, thresholds)
def test_a_higher_threshold_only_removes_boundaries(entropies, low, high):
    low, high = sorted((low, high))
    for monotonic in (False, True):
        fewer = patch_starts(entropies, high, monotonic=monotonic)
        assert set(fewer) <= set(patch_starts(entropies, low, monotonic=monotonic))


@given(entropy_lists)
def test_extreme_thresholds(entropies):
    n = len(entropies)
    assert patch_starts(entropies, math.inf) == ([0] if n else [])
    assert patch_starts(entropies, -1.0) == list(range(n))


def test_hand_computed_starts():
    entropies = [8.0, 1.0, 3.0, 0.5, 2.5, 2.6]
    assert patch_starts(entropies, 2.0) == [0, 2, 4, 5]
    assert patch_starts(entropies, 1.5, monotonic=True) == [0, 2, 4]


def test_an_untrained_model_knows_nothing_and_bytes_per_patch_follows_the_starts():
    assert next_byte_entropies(NGramModel(256, order=2), b"ab") == [8.0, 8.0]
    text = "To be, or not to be"
    starts = patch_starts(next_byte_entropies(MODEL, text.encode()), 2.5)
    assert bytes_per_patch(MODEL, text, 2.5) == len(text) / len(starts)


def test_bad_input_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="must predict bytes"):
        next_byte_entropies(NGramModel(300), b"a")
    with pytest.raises(ValueError, match="number of bits"):
        patch_starts([1.0], float("nan"))
    with pytest.raises(ValueError, match="begin at 0 and increase"):
        patches(b"abc", [0, 2, 1])
    with pytest.raises(ValueError, match="past the 3 bytes"):
        patches(b"abc", [0, 3])
    with pytest.raises(ValueError, match="non-empty"):
        bytes_per_patch(MODEL, "", 1.0)
