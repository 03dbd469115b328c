"""The checks of chapter 06's exercises pass right answers and catch plausible wrong ones."""

from __future__ import annotations

import pytest
import regex
from check_helpers import line, passes

from book.checks import ch06
from book.checks.ch06 import (
    DIGITS_RIGHT_REFERENCE,
    cached_reference,
    crossing_reference,
    read_gpt2_reference,
)
from book.encodings import get_encoding
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.formats.gpt2_files import merges_text, vocab_text


def test_right_answers_pass(capsys):
    assert passes(capsys, ch06.check_digits_right, DIGITS_RIGHT_REFERENCE)
    assert passes(capsys, ch06.check_crossing_tokens, crossing_reference)
    assert passes(
        capsys, ch06.check_encode_cached, lambda t, m, p, c: cached_reference(t, m, p, c)[0]
    )
    assert passes(capsys, ch06.check_read_gpt2_files, read_gpt2_reference)
    assert passes(capsys, ch06.check_encode_ranks, encode_ranks_right)


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch06.check_encode_ranks, not_yet)
    assert "not defined" in line(capsys, ch06.check_digits_right, None)


@pytest.mark.parametrize(
    "wrong",
    [
        CL100K_PATTERN,  # unchanged: groups from the left
        CL100K_PATTERN.replace(
            r"\p{N}{1,3}+", r"\p{N}{1,3}+(?=(?:\p{N}{3})*+(?!\p{N}))"
        ),  # possessive
        CL100K_PATTERN.replace(
            r"\p{N}{1,3}+", r"[0-9]{1,3}(?=(?:[0-9]{3})*(?![0-9]))"
        ),  # ASCII only
        r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\p{N}))|\S+|\s+",  # a new pattern, not cl100k's
    ],
    ids=["from-the-left", "possessive", "ascii-digits", "not-cl100k"],
)
def test_digits_right_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_digits_right, wrong)


@pytest.mark.parametrize(
    "wrong",
    [
        lambda v, p: [i for i in crossing_reference(v, p)] + [1],  # keeps a byte id
        lambda v, p: [i for i, t in sorted(v.items()) if i >= 256 and b" " in t[1:]],  # spaces
        lambda v, p: sorted(crossing_reference(v, p), reverse=True),  # order
        lambda v, p: [
            i
            for i, t in sorted(v.items())
            if i >= 256 and len(regex.findall(p, t.decode("utf-8", "replace"))) > 1
        ],  # decodes partial characters with replace
    ],
    ids=["byte-ids", "space-heuristic", "order", "replace"],
)
def test_crossing_tokens_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_crossing_tokens, wrong)


def cached_ignoring_cache(text, merges, pattern, cache):
    """Computes every chunk again: right ids for an honest cache, but never uses it."""
    ids = cached_reference(text, merges, pattern, {})[0]
    cached_reference(text, merges, pattern, cache)
    return ids


def cached_by_bytes(text, merges, pattern, cache):
    """Keys the cache by the chunk's bytes instead of its text."""
    keyed = {}
    ids = cached_reference(text, merges, pattern, keyed)[0]
    cache.update({chunk.encode(): value for chunk, value in keyed.items()})
    return ids


@pytest.mark.parametrize(
    "wrong",
    [
        cached_ignoring_cache,
        cached_by_bytes,
        lambda t, m, p, c: cached_reference(t, m, p, {})[0],  # leaves the cache empty
        lambda t, m, p, c: [
            i for chunk in regex.findall(p, t) for i in chunk.encode()
        ],  # no merges
    ],
    ids=["ignores-cache", "bytes-keys", "no-store", "no-merges"],
)
def test_encode_cached_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_encode_cached, wrong)


def read_with_table(table_order):
    """A reader whose byte table shifts the non-printable bytes in another order."""

    def read(vocab_json, merges_txt):
        import json

        printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
        others = table_order([b for b in range(256) if b not in printable])
        byte_of = {chr(b): b for b in printable} | {chr(256 + i): b for i, b in enumerate(others)}
        ranks = {bytes(byte_of[c] for c in w): i for w, i in json.loads(vocab_json).items()}
        merges = [
            tuple(bytes(byte_of[c] for c in part) for part in line.split(" "))
            for line in merges_txt.splitlines()[1:]
            if line.strip()
        ]
        return ranks, merges

    return read


@pytest.mark.parametrize(
    "wrong",
    [
        read_with_table(lambda others: others[::-1]),  # shifted bytes in the wrong order
        read_with_table(lambda others: others),  # right table, but no errors raised
        lambda v, m: (read_gpt2_reference(v, m)[0], read_gpt2_reference(v, m)[1][1:]),  # header
        lambda v, m: (
            {t.decode("latin-1"): i for t, i in read_gpt2_reference(v, m)[0].items()},
            [],
        ),
    ],
    ids=["table-order", "no-errors", "drops-a-merge", "text-keys"],
)
def test_read_gpt2_files_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_read_gpt2_files, wrong)


def encode_ranks_right(text, ranks, pattern):
    """A right answer, as a learner writes it: tiktoken's algorithm on each chunk's bytes."""
    ids = []
    for chunk in regex.findall(pattern, text):
        parts = [bytes([b]) for b in chunk.encode("utf-8")]
        while True:
            found = [
                (ranks[a + b], i)
                for i, (a, b) in enumerate(zip(parts, parts[1:]))
                if a + b in ranks
            ]
            if not found:
                break
            _rank, i = min(found)  # the lowest rank; the leftmost of equal ones
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        ids += [ranks[part] for part in parts]
    return ids


def encode_first_pair(text, ranks, pattern):
    """Merges the leftmost pair that joins into a token, not the lowest-ranked one."""
    ids = []
    for chunk in regex.findall(pattern, text):
        parts = [bytes([b]) for b in chunk.encode("utf-8")]
        while True:
            i = next((i for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in ranks), None)
            if i is None:
                break
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        ids += [ranks[p] for p in parts]
    return ids


@pytest.mark.parametrize(
    "wrong",
    [
        encode_first_pair,
        lambda t, r, p: encode_ranks_right(t, r, r"\S+|\s+"),  # ignores the pattern
        lambda t, r, p: [r[bytes([b])] for b in t.encode()],  # bytes only
        lambda t, r, p: list(t.encode()),  # byte values, not GPT-2's byte ranks
    ],
    ids=["leftmost-pair", "wrong-pattern", "no-merges", "byte-values"],
)
def test_encode_ranks_catches(capsys, wrong):
    assert not passes(capsys, ch06.check_encode_ranks, wrong)


def test_digits_right_groups_thousands():
    assert regex.findall(DIGITS_RIGHT_REFERENCE, "1234567 12,345") == [
        "1",
        "234",
        "567",
        " ",
        "12",
        ",",
        "345",
    ]


def test_read_reference_round_trips_the_books_writer():
    tok = RegexTokenizer.train("the cat sat on the mat, naïve 🦙", 280, pattern=GPT2_PATTERN)
    vocab, merges = tok.vocab_and_merges()
    ranks, read = read_gpt2_reference(vocab_text(vocab), merges_text(merges))
    assert read == merges and ranks == {token: i for i, token in vocab.items()}


def test_the_right_answer_is_tiktoken():
    enc = get_encoding("cl100k_base")
    for text in ch06.TEST_SET:
        assert encode_ranks_right(
            text, enc._mergeable_ranks, CL100K_PATTERN
        ) == enc.encode_ordinary(text)
