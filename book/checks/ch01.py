"""Checks of exercises/01_text_to_numbers.ipynb, as one spec per task. Python's own UTF-8 codec
is the reference (no tokenizer step is involved).

Tasks 1-4 do by hand what ``str.encode`` and ``bytes.decode`` do, and say so: the probe refuses
an answer whose code (or a function of the notebook it calls) names ``encode`` or ``decode``,
so the chapter's one-line ``encode`` earns nothing. Task 5 asks for a measure, not a letter.
Each task's known mistakes are code; every group of cases catches each of them
(``tests/test_check_specs.py`` proves it on seeds 1-20).
"""

from __future__ import annotations

import random

import regex

from book.checks.answers import close
from book.checks.spec import Cases, Group, Mistake, TaskSpec, checks_of, random_text

# Both ends of every UTF-8 length range, plus characters from several scripts.
CODE_POINTS = [0x00, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0x4F60, 0xD7FF, 0xE000]
CODE_POINTS += [0xFFFF, 0x10000, 0x1F30D, 0x10FFFF]
BOUNDARIES = [0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000]
RANGES = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]

# Runs in the learner's kernel: an answer that names encode or decode (in its own code, its
# nested functions, or a function of the notebook it calls) returns the refusal on every case.
BY_HAND = """
REFUSED = "uses str.encode or bytes.decode"


def _names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def _uses_codec(function, seen):
    code = getattr(function, "__code__", None)
    if code is None or id(function) in seen:
        return False
    seen.add(id(function))
    names = _names(code)
    if names & {"encode", "decode"}:
        return True
    space = getattr(function, "__globals__", {})
    return any(
        getattr(space.get(name), "__module__", None) == "__main__"
        and _uses_codec(space[name], seen)
        for name in names
    )


def probe(answer, *args):
    if _uses_codec(answer, set()):
        return REFUSED
    return answer(*args)
"""
CODEC_SAYS = (
    "tasks 1-4 are done by hand: your answer (or a function it calls) uses str.encode or "
    "bytes.decode"
)


def _random_code_points(rng: random.Random, n: int) -> list[int]:
    """Code points from every UTF-8 length range (no surrogates)."""
    return [rng.randint(*rng.choice(RANGES)) for _ in range(n)]


def _cases(args_list, note: str = "") -> Cases:
    return [(args if isinstance(args, tuple) else (args,), note) for args in args_list]


# --- Task 1: utf8_length -------------------------------------------------------------------------


def _utf8(code_point: int) -> list[int]:
    """The codec's bytes of a code point (the references' ground truth; never the learner's)."""
    return list(chr(code_point).encode("utf-8"))


def _codec_prefix(ids: list[int]) -> tuple[str, int]:
    """The codec's valid prefix of ids and its length (the references' ground truth)."""
    data = bytes(ids)
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError as error:  # start: the first byte of the first bad character
        return data[: error.start].decode("utf-8"), error.start


def _utf8_text(text: str) -> list[int]:
    """The codec's bytes of a text."""
    return list(text.encode("utf-8"))


def utf8_length_reference(code_point: int) -> int:
    """How many bytes UTF-8 uses for code_point.

    >>> [utf8_length_reference(cp) for cp in (0x41, 0xE9, 0x20AC, 0x1F30D)]
    [1, 2, 3, 4]
    """
    return len(_utf8(code_point))


def _length_by_threshold(ends):
    def length(code_point):
        return next((n for n, end in enumerate(ends, 1) if code_point <= end), len(ends) + 1)

    return length


def _length_hidden(rng: random.Random) -> Cases:
    return _cases(BOUNDARIES + _random_code_points(rng, 8), "random")


