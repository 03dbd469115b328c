"""The checks of chapter 01's exercises pass right answers and catch plausible wrong ones.

The wrong answers are the mistakes a reader makes with UTF-8: the single-byte range taken to
end at 255 instead of 127, surrogates treated as characters, a round-trip checker that crashes
on an encoder that raises.
"""

import pytest
from check_helpers import passes

from book import corpora
from book.checks import ch01


def utf8_length_right(code_point):
    return len(chr(code_point).encode("utf-8"))


def encode_code_point_right(code_point):
    if not 0 <= code_point <= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF:
        raise ValueError(f"{code_point:#x} is not a Unicode scalar value")
    return list(chr(code_point).encode("utf-8"))


def round_trip_failures_right(encode, decode, samples):
    failures = []
    for sample in samples:
        try:
            ok = decode(encode(sample)) == sample
        except Exception:
            ok = False
        if not ok:
            failures.append(sample)
    return failures


def test_right_answers_pass(capsys):
    assert passes(capsys, ch01.check_utf8_length, utf8_length_right)
    assert passes(capsys, ch01.check_encode_code_point, encode_code_point_right)
    assert passes(capsys, ch01.check_utf8_encode, lambda t: list(t.encode("utf-8")))
    assert passes(capsys, ch01.check_round_trip_failures, round_trip_failures_right)
    passages = corpora.parallel()
    heaviest = max(passages, key=lambda name: len(passages[name].encode("utf-8")))
    assert passes(capsys, ch01.check_heaviest_language, heaviest)


def length_with_boundary(one_byte_up_to):
    """utf8_length whose single-byte range ends at ``one_byte_up_to``."""
    return lambda cp: 1 if cp <= one_byte_up_to else utf8_length_right(max(cp, 0x80))


@pytest.mark.parametrize(
    "wrong",
    [
        length_with_boundary(0xFF),  # "a byte holds 256 values": wrong, U+0080-U+00FF take two
        lambda cp: 1 if cp < 0x100 else 2 if cp < 0x10000 else 4,  # bytes of UTF-16, roughly
        lambda cp: 3 if cp >= 0x800 else utf8_length_right(cp),  # no four-byte range
        lambda cp: 4,  # UTF-32
    ],
)
def test_utf8_length_catches(capsys, wrong):
    assert not passes(capsys, ch01.check_utf8_length, wrong)


def encode_allowing_surrogates(code_point):
    if not 0 <= code_point <= 0x10FFFF:
        raise ValueError("out of range")
    return list(chr(code_point).encode("utf-8", errors="surrogatepass"))


@pytest.mark.parametrize(
    "wrong",
    [
        encode_allowing_surrogates,  # U+D800-U+DFFF are not characters: must raise
        lambda cp: list(chr(cp).encode("utf-16-be")),  # another encoding
        lambda cp: [cp] if cp < 0x100 else list(chr(cp).encode("utf-8")),  # 255 boundary again
    ],
)
def test_encode_code_point_catches(capsys, wrong):
    assert not passes(capsys, ch01.check_encode_code_point, wrong)


def failures_that_crash(encode, decode, samples):
    """Forgets that encode can raise: the checker itself crashes."""
    return [sample for sample in samples if decode(encode(sample)) != sample]


@pytest.mark.parametrize(
    "wrong",
    [
        failures_that_crash,
        lambda encode, decode, samples: [],  # reports nothing
        lambda encode, decode, samples: sorted(round_trip_failures_right(encode, decode, samples)),
    ],
)
def test_round_trip_failures_catches(capsys, wrong):
    assert not passes(capsys, ch01.check_round_trip_failures, wrong)


def test_heaviest_language_counts_bytes_not_characters(capsys):
    passages = corpora.parallel()
    most_characters = max(passages, key=lambda name: len(passages[name]))
    assert not passes(capsys, ch01.check_heaviest_language, most_characters)
