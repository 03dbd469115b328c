"""Token counts after the first k merges equal encoding with a tokenizer cut to k merges."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.analysis.compression import bytes_per_token_curve, distinct_chunks, token_count_curve
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.patterns import GPT2_PATTERN
from book.tokenizers.bpe.regex_bpe import RegexTokenizer

TRAIN = corpora.english("train")[:30_000]
HELDOUT = corpora.english("heldout")[:5_000]
BYTE = ByteTokenizer.train(TRAIN, 600)
REGEX = RegexTokenizer.train(TRAIN, 600, pattern=GPT2_PATTERN)
any_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)


def cut(tokenizer: ByteTokenizer, k: int) -> ByteTokenizer:
    """The same kind of tokenizer with only the first k merges."""
    if isinstance(tokenizer, RegexTokenizer):
        return RegexTokenizer(tokenizer.merges[:k], tokenizer.pattern)
    return ByteTokenizer(tokenizer.merges[:k])


@pytest.mark.parametrize("tokenizer", [BYTE, REGEX], ids=["byte", "regex"])
def test_counts_equal_encoding_with_the_first_k_merges(tokenizer):
    checkpoints = [0, 1, 7, 100, 343, 344, 600 - 256]
    expected = [len(cut(tokenizer, k).encode(HELDOUT)) for k in checkpoints]
    assert token_count_curve(tokenizer, HELDOUT, checkpoints) == expected


@given(text=any_text, checkpoints=st.lists(st.integers(0, 344), max_size=6))
def test_counts_equal_encoding_on_any_text_and_checkpoints(text, checkpoints):
    for tokenizer in (BYTE, REGEX):
        expected = [len(cut(tokenizer, k).encode(text)) for k in checkpoints]
        assert token_count_curve(tokenizer, text, checkpoints) == expected


def test_more_merges_never_mean_more_tokens():
    counts = token_count_curve(BYTE, HELDOUT, range(345))
    assert all(a >= b for a, b in zip(counts, counts[1:]))
    assert counts[0] == len(HELDOUT.encode("utf-8"))


def test_checkpoints_keep_their_order_and_repeats():
    forward = token_count_curve(BYTE, HELDOUT, [0, 50, 344])
    assert token_count_curve(BYTE, HELDOUT, [344, 0, 50, 0]) == [
        forward[2],
        forward[0],
        forward[1],
        forward[0],
    ]


def test_bytes_per_token_is_bytes_over_tokens():
    text = "naïve café 🦙 " + HELDOUT[:500]
    counts = token_count_curve(BYTE, text, [0, 344])
    n_bytes = len(text.encode("utf-8"))
    assert bytes_per_token_curve(BYTE, text, [0, 344]) == [n_bytes / counts[0], n_bytes / counts[1]]
    assert bytes_per_token_curve(BYTE, text, [0])[0] == 1.0
    assert bytes_per_token_curve(BYTE, "", [0, 10]) == [0.0, 0.0]


def test_regex_tokenizer_counts_each_distinct_chunk_once_with_its_weight():
    assert distinct_chunks(REGEX, "the cat, the cat") == {"the": 1, " cat": 2, ",": 1, " the": 1}
    assert distinct_chunks(BYTE, "the cat, the cat") == {"the cat, the cat": 1}


@pytest.mark.parametrize("bad", [-1, 345, 1.0, True, "3"])
def test_checkpoints_outside_the_merge_list_are_a_clear_error(bad):
    with pytest.raises(ValueError, match="number of merges between 0 and 344"):
        token_count_curve(BYTE, "abc", [0, bad])


def test_lone_surrogate_is_a_clear_error():
    with pytest.raises(UnicodeEncodeError, match="lone surrogate"):
        token_count_curve(BYTE, "ok \ud83d", [0])