UTF8_LENGTH = TaskSpec(
    "utf8_length",
    utf8_length_reference,
    (
        Group("ends of each range", 1, lambda: _cases(CODE_POINTS)),
        Group("random code points", 1, hidden=_length_hidden),
    ),
    (
        Mistake(CODEC_SAYS, lambda code_point: len(chr(code_point).encode())),
        Mistake(
            "a range's last code point belongs to it: 0x7F still takes one byte",
            _length_by_threshold([0x7E, 0x7FE, 0xFFFE]),
        ),
        Mistake(
            "UTF-8 has four lengths: code points past 0xFFFF take four bytes",
            lambda code_point: _length_by_threshold([0x7F, 0x7FF])(min(code_point, 0xFFFF)),
        ),
        Mistake(
            "UTF-8 is not the code point's own bytes: one byte holds only 7 bits of a code point",
            lambda code_point: max(1, (code_point.bit_length() + 7) // 8),
        ),
    ),
    "each UTF-8 length covers a range of code points: find where each range ends (the "
    "chapter's table of patterns says how many bits each length carries).",
    probe=BY_HAND,
)

# --- Task 2: encode_code_point -------------------------------------------------------------------


def _bits(code_point: int, *, reverse: bool = False, mark: int = 0x80) -> list[int]:
    """UTF-8's bit layout with no check of the value; reverse and mark make the slips."""
    n = 1 if code_point <= 0x7F else 2 if code_point <= 0x7FF else 3 if code_point <= 0xFFFF else 4
    if n == 1:
        return [code_point]
    tail = [mark | (code_point >> 6 * k & 0x3F) for k in range(n - 1)]
    tail = tail if reverse else tail[::-1]
    return [(0xF00 >> n & 0xFF) | code_point >> 6 * (n - 1)] + tail


def encode_code_point_reference(code_point: int) -> list[int]:
    """UTF-8 bytes of a code point; ValueError for surrogates and values outside Unicode.

    >>> encode_code_point_reference(0x20AC)
    [226, 130, 172]
    """
    if not 0 <= code_point <= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF:
        raise ValueError(f"{code_point:#x} is not a Unicode scalar value")
    return _utf8(code_point)


def _encode_codec(code_point):
    if 0xD800 <= code_point <= 0xDFFF:
        raise ValueError("a surrogate")
    return list(chr(code_point).encode())


def _encode_surrogates(code_point):
    if not 0 <= code_point <= 0x10FFFF:
        raise ValueError("outside Unicode")
    return _bits(code_point)


def _encode_past_unicode(code_point):
    if code_point < 0 or 0xD800 <= code_point <= 0xDFFF:
        raise ValueError("not a character")
    return _bits(code_point)


def _checked(slip):
    def encode(code_point):
        encode_code_point_reference(code_point)  # the same errors as the reference
        return slip(code_point)

    return encode


# Every group holds a surrogate, a value past U+10FFFF and multi-byte characters.
TRAPS = [0xD800, 0x110000, 0xE9, 0x20AC, 0x1F30D]


def _encode_hidden(rng: random.Random) -> Cases:
    wrong = [rng.randint(0xD800, 0xDFFF), rng.randint(0x110000, 0x1FFFFF), -rng.randint(1, 999)]
    points = [rng.randint(*span) for span in RANGES[1:]] + _random_code_points(rng, 6)
    return _cases(points + wrong, "random")


ENCODE_CODE_POINT = TaskSpec(
    "encode_code_point",
    encode_code_point_reference,
    (
        Group("each length", 1, lambda: _cases(CODE_POINTS + TRAPS)),
        Group("not characters", 1, lambda: _cases([0xDFFF, 0x1FFFFF, -1] + TRAPS)),
        Group("random code points", 1, hidden=_encode_hidden),
    ),
    (
        Mistake(CODEC_SAYS, _encode_codec),
        Mistake(
            "surrogates (U+D800-U+DFFF) are not characters: UTF-8 refuses them",
            _encode_surrogates,
        ),
        Mistake("Unicode ends at U+10FFFF: larger values are not characters", _encode_past_unicode),
        Mistake(
            "the continuation bytes hold the code point's bits most significant first",
            _checked(lambda code_point: _bits(code_point, reverse=True)),
        ),
        Mistake(
            "every byte after the lead starts with the bits 10",
            _checked(lambda code_point: _bits(code_point, mark=0)),
        ),
    ),
    "the lead byte says how many bytes follow and holds the code point's highest bits; each "
    "byte after it carries 6 more bits behind its marker; check first that the value is a "
    "character at all.",
    probe=BY_HAND,
)

# --- Task 3: truncate_utf8 -----------------------------------------------------------------------


def truncate_reference(text: str, max_bytes: int) -> str:
    """The longest prefix of text whose UTF-8 encoding fits in max_bytes bytes.

    >>> truncate_reference("你好", 5)
    '你'
    """
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be 0 or more, not {max_bytes}")
    return _codec_prefix(_utf8_text(text)[:max_bytes])[0]


def _truncate_codec(text, max_bytes):
    if max_bytes < 0:
        raise ValueError("negative")
    return text.encode()[:max_bytes].decode(errors="ignore")


def _truncate_by(cost, stop_at_full=False):
    def truncate(text, max_bytes):
        if max_bytes < 0:
            raise ValueError("negative")
        used = 0
        for index, ch in enumerate(text):
            used += cost(ch)
            if used > max_bytes or (stop_at_full and used >= max_bytes):
                return text[:index]
        return text

    return truncate


def _truncate_negative(text, max_bytes):
    return truncate_reference(text, max(max_bytes, 0))


def _character_bytes(ch: str) -> int:
    return utf8_length_reference(ord(ch))


TRUNCATE_EXAMPLES = [("", 0), ("hi", 0), ("hi", 1), ("hi", 2), ("hi", 9), ("café", 4)]
TRUNCATE_EXAMPLES += [("café", 5), ("你好", 2), ("你好", 3), ("你好", 5), ("你好", 6), ("a👍🏽", 4)]
TRUNCATE_EXAMPLES += [("a👍🏽", 5), ("a👍🏽", 8), ("a👍🏽", 9), ("cafe\u0301!", 5), ("x", -1)]
TRUNCATE_EXAMPLES += [("👨‍👩‍👧‍👦", 11), ("Ωmega", 1)]


def _truncate_hidden(rng: random.Random) -> Cases:
    cases = []
    for _ in range(4):
        text = random_text(rng, rng.randint(1, 6)) + rng.choice(["é", "日", "🦙"])
        size = len(text.encode("utf-8"))
        cases += [(text, rng.randint(0, size + 2)), (text, size), (text, size - 1)]
    return _cases(cases + [("日本", 4), (text, -rng.randint(1, 9))], "random")


TRUNCATE_UTF8 = TaskSpec(
    "truncate_utf8",
    truncate_reference,
    (
        Group("examples", 1, lambda: _cases(TRUNCATE_EXAMPLES)),
        Group("random texts", 1, hidden=_truncate_hidden),
    ),
    (
        Mistake(CODEC_SAYS, _truncate_codec),
        Mistake(
            "the limit is in bytes, not characters: a character may take up to four",
            _truncate_by(lambda ch: 1),
        ),
        Mistake("a prefix of exactly max_bytes bytes fits", _truncate_by(_character_bytes, True)),
        Mistake("a negative max_bytes is an error, not an empty budget", _truncate_negative),
    ),
    "add up the UTF-8 length of each character in turn; the prefix ends before the first "
    "character that would take the total past the limit.",
    probe=BY_HAND,
)

# --- Task 4: decode_prefix -----------------------------------------------------------------------


def decode_prefix_reference(ids: list[int]) -> tuple[str, int]:
    """(the text of the longest valid UTF-8 prefix of ids, its length in bytes).

    >>> decode_prefix_reference([104, 228, 189])
    ('h', 1)
    """
    return _codec_prefix(ids)


def _decode_codec(ids):
    try:
        return bytes(ids).decode(), len(ids)
    except UnicodeDecodeError as error:
        return bytes(ids[: error.start]).decode(), error.start


SMALLEST = {1: 0, 2: 0x80, 3: 0x800, 4: 0x10000}


def _decode_by_hand(ids, *, overlong=False, surrogates=False, tails=True, count_chars=False):
    """A decoder by hand; each flag lets one kind of bad character through (the slips)."""
    chars, i = [], 0
    while i < len(ids):
        lead = ids[i]
        n = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        if 0x80 <= lead < 0xC0 or lead >= 0xF8:
            break
        tail = ids[i + 1 : i + n]
        if len(tail) < n - 1 or (tails and any(byte >> 6 != 0b10 for byte in tail)):
            break
        code_point = lead & (0xFF >> (n + 1) if n > 1 else 0x7F)
        for byte in tail:
            code_point = code_point << 6 | byte & 0x3F
        if (code_point < SMALLEST[n] and not overlong) or code_point > 0x10FFFF:
            break
        if 0xD800 <= code_point <= 0xDFFF and not surrogates:
            break
        chars.append(chr(code_point))
        i += n
    text = "".join(chars)
    return text, len(text) if count_chars else i


def _decode_slip(says: str, **slip: bool) -> Mistake:
    """The mistake of a decoder by hand that makes one slip."""
    return Mistake(says, lambda ids: _decode_by_hand(ids, **slip))


# Every group holds an overlong form, a surrogate, a bad continuation byte and a cut character,
# each after a valid multi-byte character.
DECODE_TRAPS = [[0xC3, 0xA9, 0xC0, 0x80], [0xC3, 0xA9, 0xED, 0xA0, 0x80, 0x41]]
DECODE_TRAPS += [[0xC3, 0xA9, 0xE2, 0x82, 0x41], [0xE2, 0x82, 0xAC, 0xE4, 0xBD]]
DECODE_VALID = [[], [104, 105], [226, 130, 172], [0xF0, 0x9F, 0x8C, 0x8D], [228, 189]]
DECODE_VALID += [[0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF]]
DECODE_VALID += [[0xEF, 0xBF, 0xBF, 0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF]]
DECODE_VALID += [[104, 228, 189], [104, 105, 0xF0, 0x9F, 0x8C], [0xC3, 0xA9, 0xC3]]
DECODE_INVALID = [[0x80], [104, 0x80, 105], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF]]
DECODE_INVALID += [[0xF0, 0x8F, 0xBF, 0xBF], [104, 0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80]]
DECODE_INVALID += [[0xF5, 0x80, 0x80, 0x80], [0xFF]]

