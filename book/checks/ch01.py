"""Checks of exercises/01_text_to_numbers.ipynb. Python's own UTF-8 codec is the reference.

Two tasks end in a question the learner answers from their own numbers. Those answers are
checked without printing the expected value (``choice``, ``verdict``): a failing line says
"wrong", not what is right, so the number cannot be copied from the check.
"""

from __future__ import annotations

import random
from typing import Any

import regex

from book import corpora
from book.checks.answers import choice, close, readable, verdict
from book.checks.core import Case, check_cases, check_function, raised
from book.checks.spec import Call, Task, calls_of, function_task, random_text

# Both ends of every UTF-8 length range, plus characters from several scripts.
CODE_POINTS = [
    0x00,
    0x41,
    0x7F,
    0x80,
    0xE9,
    0x7FF,
    0x800,
    0x20AC,
    0x4F60,
    0xD7FF,
    0xE000,
    0xFFFF,
    0x10000,
    0x1F30D,
    0x10FFFF,
]
INVALID_CODE_POINTS = [0xD800, 0xDFFF, 0x110000, -1]


# --- Task 1 and 2: lengths and encoding by hand (unchanged) -----------------------------------

LENGTH_HINT = "compare the code point with 0x7F, 0x7FF and 0xFFFF."
ENCODE_HINT = (
    "lead byte 110xxxxx, 1110xxxx or 11110xxx, then 10xxxxxx continuation bytes holding 6 bits "
    "each; surrogates U+D800–U+DFFF and values past U+10FFFF are not characters."
)


def check_utf8_length(utf8_length) -> None:
    """utf8_length(code_point) -> how many bytes UTF-8 uses for that code point."""
    check_function(
        "utf8_length",
        utf8_length,
        [((cp,), len(chr(cp).encode("utf-8"))) for cp in CODE_POINTS],
        points=2,
        hint=LENGTH_HINT,
    )


def _encode_code_point_reference(code_point: int) -> list[int]:
    """UTF-8 bytes of a code point; ValueError for surrogates and values outside Unicode."""
    if not 0 <= code_point <= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF:
        raise ValueError(f"{code_point:#x} is not a Unicode scalar value")
    return list(chr(code_point).encode("utf-8"))


def check_encode_code_point(encode_code_point) -> None:
    """encode_code_point(code_point) -> its UTF-8 bytes as ints; ValueError for non-characters."""
    cases = [
        Case(
            f"encode_code_point({hex(cp)})",
            lambda cp=cp: encode_code_point(cp),
            _encode_code_point_reference(cp),
        )
        for cp in CODE_POINTS
    ]
    cases += [
        Case(
            f"encode_code_point({hex(cp)}) should raise",
            lambda cp=cp: raised(encode_code_point, cp),
            "ValueError",
        )
        for cp in INVALID_CODE_POINTS
    ]
    check_cases(
        "encode_code_point",
        {"encode_code_point": encode_code_point},
        cases,
        points=3,
        hint=ENCODE_HINT,
    )


# --- Task 3: truncate to a byte budget --------------------------------------------------------

TRUNCATE_CASES = [
    ("", 0),
    ("hi", 0),
    ("hi", 1),
    ("hi", 2),
    ("hi", 9),
    ("café", 4),
    ("café", 5),
    ("你好", 2),
    ("你好", 3),
    ("你好", 5),
    ("你好", 6),
    ("a👍🏽", 4),
    ("a👍🏽", 5),
    ("a👍🏽", 8),
    ("a👍🏽", 9),
    ("cafe\u0301!", 5),
    ("👨‍👩‍👧‍👦", 11),
    ("Ωmega", 1),
    ("x", -1),
]
TRUNCATE_HINT = (
    "count bytes, not characters: add utf8_length(ord(ch)) character by character and stop at "
    "the first character that would take the total past max_bytes (a prefix of exactly "
    "max_bytes bytes fits; never keep part of a character); a negative max_bytes raises "
    "ValueError."
)


def truncate_reference(text: str, max_bytes: int) -> str:
    """The longest prefix of text whose UTF-8 encoding fits in max_bytes bytes.

    >>> truncate_reference("你好", 5)
    '你'
    """
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be 0 or more, not {max_bytes}")
    return text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")


def _result_or_error(function, *args) -> Any:
    """function(*args), or the name of the exception it raised (NotImplementedError propagates)."""
    try:
        return function(*args)
    except NotImplementedError:
        raise
    except ValueError:
        return "ValueError"
    except Exception as error:  # the learner may raise anything; we name it
        return type(error).__name__


def _label(name: str, args: tuple) -> str:
    """How a call reads in a line: _label("f", ("é", 1)) -> "f('é', 1)"."""
    return f"{name}({', '.join(readable(arg) for arg in args)})"


