"""The checks of chapter 05's exercises pass right answers and catch plausible wrong ones."""

from __future__ import annotations

from collections import Counter

import pytest

from book.checks import ch05
from book.tokenizers.bpe_core import build_vocab, get_pair_counts, merge, train_naive
from book.tokenizers.byte_bpe import ByteTokenizer
from book.analysis.compression import bytes_per_token_curve

from check_helpers import passes


def train_right(text, vocab_size):
    return train_naive([text.encode("utf-8")], vocab_size - 256)


def train_with(pick, text, vocab_size):
    """A trainer that chooses the pair with ``pick(counts)``; the rest is right."""
    ids, merges = list(text.encode("utf-8")), []
    for new_id in range(256, vocab_size):
        counts = get_pair_counts(ids)
        if not counts:
            break
        best = pick(counts)
        merges.append((best, counts[best]))
        ids = merge(ids, best, new_id)
    return merges


def encode_right(text, merges):
    return ByteTokenizer(merges).encode(text)


def decode_right(ids, vocab, errors="replace"):
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors=errors)


def bytes_per_token_right(text, merges, vocab_sizes):
    return bytes_per_token_curve(ByteTokenizer(merges), text, [v - 256 for v in vocab_sizes])


def test_right_answers_pass(capsys):
    assert passes(capsys, ch05.check_get_pair_counts, get_pair_counts)
    assert passes(capsys, ch05.check_merge, merge)
    assert passes(capsys, ch05.check_train, train_right)
    assert passes(capsys, ch05.check_build_vocab, build_vocab)
    assert passes(capsys, ch05.check_encode, encode_right)
    assert passes(capsys, ch05.check_decode, decode_right)
    assert passes(capsys, ch05.check_stream_decode, ch05.reference_stream_decode)
    assert passes(capsys, ch05.check_bytes_per_token, bytes_per_token_right)


@pytest.mark.parametrize("wrong", [
    lambda ids: dict(sorted(get_pair_counts(ids).items())),  # sorted, not first occurrence
    lambda ids: dict(Counter(set(zip(ids, ids[1:])))),  # overlaps and repeats counted once
    lambda ids: {pair: n for pair, n in get_pair_counts(ids).items() if pair[0] != pair[1]},  # no (7, 7)
])
def test_get_pair_counts_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_get_pair_counts, wrong)


def merge_right_to_left(ids, pair, new_id):
    return merge(ids[::-1], pair[::-1], new_id)[::-1]


def merge_in_place(ids, pair, new_id):
    ids[:] = merge(ids, pair, new_id)
    return ids


@pytest.mark.parametrize("wrong", [merge_right_to_left, merge_in_place,
                                   lambda ids, pair, new_id: [new_id if i == pair[0] else i for i in ids]])
def test_merge_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_merge, wrong)


@pytest.mark.parametrize("wrong", [
    lambda text, vocab_size: train_with(lambda c: min(c, key=lambda p: (-c[p], p)), text, vocab_size),  # smallest pair
    lambda text, vocab_size: train_with(lambda c: max(reversed(list(c)), key=c.get), text, vocab_size),  # last seen
    lambda text, vocab_size: [pair for pair, _ in train_right(text, vocab_size)],  # no counts
    lambda text, vocab_size: train_right(text, vocab_size - 1),  # one merge short
])
def test_train_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_train, wrong)


@pytest.mark.parametrize("wrong", [
    lambda merges: {256 + r: bytes(pair) for r, (pair, _) in enumerate(merges)},  # no bytes, parts as bytes
    lambda merges: {**{i: bytes([i]) for i in range(256)},
                    **{256 + r: bytes(pair) for r, (pair, _) in enumerate(merges) if max(pair) < 256}},
    lambda merges: {i: chr(i).encode() for i in range(256)} | {k: v for k, v in build_vocab(merges).items() if k > 255},
])
def test_build_vocab_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_build_vocab, wrong)


def encode_in_reverse_order(text, merges):
    ids = list(text.encode("utf-8"))
    for rank in reversed(range(len(merges))):
        ids = merge(ids, merges[rank][0], 256 + rank)
    return ids


@pytest.mark.parametrize("wrong", [
    encode_in_reverse_order,
    lambda text, merges: list(text.encode("utf-8")),  # no merges
    lambda text, merges: [i for chunk in text.split(" ") for i in ByteTokenizer(merges).encode(chunk)],
])
def test_encode_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_encode, wrong)


@pytest.mark.parametrize("wrong", [
    lambda ids, vocab, errors="replace": b"".join(vocab[i] for i in ids).decode("utf-8", errors="ignore"),
    lambda ids, vocab, errors="replace": decode_right(ids, vocab),  # never strict
    lambda ids, vocab, errors="replace": "".join(vocab[i].decode("utf-8", errors=errors) for i in ids),
])
def test_decode_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_decode, wrong)


@pytest.mark.parametrize("wrong", [
    lambda ids, vocab: [vocab[i].decode("utf-8", errors="replace") for i in ids],  # token by token
    lambda ids, vocab: [decode_right(ids[: k + 1], vocab) for k in range(len(ids))],  # whole prefixes
    lambda ids, vocab: [decode_right(ids, vocab)] + [""] * (len(ids) - 1) if ids else [],  # all at once
])
def test_stream_decode_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_stream_decode, wrong)


@pytest.mark.parametrize("wrong", [
    lambda text, merges, sizes: [1 / r if r else 0.0 for r in bytes_per_token_right(text, merges, sizes)],
    lambda text, merges, sizes: [len(text) / len(encode_right(text, merges[: v - 256])) for v in sizes],  # chars
    lambda text, merges, sizes: [len(text.encode()) / len(encode_right(text, merges[:v])) for v in sizes],
])
def test_bytes_per_token_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_bytes_per_token, wrong)
