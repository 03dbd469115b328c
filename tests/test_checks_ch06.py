"""The checks of chapter 06's exercises pass right answers and catch plausible wrong ones."""

from __future__ import annotations

import re

import pytest
import regex

from book.checks import ch06
from book.tokenizers.bpe_core import merge
from book.tokenizers.byte_bpe import ByteTokenizer
from book.tokenizers.patterns import split
from book.tokenizers.pretokenize import chunk_counts
from book.tokenizers.regex_bpe import RegexTokenizer, recover_merges

from check_helpers import passes


def crossing_right(vocab, pattern):
    return ch06._reference_crossing(vocab, pattern)


def train_right(text, vocab_size, pattern):
    return RegexTokenizer.train(text, vocab_size, pattern=pattern).merges


def encode_right(text, merges, pattern):
    return RegexTokenizer(merges, pattern).encode_ordinary(text)


def recover_right(ranks):
    byte_ids, merges = recover_merges(ranks)
    return byte_ids, [pair for pair, _ in merges]


def build_right(ranks, pattern):
    byte_ids, merges = recover_merges(ranks)
    return RegexTokenizer(merges, pattern, byte_ids=byte_ids).encode_ordinary


def test_right_answers_pass(capsys):
    assert passes(capsys, ch06.check_chunk_counts, chunk_counts)
    assert passes(capsys, ch06.check_crossing_tokens, crossing_right)
    assert passes(capsys, ch06.check_train_regex, train_right)
    assert passes(capsys, ch06.check_encode_regex, encode_right)
    assert passes(capsys, ch06.check_recover, recover_right)
    assert passes(capsys, ch06.check_build_encoder, build_right)


def test_test_set_is_varied():
    texts = ch06.TEST_SET
    assert len(texts) >= 25 and "" in texts
    assert any("\u200d" in t for t in texts) and any("\r\n" in t for t in texts)
    assert any(regex.search(r"\p{Han}", t) for t in texts) and any(regex.search(r"\p{Cyrillic}", t) for t in texts)


@pytest.mark.parametrize("wrong", [
    lambda text, pattern: {c.decode(): n for c, n in chunk_counts(text, pattern).items()},  # str keys
    lambda text, pattern: dict(sorted(chunk_counts(text, pattern).items())),  # sorted
    lambda text, pattern: chunk_counts(text, r"\S+|\s+"),  # ignores the pattern
    lambda text, pattern: {c.encode(): 1 for c in re.findall(r"\w+|\W", text)},
])
def test_chunk_counts_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_chunk_counts, wrong)


@pytest.mark.parametrize("wrong", [
    lambda vocab, pattern: [i for i in sorted(vocab) if len(split(vocab[i].decode("utf-8", "replace"), pattern)) > 1],
    lambda vocab, pattern: [i for i in sorted(vocab) if i >= 256 and b" " in vocab[i][1:]],  # spaces only
    lambda vocab, pattern: [i for i in sorted(vocab, reverse=True) if i in crossing_right(vocab, pattern)],
])
def test_crossing_tokens_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_crossing_tokens, wrong)


def train_over_whole_text(text, vocab_size, pattern):
    """Byte-level training that ignores the chunks: pairs cross chunk boundaries."""
    return ByteTokenizer.train(text, vocab_size).merges


def train_unweighted(text, vocab_size, pattern):
    """Each distinct chunk counted once, whatever its frequency."""
    splits = {chunk: list(chunk) for chunk in chunk_counts(text, pattern)}
    merges = []
    for new_id in range(256, vocab_size):
        counts = {}
        for ids in splits.values():
            for pair in zip(ids, ids[1:]):
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            break
        best = max(counts, key=counts.get)
        merges.append((best, counts[best]))
        splits = {chunk: merge(ids, best, new_id) for chunk, ids in splits.items()}
    return merges


@pytest.mark.parametrize("wrong", [train_over_whole_text, train_unweighted])
def test_train_regex_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_train_regex, wrong)


@pytest.mark.parametrize("wrong", [
    lambda text, merges, pattern: ByteTokenizer(merges).encode(text),  # no chunks
    lambda text, merges, pattern: RegexTokenizer(merges, r"\S+|\s+").encode(text),  # another pattern
])
def test_encode_regex_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_encode_regex, wrong)


def recover_by_first_pair(ranks):
    """Splits each token after its first byte: right for some tokens, wrong for most."""
    byte_ids = [ranks[bytes([b])] for b in range(256)]
    tokens = sorted(ranks, key=ranks.get)[256:]
    return byte_ids, [(ranks[t[:1]], ranks[t[1:]]) if t[1:] in ranks else (0, 0) for t in tokens]


def merges_as_bytes(ranks):
    """The merges with each part's bytes instead of its id (a plausible mistake)."""
    by_id = {token_id: token for token, token_id in ranks.items()}
    return [(by_id[a], by_id[b]) for (a, b), _ in recover_merges(ranks)[1]]


@pytest.mark.parametrize("wrong", [
    recover_by_first_pair,
    lambda ranks: (list(range(256)), recover_right(ranks)[1]),  # ignores the byte order
    lambda ranks: recover_right(ranks)[1],  # merges only
    lambda ranks: (recover_right(ranks)[0], merges_as_bytes(ranks)),  # parts as bytes, not ids
])
def test_recover_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_recover, wrong)


def build_with_identity_bytes(ranks, pattern):
    _byte_ids, merges = recover_merges(ranks)
    return RegexTokenizer(merges, pattern).encode_ordinary


def build_with_gpt2_pattern(ranks, pattern):
    return build_right(ranks, ch06.GPT2_PATTERN)


@pytest.mark.parametrize("wrong", [build_with_identity_bytes, build_with_gpt2_pattern,
                                   lambda ranks, pattern: lambda text: list(text.encode("utf-8"))])
def test_build_encoder_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_build_encoder, wrong)
