"""Tests of the tokenizer measurements (book.analysis.metrics)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.analysis.metrics import (
    bytes_per_token,
    measure,
    oov_share,
    round_trips,
    tokens_per_word,
    unknown_id,
)
from book.encodings import get_encoding
from book.tokenizers import CharBPE, CharTokenizer, WordTokenizer
from book.tokenizers.errors import UnknownTokenError

SENTENCE = "the cat sat on the mat"
KEYS = ["n_vocab", "tokens", "bytes per token", "OOV rate", "round trip"]


def test_measure_characters_on_the_seed_sentence():
    # Seed 000: 22 character tokens, vocabulary of 10, every character known.
    row = measure(CharTokenizer.train(SENTENCE), SENTENCE)
    assert list(row) == KEYS
    assert row == {
        "n_vocab": 10,
        "tokens": 22,
        "bytes per token": 1.0,
        "OOV rate": 0.0,
        "round trip": True,
    }


def test_measure_words_counts_unknown_words_and_lost_spacing():
    tok = WordTokenizer.train(SENTENCE, unk=True)
    row = measure(tok, "the dog sat, the cat")
    # the [UNK] sat [UNK] the cat: "dog" and "," were never seen, so 2 of 6 tokens are unknown.
    assert row == {
        "n_vocab": 6,
        "tokens": 6,
        "bytes per token": 20 / 6,
        "OOV rate": 2 / 6,
        "round trip": False,
    }


def test_bytes_per_token_counts_utf8_bytes_not_characters():
    tok = CharTokenizer.train("日本")
    assert bytes_per_token(tok, "日本日") == 3.0
    assert measure(tok, "日本日")["bytes per token"] == 3.0


def test_tokens_per_word():
    tok = CharTokenizer.train(SENTENCE)
    assert tokens_per_word(tok, SENTENCE) == 22 / 6
    assert tokens_per_word(WordTokenizer.train(SENTENCE), SENTENCE) == 1.0


def test_round_trips():
    assert round_trips(CharTokenizer.train("a\tb\n"), "a\tb\n")
    assert not round_trips(WordTokenizer.train("a\tb\n"), "a\tb\n")  # decode gives "a b"


def test_tiktoken_encoding_is_a_tokenizer():
    enc = get_encoding("gpt2")
    row = measure(enc, "Hello world")
    assert row == {
        "n_vocab": enc.n_vocab,
        "tokens": 2,
        "bytes per token": 5.5,
        "OOV rate": 0.0,
        "round trip": True,
    }


def test_unknown_id_explicit_argument_wins():
    tok = CharTokenizer(["a"], unk=True)
    assert unknown_id(tok) == 1
    assert unknown_id(tok, unk_id=0) == 0
    assert unknown_id(tok, unk_id=None) is None
    assert measure(tok, "ab", unk_id=None)["OOV rate"] == 0.0
    assert measure(tok, "ab", unk_id=0)["OOV rate"] == 0.5


def test_char_bpe_unknown_characters_are_counted():
    bpe = CharBPE([], ["a", "b"], unk=True)
    row = measure(bpe, "ab c")
    # a b </w> <unk> </w>: one token in five is unknown
    assert row["OOV rate"] == 1 / 5
    assert unknown_id(CharBPE([], ["a"])) is None


def test_oov_share():
    assert oov_share([1, 2, 3], unk_id=None) == 0.0
    assert oov_share([3, 3], unk_id=3) == 1.0
    with pytest.raises(ValueError, match="at least one id"):
        oov_share([], unk_id=0)


@pytest.mark.parametrize("function", [measure, bytes_per_token])
def test_empty_encoding_is_refused_with_a_message(function):
    with pytest.raises(ValueError, match="at least one token"):
        function(CharTokenizer.train("abc"), "")


def test_tokens_per_word_refuses_a_text_without_words():
    with pytest.raises(ValueError, match="at least one word"):
        tokens_per_word(CharTokenizer.train(" "), "   ")


def test_encoder_errors_propagate():
    with pytest.raises(UnknownTokenError):
        measure(CharTokenizer.train("abc"), "abz")


@given(st.text(min_size=1))
def test_character_tokenizer_trained_on_the_text_is_exact(text):
    row = measure(CharTokenizer.train(text, unk=True), text)
    assert row["tokens"] == len(text)
    assert row["bytes per token"] == len(text.encode("utf-8")) / len(text)
    assert 1.0 <= row["bytes per token"] <= 4.0
    assert row["OOV rate"] == 0.0
    assert row["round trip"]


@given(st.text(min_size=1), st.text(min_size=1))
def test_oov_rate_is_the_share_of_unknown_characters(train, text):
    row = measure(CharTokenizer.train(train, unk=True), text)
    unknown = sum(ch not in set(train) for ch in text)
    assert row["OOV rate"] == unknown / len(text)
    # Each unknown character decodes as the five characters "<unk>", so the text grows.
    assert row["round trip"] == (unknown == 0)
