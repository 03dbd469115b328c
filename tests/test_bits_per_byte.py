"""Tests of bits per byte and the vocabulary sweep (book.analysis.bits_per_byte)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book.analysis.bits_per_byte import SPLITS, bits_per_byte, model_bits_per_byte, sweep
from book.analysis.metrics import bytes_per_token
from book.analysis.ngram import NGramModel
from book.tokenizers import ByteTokenizer, RegexTokenizer

TRAIN = "the cat sat on the mat. the dog sat on the log. a cat and a dog.\n" * 3
HELDOUT = "the dog sat on the mat. a cat sat on the log.\n"


def test_hand_computed_unigram():
    # Order 1 on ids 0 0 0 1: P(0) = (3 - .75)/4 + .75 * 2/4 * 1/2, P(1) = (1 - .75)/4 + ...
    model = NGramModel.train([[0, 0, 0, 1]], n_vocab=2, order=1)
    p0, p1 = 2.25 / 4 + 0.375 / 2, 0.25 / 4 + 0.375 / 2
    expected = (-math.log2(p0) - math.log2(p1)) / len("aé".encode())
    assert bits_per_byte(model, [0, 1], "aé") == pytest.approx(expected)


@settings(max_examples=30, deadline=None)
@given(st.text(min_size=1, max_size=40))
def test_bytes_alone_give_bits_per_id(text):
    # With no merges every id is one byte: bits per byte is the mean surprisal per id.
    tok = ByteTokenizer()
    ids = tok.encode(text)
    model = NGramModel.train([list(TRAIN.encode())], n_vocab=256, order=2)
    assert bits_per_byte(model, ids, text) == pytest.approx(sum(model.surprisal(ids)) / len(ids))


def test_per_token_loss_does_not_compare_but_bits_per_byte_does():
    # A larger vocabulary has fewer, longer tokens: more bits each, yet fewer bits per byte.
    small, large = RegexTokenizer.train(TRAIN, 256), RegexTokenizer.train(TRAIN, 300)
    per_token, per_byte = [], []
    for tok in (small, large):
        model = NGramModel.train([tok.encode(TRAIN)], tok.n_vocab, order=2)
        ids = tok.encode(HELDOUT)
        per_token.append(sum(model.surprisal(ids)) / len(ids))
        per_byte.append(bits_per_byte(model, ids, HELDOUT))
    assert per_token[1] > per_token[0] and per_byte[1] < per_byte[0]


def test_train_ids_replace_the_training_encoding():
    tok = RegexTokenizer.train(TRAIN, 280)
    assert model_bits_per_byte(tok, TRAIN, HELDOUT, 2) == model_bits_per_byte(
        tok, "ignored", HELDOUT, 2, train_ids=tok.encode(TRAIN)
    )


def test_sweep_equals_training_each_size_from_scratch():
    points = sweep(TRAIN, HELDOUT, [300, 256, 270], order=2)
    assert [(p.split, p.vocab_size) for p in points] == [
        (split, size) for split in SPLITS for size in (256, 270, 300)
    ]
    for point in points:
        pattern = SPLITS[point.split]
        if pattern is None:
            tok = ByteTokenizer.train(TRAIN, point.vocab_size)
        else:
            tok = RegexTokenizer.train(TRAIN, point.vocab_size, pattern=pattern)
        assert point.bytes_per_token == bytes_per_token(tok, HELDOUT)
        assert point.bits_per_byte == model_bits_per_byte(tok, TRAIN, HELDOUT, 2)
        assert point.tokenizer.merges == tok.merges


def test_bad_input_is_refused_with_a_reason():
    model = NGramModel.train([[0]], n_vocab=1, order=1)
    with pytest.raises(ValueError, match="non-empty held-out text"):
        bits_per_byte(model, [], "")
    with pytest.raises(ValueError, match="unknown split 'gpt5'"):
        sweep(TRAIN, HELDOUT, [256], ["gpt5"])
    with pytest.raises(ValueError, match="sizes >= 256"):
        sweep(TRAIN, HELDOUT, [100])
