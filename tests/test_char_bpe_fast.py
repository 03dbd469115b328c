"""Tests of chapter 04's helpers: the incremental trainer, the tokens-vs-merges curve, the showcase.

The incremental trainer must learn exactly what ``char_bpe`` learns (merges, counts, ties and
final splits); the curve must equal encoding the text with each prefix of the merges.
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book import corpora
from book.show import showcase
from book.analysis import curves
from book.tokenizers import char_bpe_fast
from book import walkthroughs
from book.tokenizers.char_bpe import CharBPE, initial_splits, learn_merges, train, word_freqs
from book.tokenizers.char_bpe_fast import learn_merges_fast, train_fast
from book.analysis.curves import tokens_after_merges

# A tiny alphabet makes ties and overlapping pairs ("aaa") common, the cases that break tie-breaks.
WORDS = st.text(alphabet="abc", min_size=1, max_size=7)
WORD_FREQS = st.dictionaries(WORDS, st.integers(1, 5), min_size=1, max_size=8)
MARKERS = st.sampled_from(["</w>", None, "_"])


@pytest.mark.parametrize("module", [char_bpe_fast, curves, examples])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


# --- the incremental trainer ------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(WORD_FREQS, st.integers(0, 30), MARKERS)
def test_fast_learns_what_char_bpe_learns(freqs, num_merges, marker):
    splits = initial_splits(freqs, end_of_word=marker)
    assert learn_merges_fast(splits, freqs, num_merges) == learn_merges(splits, freqs, num_merges)


@pytest.mark.parametrize("freqs", [walkthroughs.HUG_WORD_FREQS, walkthroughs.LOW_WORD_FREQS, word_freqs(walkthroughs.CAT_TEXT)])
@pytest.mark.parametrize("marker", ["</w>", None, "_"])
def test_fast_on_the_seed_corpora(freqs, marker):
    splits = initial_splits(freqs, end_of_word=marker)
    assert learn_merges_fast(splits, freqs, 40) == learn_merges(splits, freqs, 40)


def test_fast_on_the_english_corpus():
    text = corpora.english("train")
    fast, slow = train_fast(text, 40), train(text, 40)
    assert fast.merges == slow.merges and fast.vocab == slow.vocab


def test_train_fast_stops_early_and_keeps_unk():
    bpe = train_fast("ab ab", 10, unk=True)
    assert bpe.merges == [(("a", "b"), 2), (("ab", "</w>"), 2)]
    assert bpe.tokenize("abc") == ["ab", "<unk>", "</w>"]


@pytest.mark.parametrize("num_merges", [-1, 1.5, True, "3"])
def test_fast_rejects_a_bad_num_merges(num_merges):
    with pytest.raises(ValueError, match="num_merges must be an int >= 0"):
        learn_merges_fast(initial_splits({"ab": 1}), {"ab": 1}, num_merges)


def test_train_fast_rejects_bad_training_data_like_train():
    with pytest.raises(ValueError, match="no words"):
        train_fast("   ", 3)
    with pytest.raises(ValueError, match="end-of-word marker"):
        train_fast({"a</w>": 2}, 3)


# --- tokens after k merges ----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(WORD_FREQS, st.lists(st.text(alphabet="abcd", min_size=1, max_size=6), min_size=1, max_size=12),
       st.integers(0, 15))
def test_curve_equals_encoding_with_each_prefix(train_freqs, heldout_words, num_merges):
    bpe = train(train_freqs, num_merges, unk=True)  # "d" never occurs in training: <unk>
    text = " ".join(heldout_words)
    checkpoints = list(range(len(bpe.merges) + 1))
    expected = [len(CharBPE(bpe.merges[:k], bpe.alphabet, unk=True).encode(text)) for k in checkpoints]
    assert tokens_after_merges(bpe.merges, word_freqs(text), checkpoints) == expected


def test_curve_keeps_the_order_and_repeats_of_the_checkpoints():
    bpe = train(walkthroughs.LOW_TEXT, 10)
    counts = tokens_after_merges(bpe.merges, walkthroughs.LOW_WORD_FREQS, [10, 0, 10, 3])
    assert counts == [len(CharBPE(bpe.merges[:k], bpe.alphabet).encode(walkthroughs.LOW_TEXT)) for k in [10, 0, 10, 3]]


def test_curve_without_a_marker_counts_characters_only():
    assert tokens_after_merges([], {"abc": 2}, [0], end_of_word=None) == [6]


@pytest.mark.parametrize("checkpoint", [-1, 2, True, 1.0])
def test_curve_rejects_checkpoints_outside_the_merges(checkpoint):
    with pytest.raises(ValueError, match="between 0 and 1"):
        tokens_after_merges([(("a", "b"), 1)], {"ab": 1}, [checkpoint])


# --- chapter 04's example -----------------------------------------------------------------------


def test_chapter_example_tokenizer_and_text():
    bpe = showcase.english_char_bpe()
    assert len(bpe.merges) == showcase.ENGLISH_MERGES
    assert set(showcase.STEPPER_TEXT.replace(" ", "")) <= set(bpe.alphabet)
    assert showcase.STEPPER_TEXT in " ".join(corpora.english("heldout").split())
    trace = bpe.trace(showcase.STEPPER_TEXT)
    assert len(trace) > 2 and trace[-1].pieces == tuple(bpe.tokenize(showcase.STEPPER_TEXT))
