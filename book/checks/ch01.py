"""Checks of exercises/01_text_to_numbers.ipynb. Python's own UTF-8 codec is the reference."""

import random

from book import corpora
from book.checks.core import Case, check_cases, check_function, check_value, raised
from book.checks.spec import Call, Task, calls_of, function_task, random_text, value_task

# Both ends of every UTF-8 length range, plus characters from several scripts.
CODE_POINTS = [0x00, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0x4F60, 0xD7FF, 0xE000,
               0xFFFF, 0x10000, 0x1F30D, 0x10FFFF]
INVALID_CODE_POINTS = [0xD800, 0xDFFF, 0x110000, -1]
TEXTS = ["", "hi", "café", "naïve ☕", "Ωmega", "привет", "你好", "👨‍👩‍👧‍👦", "🇫🇷 ok", "a\u0301", "\x00\n\t"]


def check_utf8_length(utf8_length) -> None:
    """utf8_length(code_point) -> how many bytes UTF-8 uses for that code point."""
    check_function("utf8_length", utf8_length,
                   [((cp,), len(chr(cp).encode("utf-8"))) for cp in CODE_POINTS], points=2,
                   hint="compare the code point with 0x7F, 0x7FF and 0xFFFF.")


def check_encode_code_point(encode_code_point) -> None:
    """encode_code_point(code_point) -> its UTF-8 bytes as ints; ValueError for non-characters."""
    cases = [Case(f"encode_code_point({hex(cp)})", lambda cp=cp: encode_code_point(cp),
                  list(chr(cp).encode("utf-8"))) for cp in CODE_POINTS]
    cases += [Case(f"encode_code_point({hex(cp)}) should raise", lambda cp=cp: raised(encode_code_point, cp),
                   "ValueError") for cp in INVALID_CODE_POINTS]
    check_cases("encode_code_point", {"encode_code_point": encode_code_point}, cases, points=3,
                hint="lead byte 110xxxxx, 1110xxxx or 11110xxx, then 10xxxxxx continuation bytes "
                     "holding 6 bits each; surrogates U+D800–U+DFFF and values past U+10FFFF are not characters.")


def check_utf8_encode(utf8_encode) -> None:
    """utf8_encode(text) -> the UTF-8 bytes of a whole string, as ints."""
    check_function("utf8_encode", utf8_encode, [((text,), list(text.encode("utf-8"))) for text in TEXTS],
                   points=2, hint="encode each character with encode_code_point and concatenate the lists.")


def _latin1_pair():
    """A lossy encoder/decoder pair: characters outside Latin-1 become '?'."""
    return (lambda text: list(text.encode("latin-1", errors="replace")),
            lambda ids: bytes(ids).decode("latin-1"))


def _fragile_pair():
    """An encoder that raises on emoji (anything above U+FFFF)."""
    def encode(text):
        if any(ord(ch) > 0xFFFF for ch in text):
            raise ValueError("emoji not supported")
        return list(text.encode("utf-8"))
    return encode, lambda ids: bytes(ids).decode("utf-8")


def check_round_trip_failures(round_trip_failures) -> None:
    """round_trip_failures(encode, decode, samples) -> the samples that do not survive, in order."""
    utf8 = (lambda text: list(text.encode("utf-8")), lambda ids: bytes(ids).decode("utf-8"))
    cases = [
        Case("round_trip_failures(utf8_encode, utf8_decode, TEXTS)",
             lambda: round_trip_failures(*utf8, list(TEXTS)), []),
        Case("round_trip_failures(latin1_encode, latin1_decode, TEXTS)",
             lambda: round_trip_failures(*_latin1_pair(), list(TEXTS)),
             [t for t in TEXTS if any(ord(ch) > 0xFF for ch in t)]),
        Case("round_trip_failures(encoder that raises on emoji, decode, TEXTS)",
             lambda: round_trip_failures(*_fragile_pair(), list(TEXTS)),
             [t for t in TEXTS if any(ord(ch) > 0xFFFF for ch in t)]),
    ]
    check_cases("round_trip_failures", {"round_trip_failures": round_trip_failures}, cases, points=3,
                hint="keep a sample when decode(encode(s)) != s, and also when encode or decode raises.")


def check_heaviest_language(heaviest_language) -> None:
    """heaviest_language == the language whose parallel passage has the most UTF-8 bytes."""
    passages = corpora.parallel()
    expected = max(passages, key=lambda name: len(passages[name].encode("utf-8")))
    check_value("heaviest_language", heaviest_language, expected, points=1,
                hint="count bytes (len(text.encode('utf-8'))), not characters.")


