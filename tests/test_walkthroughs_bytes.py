"""The walkthroughs' byte-level and pre-tokenization claims: right where marked so, wrong too."""

from __future__ import annotations

import doctest
import re

import pytest
import regex

from book import walkthroughs
from book.encodings import get_encoding
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, merge, train_naive
from book.tokenizers.bpe.patterns import GPT2_ORIGINAL_PATTERN, split


def test_doctests():
    assert doctest.testmod(walkthroughs).failed == 0


def test_cat_hat_walkthrough_is_right():
    ids = list(walkthroughs.CAT_HAT_TEXT.encode("utf-8"))
    assert ids == walkthroughs.CAT_HAT_CLAIMED_BYTES
    counts = get_pair_counts(ids)
    assert {
        pair: counts[pair] for pair in walkthroughs.CAT_HAT_CLAIMED_PAIR_COUNTS
    } == walkthroughs.CAT_HAT_CLAIMED_PAIR_COUNTS
    assert max(counts.values()) == 2  # the table's first four are all the pairs that tie at 2
    merges = train_naive([ids], 2)
    assert [pair for pair, _ in merges] == walkthroughs.CAT_HAT_CLAIMED_MERGES
    after_1 = merge(ids, merges[0][0], 256)
    assert after_1 == walkthroughs.CAT_HAT_CLAIMED_AFTER_MERGE_1
    assert merge(after_1, merges[1][0], 257) == walkthroughs.CAT_HAT_CLAIMED_AFTER_MERGE_2
    vocab = build_vocab(merges)
    assert {i: vocab[i] for i in (256, 257)} == walkthroughs.CAT_HAT_CLAIMED_VOCAB


def test_theatre_first_bytes_and_tie():
    ids = list(walkthroughs.THEATRE_TEXT.encode("utf-8"))
    assert ids[:4] == walkthroughs.THEATRE_CLAIMED_FIRST_BYTES
    counts = get_pair_counts(ids)
    assert counts[(116, 104)] == counts[(104, 101)] == max(counts.values()) == 4
    assert train_naive([ids], 1)[0] == ((116, 104), 4)  # the tie goes to the pair seen first


def test_utf8_bytes_are_right():
    for text, claimed in walkthroughs.CLAIMED_UTF8_BYTES.items():
        assert list(text.encode("utf-8")) == claimed


def test_seed_001_pattern_is_gpt2s_original_and_splits_contractions():
    texts = ["I'll go", "it's 2024  now!!\n\n", "Don't   stop", "we've 3 cats'", " x\t\ty "]
    for text in texts:
        assert regex.findall(walkthroughs.GPT2_SPLIT_PATTERN_CLAIMED, text) == split(
            text, GPT2_ORIGINAL_PATTERN
        )
    for text, claimed in walkthroughs.GPT2_SPLIT_CLAIMED.items():
        assert regex.findall(walkthroughs.GPT2_SPLIT_PATTERN_CLAIMED, text) == claimed


def test_dog_chunks_are_right():
    assert (
        re.findall(walkthroughs.DOG_RE_PATTERN, walkthroughs.DOG_TEXT)
        == walkthroughs.DOG_CLAIMED_CHUNKS
    )


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_theatre_is_one_token(name):
    assert len(get_encoding(name).encode(walkthroughs.THEATRE_CLAIMED_ONE_TOKEN)) == 1


def test_def_claims_are_wrong():
    for name, claimed in walkthroughs.DEF_CLAIMED_TOKEN_COUNTS.items():
        encoding = get_encoding(name)
        pieces = [encoding.decode([i]) for i in encoding.encode(walkthroughs.DEF_TEXT)]
        assert (
            pieces == ["def", " calculate", "():"] and walkthroughs.DEF_CLAIMED_TOKEN not in pieces
        )
        assert (claimed == len(pieces)) == (name == "cl100k_base")  # GPT-2's "~6" is wrong


def test_gpt4_ids_are_half_wrong():
    encoding = get_encoding("cl100k_base")
    ids = encoding.encode(walkthroughs.GPT4_TEXT)
    pieces = [encoding.decode([i]) for i in ids]
    assert pieces == ["I", "'m", " token", "izing", " this"]
    assert [p.strip() for p in pieces[2:4]] == walkthroughs.GPT4_CLAIMED_PIECES
    assert ids == [40, 2846, 4037, 4954, 420] != walkthroughs.GPT4_CLAIMED_IDS
    assert [encoding.decode([i]) for i in walkthroughs.GPT4_CLAIMED_IDS[2:4]] == ["<quote", " eng"]
    assert encoding.encode("I\u2019m")[1] == 4344


def test_gpt2_sizes_are_right():
    encoding = get_encoding("gpt2")
    sizes = walkthroughs.GPT2_CLAIMED_SIZES
    assert len(encoding._mergeable_ranks) == sizes["bytes"] + sizes["merges"]
    assert len(encoding._special_tokens) == sizes["special"]
    assert encoding.n_vocab == sizes["total"]
