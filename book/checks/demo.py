"""Checks of the demo exercise (tests/fixtures/solutions/99_demo.ipynb), as one spec per task.

The smallest complete example of a chapter's check module: one ``TaskSpec`` per graded task,
then ``SPECS`` and ``check, judge_tasks = checks_of(SPECS)``; the tests of the exercise system
and the cheat catalogue grade it. Python's own UTF-8 codec is the reference. Every group of
cases catches every known mistake (``tests/test_check_specs.py`` proves it on seeds 1-20), and
each of char_codes' groups has hidden cases, so an answer written for the visible ones earns
nothing there.
"""

from __future__ import annotations

import random

from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    examples_and_drawn,
    random_text,
)

# --- Task 1: char_codes --------------------------------------------------------------------------


def char_codes_reference(text: str) -> list[int]:
    """The code point of every character of text.

    >>> char_codes_reference("é€")
    [233, 8364]
    """
    return [ord(ch) for ch in text]


def _utf16_units(text: str) -> list[int]:
    """What JavaScript's charCodeAt gives: two surrogates for a character past U+FFFF."""
    data = text.encode("utf-16-le")
    return [int.from_bytes(data[k : k + 2], "little") for k in range(0, len(data), 2)]


CHAR_CODES = TaskSpec(
    "char_codes",
    char_codes_reference,
    (
        Group(
            "short texts",
            1,
            lambda: [(("abc",), ""), (("é€",), ""), (("",), ""), (("🦙 llama",), "emoji, repeats")],
            hidden=lambda rng: drawn_until_caught(rng, lambda r: (random_text(r, 2),), CHAR_CODES),
        ),
        Group(
            "long texts",
            1,
            hidden=lambda rng: drawn_until_caught(rng, lambda r: (random_text(r, 12),), CHAR_CODES),
        ),
    ),
    (
        Mistake(
            "a code point numbers a character, not its bytes: 'é' is one code point and two "
            "bytes of UTF-8",
            lambda text: list(text.encode("utf-8")),
        ),
        Mistake(
            "a character past U+FFFF (most emoji) is one code point, not two UTF-16 surrogates",
            _utf16_units,
        ),
        Mistake(
            "one code point for every character of the text, in order and with repeats: not "
            "the set of its characters",
            lambda text: sorted({ord(ch) for ch in text}),
        ),
    ),
    "Unicode gives every character one number, its code point; give that number for each "
    "character of the text, in order (a built-in function gives it for one character).",
)

# --- Task 2: utf8_size ---------------------------------------------------------------------------


def utf8_size_reference(text: str) -> int:
    """How many bytes UTF-8 uses for text.

    >>> utf8_size_reference("€")
    3
    """
    return len(text.encode("utf-8"))


def _size_up_to(longest: int):
    """A size that gives no character more than longest bytes (the slips of a short table)."""
    ends = (0x7F, 0x7FF, 0xFFFF)[: longest - 1]
    return lambda text: sum(1 + sum(ord(ch) > end for end in ends) for ch in text)


UTF8_SIZE = examples_and_drawn(
    "utf8_size",
    utf8_size_reference,
    (lambda: [((text,), "") for text in ("abc", "é", "€", "🦙", "", "naïve café 日本 👋🏽")], 1),
    ("random texts", 1, lambda rng: (random_text(rng, rng.randint(1, 8)),)),
    (
        Mistake(
            "count bytes, not characters: a character past U+007F takes two to four bytes",
            len,
        ),
        Mistake(
            "characters from U+0800 on ('€', most Asian scripts) take three bytes, and those "
            "past U+FFFF four",
            _size_up_to(2),
        ),
        Mistake("a character past U+FFFF (most emoji) takes four bytes", _size_up_to(3)),
    ),
    "UTF-8 spends one to four bytes on a character, more for a larger code point: add up the "
    "bytes of every character (or count the bytes of the encoded text).",
)

# --- Task 3: decode ------------------------------------------------------------------------------

# Bytes that never occur in UTF-8: wherever one is put, the ids are not UTF-8.
NEVER_UTF8 = (0xC0, 0xC1, 0xF5, 0xFE, 0xFF)


def decode_reference(ids: list[int]) -> str:
    """The text whose UTF-8 bytes are ids; ValueError when they are not UTF-8.

    >>> decode_reference([104, 195, 169])
    'hé'
    """
    return bytes(ids).decode("utf-8")


def _bytes_of(*texts: str) -> Cases:
    return [((list(text.encode("utf-8")),), f"the bytes of {text!r}") for text in texts]


def _damaged(rng: random.Random) -> Cases:
    """The bytes of random texts, and the same bytes with a byte UTF-8 never uses put in: each
    of those catches every known mistake."""
    cases: Cases = []
    for _ in range(3):
        ids = list(random_text(rng, rng.randint(1, 6)).encode("utf-8"))
        at = rng.randint(0, len(ids))
        cases += [((ids,), "random"), ((ids[:at] + [rng.choice(NEVER_UTF8)] + ids[at:],), "random")]
    return cases


DECODE = TaskSpec(
    "decode",
    decode_reference,
    (
        Group(
            "the examples",
            1,
            lambda: [
                *_bytes_of("hello", "héllo wörld", "日本", "👋🏽", ""),
                (([104, 105, 0xFF],), "0xFF is never UTF-8"),
            ],
        ),
        Group(
            "cut characters",
            1,
            lambda: [
                (([0xC3, 0xA9, 0xC3],), "'é', then the first of its two bytes"),
                (([0xE6, 0x97, 0xA5, 0xE6, 0x97],), "'日', then two of its three bytes"),
                (([0xF0, 0x9F, 0xA6, 0x99, 0xF0, 0x9F, 0xA6],), "'🦙', then three of its four"),
                (([0xC3, 0x41],), "the first of two bytes, then 'A'"),
            ],
        ),
        Group("random texts", 1, hidden=_damaged),
    ),
    (
        Mistake(
            "an id is one byte, not one character: a character past U+007F is two to four "
            "bytes, decoded together",
            lambda ids: "".join(map(chr, ids)),
        ),
        Mistake(
            "bytes that are not UTF-8 are an error (ValueError), not a replacement character",
            lambda ids: bytes(ids).decode("utf-8", errors="replace"),
        ),
        Mistake(
            "decode the bytes together: one byte of a character that takes several is not a "
            "character, and dropping it loses the character",
            lambda ids: "".join(bytes([i]).decode("utf-8", errors="ignore") for i in ids),
        ),
    ),
    "decode all the ids as one sequence of UTF-8 bytes: a character's bytes only make sense "
    "together, and bytes that are not UTF-8, or a character cut short, raise ValueError.",
)

SPECS = (CHAR_CODES, UTF8_SIZE, DECODE)
check, judge_tasks = checks_of(SPECS)

REFERENCE: tuple[str, ...] = ()  # the reference is Python's own codec, which no one can take away
