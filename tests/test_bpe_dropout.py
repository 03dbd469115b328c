"""Tests of BPE-dropout (book.tokenizers.bpe.dropout) and the encoders' ``dropout`` option."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book import corpora
from book.tokenizers import ByteTokenizer, RegexTokenizer
from book.tokenizers.bpe.core import merge_lowest_rank
from book.tokenizers.bpe.dropout import check_dropout, merge_with_dropout

TRAIN = corpora.english("train")[:20_000]
REGEX = RegexTokenizer.train(TRAIN + "<|endoftext|>", 600, special_tokens=["<|endoftext|>"])
BYTE = ByteTokenizer.train(TRAIN[:3_000], 400)
probabilities = st.floats(0, 1)
seeds = st.integers(0, 2**32)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60), seeds)
def test_dropout_zero_is_bpe(text, seed):
    assert REGEX.encode(text, dropout=0.0, seed=seed) == REGEX.encode(text)
    assert BYTE.encode(text, dropout=0, seed=seed) == BYTE.encode(text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60), probabilities, seeds)
def test_every_segmentation_decodes_to_the_text(text, dropout, seed):
    for tok in (REGEX, BYTE):
        ids = tok.encode(text, dropout=dropout, seed=seed)
        assert all(i in tok.vocab for i in ids)
        assert tok.decode(ids, errors="strict") == text


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=40), seeds)
def test_dropout_one_leaves_the_bytes(text, seed):
    assert REGEX.encode(text, dropout=1.0, seed=seed) == list(text.encode("utf-8"))


class Draws(random.Random):
    """A generator whose draws are given in advance (and that says when they run out)."""

    def __init__(self, draws):
        super().__init__(0)
        self.draws = list(draws)

    def random(self):
        return self.draws.pop(0)


def test_candidates_are_tried_by_rank_and_the_first_kept_is_merged():
    ranks = {(97, 98): 0, (98, 99): 1, (97, 257): 2}
    # Step 1: "ab" (rank 0) dropped, "bc" kept; step 2: "a"+"bc" kept.
    assert merge_with_dropout(list(b"abc"), ranks, 0.1, Draws([0.05, 0.9, 0.5])) == [258]
    # Plain BPE merges "ab" first, after which "bc" is gone.
    assert merge_lowest_rank(list(b"abc"), ranks) == [256, 99]


def test_a_step_that_keeps_no_candidate_ends_the_encoding():
    ranks = {(97, 98): 0, (98, 99): 1}
    draws = Draws([0.05, 0.01, 0.99])  # both candidates dropped; the last draw is never taken
    assert merge_with_dropout(list(b"abc"), ranks, 0.1, draws) == list(b"abc")
    assert draws.draws == [0.99]


def test_more_dropout_gives_more_tokens_and_varied_segmentations():
    text = corpora.english("heldout")[:2_000]
    lengths = [
        sum(len(REGEX.encode(text, dropout=p, seed=seed)) for seed in range(3))
        for p in (0.0, 0.1, 0.3, 1.0)
    ]
    assert lengths == sorted(lengths) and len(set(lengths)) == 4
    draws = {tuple(REGEX.encode("the nightingale", dropout=0.3, seed=s)) for s in range(20)}
    assert len(draws) > 1


def test_one_generator_draws_afresh_an_int_seed_repeats():
    text = "Full fathom five thy father lies"
    rng = random.Random(7)
    first, second = (REGEX.encode(text, dropout=0.5, seed=rng) for _ in range(2))
    assert first != second
    assert REGEX.encode(text, dropout=0.5, seed=7) == REGEX.encode(text, dropout=0.5, seed=7)


def test_special_tokens_stay_whole():
    ids = REGEX.encode("a<|endoftext|>b", allowed_special="all", dropout=1.0)
    assert ids == [97, REGEX.special_tokens["<|endoftext|>"], 98]


def test_a_lone_surrogate_is_refused_with_its_position():
    with pytest.raises(UnicodeEncodeError, match="position 3"):
        REGEX.encode("abc\ud800", dropout=0.1)


@pytest.mark.parametrize("bad", [-0.1, 1.5, "0.1", True, float("nan")])
def test_a_bad_dropout_is_refused(bad):
    with pytest.raises(ValueError, match="dropout must be a probability"):
        check_dropout(bad)
    with pytest.raises(ValueError, match="dropout must be a probability"):
        REGEX.encode("hi", dropout=bad)
