"""The byte-level and pre-tokenization worked examples: CS336's lecture and handout, GPT-2's."""

from __future__ import annotations

import doctest
import re

import regex

from book import walkthroughs
from book.encodings import get_encoding
from book.tokenizers import ByteTokenizer
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, train_naive
from book.tokenizers.bpe.patterns import GPT2_ORIGINAL_PATTERN, split


def test_doctests():
    assert doctest.testmod(walkthroughs).failed == 0


def test_cat_hat_as_cs336s_lecture_trains_it():
    ids = list(walkthroughs.CAT_HAT_TEXT.encode("utf-8"))
    assert ids == walkthroughs.CAT_HAT_CLAIMED_BYTES
    counts = get_pair_counts(ids)
    # Four pairs tie at 2 (th, he, "e ", at); the lecture's max(counts, key=counts.get) takes
    # the first, and so does the greater-pair rule of CS336's handout (116 is the largest).
    assert [pair for pair, n in counts.items() if n == 2] == [
        (116, 104),
        (104, 101),
        (101, 32),
        (97, 116),
    ]
    assert max(pair for pair, n in counts.items() if n == 2) == (116, 104)
    merges = train_naive([ids], walkthroughs.CAT_HAT_NUM_MERGES)
    assert {
        pair: 256 + r for r, (pair, _) in enumerate(merges)
    } == walkthroughs.CAT_HAT_CLAIMED_MERGES
    vocab = build_vocab(merges)
    assert {i: vocab[i] for i in (256, 257, 258)} == walkthroughs.CAT_HAT_CLAIMED_VOCAB
    assert ByteTokenizer.train(walkthroughs.CAT_HAT_TEXT, 259).merges == merges


def test_theatre_tie_goes_to_the_pair_seen_first():
    ids = list(walkthroughs.THEATRE_TEXT.encode("utf-8"))
    counts = get_pair_counts(ids)
    assert counts[(116, 104)] == counts[(104, 101)] == max(counts.values()) == 4
    assert train_naive([ids], 1)[0] == ((116, 104), 4)


def test_utf8_bytes_are_right():
    for text, claimed in walkthroughs.CLAIMED_UTF8_BYTES.items():
        assert list(text.encode("utf-8")) == claimed


def test_cs336_pattern_is_gpt2s_original_and_splits_its_sentence():
    texts = ["I'll go", "it's 2024  now!!\n\n", "Don't   stop", "we've 3 cats'", " x\t\ty "]
    for text in texts:
        assert regex.findall(walkthroughs.GPT2_SPLIT_PATTERN_CLAIMED, text) == split(
            text, GPT2_ORIGINAL_PATTERN
        )
    for text, claimed in walkthroughs.GPT2_SPLIT_CLAIMED.items():
        assert regex.findall(walkthroughs.GPT2_SPLIT_PATTERN_CLAIMED, text) == claimed
        assert split(text, GPT2_ORIGINAL_PATTERN) == claimed


def test_the_re_stand_in_splits_the_dog_sentence_but_glues_letters_to_digits():
    chunks = re.findall(walkthroughs.DOG_RE_PATTERN, walkthroughs.DOG_TEXT)
    assert chunks == ["Dog", " is", " barking", ".", " barking", "."]
    assert re.findall(walkthroughs.DOG_RE_PATTERN, "route66") == ["route66"]
    assert split("route66", GPT2_ORIGINAL_PATTERN) == ["route", "66"]


def test_gpt2_has_50257_tokens_256_bytes_50000_merges_and_one_special():
    encoding = get_encoding("gpt2")
    ranks = encoding._mergeable_ranks
    assert sum(len(token) == 1 for token in ranks) == 256 and len(ranks) - 256 == 50_000
    assert encoding._special_tokens == {"<|endoftext|>": 50256}
    assert encoding.n_vocab == walkthroughs.GPT2_CLAIMED_N_VOCAB