# --- what the judge needs (see book.checks.core) --------------------------------------------------

REFERENCE: tuple[str, ...] = ()  # the reference is Python's own codec, which no one can take away

# The encoder/decoder pairs round_trip_failures is given, as source: the judge sends it into the
# learner's kernel and runs it here too, so both sides use the very same functions.
PAIRS_SETUP = """
def utf8_encode_(text):
    return list(text.encode("utf-8"))
def utf8_decode_(ids):
    return bytes(ids).decode("utf-8")
def latin1_encode(text):
    return list(text.encode("latin-1", errors="replace"))
def latin1_decode(ids):
    return bytes(ids).decode("latin-1")
def fragile_encode(text):
    if any(ord(ch) > 0xFFFF for ch in text):
        raise ValueError("emoji not supported")
    return list(text.encode("utf-8"))
"""
PAIRS = {
    "utf8_encode_, utf8_decode_": "UTF-8",
    "latin1_encode, latin1_decode": "Latin-1",
    "fragile_encode, utf8_decode_": "an encoder that raises on emoji",
}


def _encode_code_point_reference(code_point: int) -> list[int]:
    """UTF-8 bytes of a code point; ValueError for surrogates and values outside Unicode."""
    if not 0 <= code_point <= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF:
        raise ValueError(f"{code_point:#x} is not a Unicode scalar value")
    return list(chr(code_point).encode("utf-8"))


def _hex_label(args: tuple) -> str:
    """How a call reads: encode_code_point(0xe9)."""
    return f"encode_code_point({hex(args[0])})"


def _random_code_points(rng: random.Random, n: int) -> list[int]:
    """Code points from every UTF-8 length range (no surrogates)."""
    ranges = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]
    return [rng.randint(*rng.choice(ranges)) for _ in range(n)]


def _round_trip_calls(texts_list: list[list[str]], hidden: bool) -> list[Call]:
    """round_trip_failures on every pair, for each list of samples."""
    pairs: dict = {}
    exec(PAIRS_SETUP, pairs)
    calls = []
    for texts in texts_list:
        for names, what in PAIRS.items():
            encode, decode = (pairs[name.strip()] for name in names.split(","))
            expected = [t for t in texts if not _survives(encode, decode, t)]
            calls.append(
                Call(
                    f"round_trip_failures({what} encode and decode, {texts!r})",
                    f"round_trip_failures({names}, a0)",
                    (texts,),
                    expected,
                    hidden,
                )
            )
    return calls


def _survives(encode, decode, text: str) -> bool:
    """True when decode(encode(text)) == text without an error."""
    try:
        return decode(encode(text)) == text
    except Exception:
        return False


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 01's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    points = _random_code_points(rng, 10)
    invalid = [rng.randint(0xD800, 0xDFFF), rng.randint(0x110000, 0x7FFFFFFF), -rng.randint(1, 999)]
    texts = [random_text(rng, rng.randint(0, 6)) for _ in range(6)]
    return [
        function_task(
            "utf8_length",
            2,
            [(cp,) for cp in CODE_POINTS],
            lambda cp: len(chr(cp).encode()),
            hidden=[(cp,) for cp in points],
            hint="compare the code point with 0x7F, 0x7FF and 0xFFFF.",
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
            hint="lead byte 110xxxxx, 1110xxxx or 11110xxx, then 10xxxxxx continuation bytes "
            "holding 6 bits each; surrogates U+D800–U+DFFF and values past U+10FFFF are not "
            "characters.",
        ),
        function_task(
            "utf8_encode",
            2,
            [(text,) for text in TEXTS],
            lambda text: list(text.encode()),
            hidden=[(text,) for text in texts],
            hint="encode each character with encode_code_point and concatenate the lists.",
        ),
        Task(
            "round_trip_failures",
            3,
            ("round_trip_failures",),
            _round_trip_calls([list(TEXTS)], False) + _round_trip_calls([texts, texts[::-1]], True),
            hint="keep a sample when decode(encode(s)) != s, and also when encode or decode "
            "raises.",
            setup=PAIRS_SETUP,
        ),
        value_task(
            "heaviest_language",
            1,
            max(corpora.parallel(), key=lambda name: len(corpora.parallel()[name].encode())),
            hint="count bytes (len(text.encode('utf-8'))), not characters.",
        ),
    ]