# Bytes that break UTF-8 where they stand: continuation, overlong leads, beyond U+10FFFF, and
# leads whose second byte is restricted (E0, ED, F0, F4).
BAD_BYTES = [0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF, 0xE0, 0xED, 0xF0, 0xF4, 0xC3, 0xE4]


def _decode_hidden(rng: random.Random) -> Cases:
    cases = []
    for _ in range(4):
        data = list(f"é{random_text(rng, rng.randint(1, 5))}".encode())
        position = rng.randint(2, len(data))
        cases.append(data[: rng.randint(0, len(data))])
        cases.append(data[:position] + [rng.choice(BAD_BYTES)] + data[position:])
    cases += [
        [0xC3, 0xA9] + rng.choice([[0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x9F, 0xBF]]),
        [0xC3, 0xA9, 0xED, rng.randint(0xA0, 0xBF), rng.randint(0x80, 0xBF), 0x41],
        [0xC3, 0xA9, 0xE2, 0x82, rng.randint(0x20, 0x7E)],
    ]
    return _cases(cases, "random")


DECODE_PREFIX = TaskSpec(
    "decode_prefix",
    decode_prefix_reference,
    (
        Group("valid and cut", 1, lambda: _cases(DECODE_VALID + DECODE_TRAPS)),
        Group("invalid bytes", 1, lambda: _cases(DECODE_INVALID + DECODE_TRAPS)),
        Group("random damage", 1, hidden=_decode_hidden),
    ),
    (
        Mistake(CODEC_SAYS, _decode_codec),
        _decode_slip(
            "a code point written with more bytes than it needs (overlong) is invalid",
            overlong=True,
        ),
        _decode_slip("surrogates (ED A0 to ED BF) are not characters", surrogates=True),
        _decode_slip("every byte after the lead must start with the bits 10", tails=False),
        _decode_slip("n is a number of bytes, not of characters", count_chars=True),
    ),
    "read each character's length from its lead byte, check the bytes after it, rebuild the "
    "code point and check its range; stop at the first character that fails, and report where "
    "it starts.",
    probe=BY_HAND,
)