def check_truncate_utf8(truncate_utf8) -> None:
    """truncate_utf8(text, max_bytes) -> the longest prefix of whole characters that fits."""
    cases = [
        Case(
            _label("truncate_utf8", args),
            lambda args=args: _result_or_error(truncate_utf8, *args),
            _result_or_error(truncate_reference, *args),
        )
        for args in TRUNCATE_CASES
    ]
    check_cases(
        "truncate_utf8", {"truncate_utf8": truncate_utf8}, cases, points=2, hint=TRUNCATE_HINT
    )


# --- Task 4: decode by hand, as far as the bytes are valid ------------------------------------

DECODE_CASES = [
    [],
    [104, 105],
    [226, 130, 172],
    [0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF],
    [0xEF, 0xBF, 0xBF, 0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF],
    [0xF0, 0x9F, 0x8C, 0x8D],
    [228, 189],
    [104, 228, 189],
    [104, 105, 0xF0, 0x9F, 0x8C],
    [0x80],
    [104, 0x80, 105],
    [0xC0, 0x80],
    [0xC1, 0xBF],
    [0xE0, 0x80, 0x80],
    [0xE0, 0x9F, 0xBF],
    [0xF0, 0x8F, 0xBF, 0xBF],
    [0xED, 0xA0, 0x80],
    [104, 0xED, 0xBF, 0xBF],
    [0xF4, 0x90, 0x80, 0x80],
    [0xF5, 0x80, 0x80, 0x80],
    [0xFF],
    [0xE2, 0x82, 0x41],
    [0xC3, 0xA9, 0xC3],
]
DECODE_HINT = (
    "the lead byte gives the length (0xxxxxxx 1, 110xxxxx 2, 1110xxxx 3, 11110xxx 4; 10xxxxxx "
    "cannot start a character); each further byte must be 10xxxxxx; reject overlong forms "
    "(C0, C1, E0 80–9F, F0 80–8F), surrogates (ED A0–BF) and values past U+10FFFF (F4 90+, "
    "F5–FF); return the text before the first bad or incomplete character and the index of "
    "that character's first byte (len(ids) when all are valid)."
)


def decode_prefix_reference(ids: list[int]) -> tuple[str, int]:
    """(the text of the longest valid UTF-8 prefix of ids, its length in bytes).

    >>> decode_prefix_reference([104, 228, 189])
    ('h', 1)
    """
    data = bytes(ids)
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError as error:  # start: the first byte of the first bad character
        return data[: error.start].decode("utf-8"), error.start


def check_decode_prefix(decode_prefix) -> None:
    """decode_prefix(ids) -> (text of the valid prefix, index where decoding stopped)."""
    check_function(
        "decode_prefix",
        decode_prefix,
        [((list(ids),), decode_prefix_reference(ids)) for ids in DECODE_CASES],
        points=3,
        hint=DECODE_HINT,
    )


# --- Task 5: bytes per grapheme, and a question -----------------------------------------------

GRAPHEME_TEXTS = [
    "hi",
    "é",
    "e\u0301",
    "👨‍👩‍👧‍👦",
    "🇫🇷 ok",
    "नमस्ते",
    "naïve café",
    "日本語",
    "\n\t ",
]
GRAPHEME_ANSWER = "b"  # combining vowel signs: one visible character, several code points
GRAPHEME_HINT = (
    "bytes: len(text.encode('utf-8')); graphemes: len(regex.findall(r'\\X', text)), not len(text) "
    "(that counts code points); an empty text raises ValueError. heaviest_per_grapheme is the "
    "language of corpora.parallel() with the largest bytes_per_grapheme; grapheme_answer is one "
    "letter."
)


def bytes_per_grapheme_reference(text: str) -> float:
    """UTF-8 bytes per extended grapheme cluster (what a reader sees as one character).

    >>> bytes_per_grapheme_reference("e\u0301")
    3.0
    """
    if not text:
        raise ValueError("an empty text has no graphemes")
    return len(text.encode("utf-8")) / len(regex.findall(r"\X", text))


def heaviest_per_grapheme_reference() -> str:
    """The language whose passage costs the most UTF-8 bytes per grapheme."""
    passages = corpora.parallel()
    return max(passages, key=lambda language: bytes_per_grapheme_reference(passages[language]))


def check_graphemes(bytes_per_grapheme, heaviest_per_grapheme, grapheme_answer) -> None:
    """bytes_per_grapheme(text); the heaviest language per grapheme; the letter answering why."""
    cases = [
        Case(
            _label("bytes_per_grapheme", (text,)),
            lambda text=text: bytes_per_grapheme(text),
            bytes_per_grapheme_reference(text),
        )
        for text in GRAPHEME_TEXTS
    ]
    cases.append(
        Case(
            "bytes_per_grapheme('') should raise",
            lambda: raised(bytes_per_grapheme, ""),
            "ValueError",
        )
    )
    cases.append(
        Case(
            "heaviest_per_grapheme",
            lambda: verdict(heaviest_per_grapheme, heaviest_per_grapheme_reference()),
            "right",
        )
    )
    cases.append(Case("grapheme_answer", lambda: choice(grapheme_answer, GRAPHEME_ANSWER), "right"))
    check_cases(
        "graphemes",
        {
            "bytes_per_grapheme": bytes_per_grapheme,
            "heaviest_per_grapheme": heaviest_per_grapheme,
            "grapheme_answer": grapheme_answer,
        },
        cases,
        points=3,
        hint=GRAPHEME_HINT,
        compare=close,
    )


