"""The checks of chapter 03's exercises pass right answers and catch plausible wrong ones."""

from collections import Counter

import pytest
import regex

from book.checks import ch03
from book.analysis import oov_rate
from book.tokenizers.words import WordTokenizer, split_words, vocab_from_counts, word_counts

from check_helpers import passes


def build_vocab_right(words, min_freq=1, max_size=None):
    return vocab_from_counts(word_counts(words), min_freq=min_freq, max_size=max_size)


def encode_right(text, vocab):
    return WordTokenizer(vocab, unk=True).encode(text)


def decode_right(ids, vocab):
    return WordTokenizer(vocab, unk=True).decode(ids)


def smallest_vocab_right(train_words, heldout_words, target):
    """Grow the vocabulary one ranked word at a time, updating the unknown count incrementally."""
    ranked = build_vocab_right(train_words)
    heldout = Counter(heldout_words)
    unknown = len(heldout_words)
    for k in range(len(ranked) + 1):
        if k:
            unknown -= heldout[ranked[k - 1]]
        if unknown / len(heldout_words) <= target:
            return k
    return None


def test_right_answers_pass(capsys):
    assert passes(capsys, ch03.check_split_words, split_words)
    assert passes(capsys, ch03.check_build_vocab, build_vocab_right)
    assert passes(capsys, ch03.check_oov_rate, lambda vocab, words: oov_rate(list(vocab), words))
    assert passes(capsys, ch03.check_encode_decode, encode_right, decode_right)
    assert passes(capsys, ch03.check_smallest_vocab, smallest_vocab_right)


@pytest.mark.parametrize("wrong", [
    str.split,  # punctuation stays attached
    lambda text: regex.findall(r"\w+|[^\w\s]", text),  # apostrophes split words, marks split
    lambda text: regex.findall(r"\p{L}+(?:'\p{L}+)*|\p{N}+|[^\s\p{L}\p{N}]", text),  # no marks, no ’
    lambda text: regex.findall(r"[\p{L}\p{M}']+|\p{N}+|[^\s\p{L}\p{M}\p{N}]", text),  # any apostrophe
])
def test_split_words_catches(capsys, wrong):
    assert not passes(capsys, ch03.check_split_words, wrong)


@pytest.mark.parametrize("wrong", [
    lambda words, min_freq=1, max_size=None: sorted(  # ties alphabetical
        (w for w, c in Counter(words).items() if c >= min_freq), key=lambda w: (-Counter(words)[w], w))[:max_size],
    lambda words, min_freq=1, max_size=None: [w for w, c in Counter(words).items() if c >= min_freq][:max_size],
    lambda words, min_freq=1, max_size=None: build_vocab_right(words, 1, max_size),  # ignores min_freq
    lambda words, min_freq=1, max_size=None: build_vocab_right(words, min_freq, None),  # ignores max_size
])
def test_build_vocab_catches(capsys, wrong):
    assert not passes(capsys, ch03.check_build_vocab, wrong)


def test_oov_rate_catches_counting_types(capsys):
    assert not passes(capsys, ch03.check_oov_rate, lambda vocab, words: len(set(words) - set(vocab)) / len(set(words)))
    assert not passes(capsys, ch03.check_oov_rate, lambda vocab, words: 0.25)


def test_encode_decode_catches(capsys):
    whitespace_encode = lambda text, vocab: WordTokenizer(vocab, split="whitespace", unk=True).encode(text)
    assert not passes(capsys, ch03.check_encode_decode, whitespace_encode, decode_right)
    glued_decode = lambda ids, vocab: "".join(decode_right(ids, vocab).split(" "))
    assert not passes(capsys, ch03.check_encode_decode, encode_right, glued_decode)
    lenient_decode = lambda ids, vocab: " ".join("<unk>" if i == len(vocab) else vocab[i] for i in ids)
    assert not passes(capsys, ch03.check_encode_decode, encode_right, lenient_decode)


def test_smallest_vocab_catches(capsys):
    def off_by_one(train_words, heldout_words, target):
        found = smallest_vocab_right(train_words, heldout_words, target)
        return None if found is None else found + 1

    def never_none(train_words, heldout_words, target):
        found = smallest_vocab_right(train_words, heldout_words, target)
        return len(set(train_words)) if found is None else found

    for wrong in (off_by_one, never_none, lambda *args: 100):
        assert not passes(capsys, ch03.check_smallest_vocab, wrong)
