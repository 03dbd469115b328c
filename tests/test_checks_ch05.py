"""The checks of chapter 05's exercises pass right answers and catch plausible wrong ones."""

import codecs

import pytest
from check_helpers import line, passes
from hypothesis import given
from hypothesis import strategies as st

from book.checks import ch05
from book.checks.ch05 import (
    bytes_per_token_reference,
    stream_decode_reference,
    to_bytes_reference,
    train_reference,
)
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, merge


def merge_and_update_right(ids, pair, new_id, counts):
    merged = merge(ids, pair, new_id)
    counts.clear()
    counts.update(get_pair_counts(merged))
    return merged


def test_right_answers_pass(capsys):
    assert passes(capsys, ch05.check_to_bytes, to_bytes_reference)
    assert passes(capsys, ch05.check_train, train_reference)
    assert passes(capsys, ch05.check_merge_and_update, merge_and_update_right)
    assert passes(capsys, ch05.check_stream_decode, stream_decode_reference)
    assert passes(capsys, ch05.check_bytes_per_token, bytes_per_token_reference)


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch05.check_merge_and_update, not_yet)
    assert "not defined" in line(capsys, ch05.check_stream_decode, None)


def expand_with(offset, swap=False):
    def to_bytes(ids, merges):
        def expand(i):
            if i < 256:
                return bytes([i])
            (a, b), _ = merges[i - offset]
            return expand(b) + expand(a) if swap else expand(a) + expand(b)

        return b"".join(expand(i) for i in ids)

    return to_bytes


@pytest.mark.parametrize(
    "wrong",
    [
        expand_with(255),  # off by one in ranks
        expand_with(256, swap=True),  # parts swapped
        expand_with(256),  # right, but an unknown id raises IndexError, not ValueError
        lambda ids, merges: to_bytes_reference(ids, merges).decode("utf-8", "replace"),  # str
    ],
    ids=["off-by-one", "swapped", "no-valueerror", "str"],
)
def test_to_bytes_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_to_bytes, wrong)


def train_with(stop, pick=lambda counts: max(counts, key=counts.get)):
    def train(text, vocab_size, min_count=1):
        ids, merges = list(text.encode("utf-8")), []
        for new_id in range(256, vocab_size):
            counts = get_pair_counts(ids)
            if not counts:
                break
            best = pick(counts)
            if stop(counts[best], min_count):
                break
            merges.append((best, counts[best]))
            ids = merge(ids, best, new_id)
        return merges

    return train


@pytest.mark.parametrize(
    "wrong",
    [
        train_with(lambda n, m: False),  # ignores min_count
        train_with(lambda n, m: n <= m),  # stops at a count equal to min_count
        train_with(lambda n, m: n < m, pick=lambda c: max(reversed(c), key=c.get)),  # last seen
        train_with(lambda n, m: n < m, pick=lambda c: max(sorted(c), key=c.get)),  # smallest
    ],
    ids=["no-min-count", "stops-at-equal", "last-seen", "smallest-pair"],
)
def test_train_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_train, wrong)


def update_with_stale_left(ids, pair, new_id, counts):
    """Updates the left pair from the original ids: wrong after a merge just to its left."""

    def add(key, amount):
        counts[key] = counts.get(key, 0) + amount
        if counts[key] == 0:
            del counts[key]

    merged, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            add(pair, -1)
            if merged:
                add((ids[i - 1], ids[i]), -1)
                add((ids[i - 1], new_id), 1)
            if i + 2 < len(ids):
                add((ids[i + 1], ids[i + 2]), -1)
                add((new_id, ids[i + 2]), 1)
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def update_keeping_zeros(ids, pair, new_id, counts):
    merged = merge_and_update_right(ids, pair, new_id, counts)
    counts.setdefault((999, 999), 0)
    return merged


def merge_in_place(ids, pair, new_id, counts):
    merged = merge_and_update_right(list(ids), pair, new_id, counts)
    ids[:] = merged
    return ids


@pytest.mark.parametrize(
    "wrong",
    [
        update_with_stale_left,
        update_keeping_zeros,
        merge_in_place,
        lambda ids, pair, new_id, counts: merge(ids, pair, new_id),  # counts not updated
    ],
    ids=["stale-left", "zeros-kept", "mutates-ids", "no-update"],
)
def test_merge_and_update_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_merge_and_update, wrong)


def test_merge_and_update_names_the_overlap(capsys):
    assert "side by side" in line(capsys, ch05.check_merge_and_update, update_with_stale_left)


def stream_holding_invalid_bytes(ids, vocab):
    """The old model solution: waits for up to 3 bytes, so invalid bytes block the stream."""
    pieces, pending = [], b""
    for i in ids:
        pending += vocab[i]
        text = ""
        for keep in range(min(3, len(pending)) + 1):
            try:
                text = pending[: len(pending) - keep].decode("utf-8")
            except UnicodeDecodeError:
                continue
            pending = pending[len(pending) - keep :]
            break
        pieces.append(text)
    return pieces


def stream_with_codecs(ids, vocab):
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return [decoder.decode(vocab[i]) for i in ids]


@pytest.mark.parametrize(
    "wrong",
    [
        stream_holding_invalid_bytes,
        stream_with_codecs,
        lambda ids, vocab: [vocab[i].decode("utf-8", "replace") for i in ids],  # per token
        lambda ids, vocab: [
            b"".join(vocab[j] for j in ids[: k + 1]).decode("utf-8", "replace")
            for k in range(len(ids))
        ],  # whole prefix each time
    ],
    ids=["holds-invalid", "codecs-lags", "per-token", "prefix"],
)
def test_stream_decode_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_stream_decode, wrong)


@pytest.mark.parametrize(
    "wrong",
    [
        lambda t, m, s: [1 / r for r in bytes_per_token_reference(t, m, s)],  # tokens per byte
        lambda t, m, s: [
            len(t) / (len(t.encode()) / r) for r in bytes_per_token_reference(t, m, s)
        ],
        lambda t, m, s: bytes_per_token_reference(t, m, sorted(s)),  # sorts the sizes
    ],
    ids=["tokens-per-byte", "characters-not-bytes", "sorted"],
)
def test_bytes_per_token_catches(capsys, wrong):
    assert not passes(capsys, ch05.check_bytes_per_token, wrong)


@given(st.lists(st.binary(max_size=5), max_size=12))
def test_stream_decode_reference_spells_the_replace_decoding(tokens):
    """Joined, the stream is the replace-decoding of all bytes minus a truncated tail; each
    piece only adds text (nothing shown is ever taken back)."""
    vocab = dict(enumerate(tokens))
    pieces = stream_decode_reference(list(vocab), vocab)
    data = b"".join(tokens)
    full = data.decode("utf-8", "replace")
    shown = "".join(pieces)
    assert full.startswith(shown)
    tail = full[len(shown) :]
    assert tail in ("", "\ufffd")
    assert bool(tail) == any(truncated(data[-k:]) for k in (1, 2, 3) if len(data) >= k)


def truncated(data: bytes) -> bool:
    """Whether data is the start of one character, missing its last bytes."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.reason == "unexpected end of data" and error.start == 0
    return False


@given(st.text())
def test_stream_decode_reference_on_valid_text_is_the_text(text):
    vocab = {i: bytes([i]) for i in range(256)}
    assert "".join(stream_decode_reference(list(text.encode()), vocab)) == text


def test_to_bytes_reference_is_the_vocabulary():
    merges = [((97, 97), 3), ((256, 256), 1), ((98, 257), 1)]
    assert to_bytes_reference([258], merges) == build_vocab(merges)[258] == b"baaaa"