# --- what the judge needs (see book.checks.core) ----------------------------------------------

REFERENCE: tuple[str, ...] = ()  # the reference is Python's own codec, which no one can take away


def _hex_label(args: tuple) -> str:
    """How a call reads: encode_code_point(0xe9)."""
    return f"encode_code_point({hex(args[0])})"


def truncate_label(args: tuple) -> str:
    """truncate_utf8('cafe\\u0301', 4): combining marks escaped."""
    return _label("truncate_utf8", args)


def grapheme_label(args: tuple) -> str:
    """bytes_per_grapheme('e\\u0301'): combining marks escaped."""
    return _label("bytes_per_grapheme", args)


def _random_code_points(rng: random.Random, n: int) -> list[int]:
    """Code points from every UTF-8 length range (no surrogates)."""
    ranges = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]
    return [rng.randint(*rng.choice(ranges)) for _ in range(n)]


# Bytes that break UTF-8 where they stand: continuation, overlong leads, beyond U+10FFFF, and
# leads whose second byte is restricted (E0, ED, F0, F4).
BAD_BYTES = [0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF, 0xE0, 0xED, 0xF0, 0xF4, 0xC3, 0xE4]


def _damaged(rng: random.Random, text: str) -> list[int]:
    """The bytes of text, cut short, or with a byte that breaks UTF-8 put somewhere."""
    data = list(text.encode("utf-8"))
    if rng.random() < 0.5:
        return data[: rng.randint(0, len(data))]
    position = rng.randint(0, len(data))
    return data[:position] + [rng.choice(BAD_BYTES)] + data[position:]


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 01's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    points = _random_code_points(rng, 10)
    invalid = [rng.randint(0xD800, 0xDFFF), rng.randint(0x110000, 0x7FFFFFFF), -rng.randint(1, 999)]
    texts = [random_text(rng, rng.randint(1, 6)) for _ in range(6)]
    budgets = [(text, rng.randint(0, len(text.encode()) + 2)) for text in texts]
    budgets.append((texts[0], -rng.randint(1, 9)))
    damaged = [_damaged(rng, text) for text in texts] + [list(text.encode()) for text in texts[:2]]
    per_grapheme = bytes_per_grapheme_reference
    fixed, hidden = [(text,) for text in [*GRAPHEME_TEXTS, ""]], [(text,) for text in texts]
    graphemes = [
        Call(
            "heaviest_per_grapheme", "heaviest_per_grapheme", (), heaviest_per_grapheme_reference()
        ),
        Call("grapheme_answer", "grapheme_answer", (), GRAPHEME_ANSWER),
    ]
    return [
        function_task(
            "utf8_length",
            2,
            [(cp,) for cp in CODE_POINTS],
            lambda cp: len(chr(cp).encode()),
            hidden=[(cp,) for cp in points],
            hint=LENGTH_HINT,
        ),
        Task(
            "encode_code_point",
            3,
            ("encode_code_point",),
            calls_of(
                "encode_code_point",
                [(cp,) for cp in CODE_POINTS + INVALID_CODE_POINTS],
                _encode_code_point_reference,
                label=_hex_label,
            )
            + calls_of(
                "encode_code_point",
                [(cp,) for cp in points + invalid],
                _encode_code_point_reference,
                hidden=True,
                label=_hex_label,
            ),
            hint=ENCODE_HINT,
        ),
        Task(
            "truncate_utf8",
            2,
            ("truncate_utf8",),
            calls_of("truncate_utf8", TRUNCATE_CASES, truncate_reference, label=truncate_label)
            + calls_of(
                "truncate_utf8", budgets, truncate_reference, hidden=True, label=truncate_label
            ),
            hint=TRUNCATE_HINT,
        ),
        function_task(
            "decode_prefix",
            3,
            [(ids,) for ids in DECODE_CASES],
            decode_prefix_reference,
            hidden=[(ids,) for ids in damaged],
            hint=DECODE_HINT,
        ),
        Task(
            "graphemes",
            3,
            ("bytes_per_grapheme", "heaviest_per_grapheme", "grapheme_answer"),
            calls_of("bytes_per_grapheme", fixed, per_grapheme, label=grapheme_label)
            + calls_of(
                "bytes_per_grapheme", hidden, per_grapheme, hidden=True, label=grapheme_label
            )
            + graphemes,
            hint=GRAPHEME_HINT,
            compare=close,
        ),
    ]