# --- Task 5: bytes_per_grapheme ------------------------------------------------------------------


def bytes_per_grapheme_reference(text: str) -> float:
    """UTF-8 bytes per extended grapheme cluster (what a reader sees as one character).

    >>> bytes_per_grapheme_reference("e\u0301")
    3.0
    """
    if not text:
        raise ValueError("an empty text has no graphemes")
    return len(text.encode("utf-8")) / len(regex.findall(r"\X", text))


def _per(count):
    def measure(text):
        if not text:
            raise ValueError("empty")
        return len(text.encode("utf-8")) / count(text)

    return measure


def _graphemes_no_empty_check(text):
    return len(text.encode("utf-8")) / max(len(regex.findall(r"\X", text)), 1)


# Every group holds combining marks, an emoji sequence and the empty text.
GRAPHEME_TRAPS = _cases(["e\u0301"], "e and a combining accent")
GRAPHEME_TRAPS += _cases(["👨‍👩‍👧‍👦 ok", "नमस्ते", ""])


def _grapheme_hidden(rng: random.Random) -> Cases:
    texts = [random_text(rng, rng.randint(1, 6)) + rng.choice(["e\u0301", "👍🏽", "🇫🇷"])]
    texts += [rng.choice(["नमस्ते", "நன்றி", "🇫🇷🇯🇵", "a\u0301\u0302"]), ""]
    return _cases(texts, "random")


BYTES_PER_GRAPHEME = TaskSpec(
    "bytes_per_grapheme",
    bytes_per_grapheme_reference,
    (
        Group("examples", 1, lambda: _cases(["hi", "é", "naïve café", "日本語"]) + GRAPHEME_TRAPS),
        Group("marks and emoji", 1, lambda: _cases(["🇫🇷 ok", "\n\t ", "👍🏽"]) + GRAPHEME_TRAPS),
        Group("random texts", 1, hidden=_grapheme_hidden),
    ),
    (
        Mistake(
            "a grapheme is what a reader sees as one character; a code point may be only part "
            "of one (a combining mark, a joiner)",
            _per(len),
        ),
        Mistake(
            "count bytes of UTF-8, not code points",
            lambda text: len(text) / len(regex.findall(r"\X", text)),
        ),
        Mistake(
            "an empty text has no graphemes: raise ValueError",
            _graphemes_no_empty_check,
        ),
        Mistake("graphemes, not words", _per(lambda text: len(text.split()) or 1)),
    ),
    "divide the text's UTF-8 bytes by the number of graphemes the regex module finds in it.",
    compare=close,
)

SPECS = (UTF8_LENGTH, ENCODE_CODE_POINT, TRUNCATE_UTF8, DECODE_PREFIX, BYTES_PER_GRAPHEME)
check, judge_tasks = checks_of(SPECS)

REFERENCE: tuple[str, ...] = ()  # the reference is Python's own codec, which no one can take away
