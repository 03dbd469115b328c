"""Checks of exercises/01_text_to_numbers.ipynb, as one spec per task. Python's own UTF-8 codec
is the reference (no tokenizer step is involved).

Tasks 1-4 do by hand what Python's UTF-8 codec does, and say so: the probe refuses an answer
whose code (or a function of the notebook it calls) reaches the codec by any of the plain
routes: ``str.encode``, ``bytes.decode``, the ``bytes``, ``bytearray`` and ``str``
constructors with an encoding, ``codecs``, or bytes objects at all (a by-hand answer works
with ints). So the chapter's one-line ``encode`` earns nothing. Task 5 cuts text at grapheme
boundaries, a variant of task 3; the codec is allowed there. A task that raises ValueError has
a part "errors" of its own (the values that are errors and those beside them that are not), so
a forgotten check costs that part alone. Each task's known mistakes are code; every group of
cases catches each of them, except a mistake that names the one part it breaks
(``tests/test_check_specs.py`` proves both on seeds 1-20).
"""

from __future__ import annotations

import random
import unicodedata

import regex

from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    random_text,
)

# Both ends of every UTF-8 length range, plus characters from several scripts.
CODE_POINTS = [0x00, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0x4F60, 0xD7FF, 0xE000]
CODE_POINTS += [0xFFFF, 0x10000, 0x1F30D, 0x10FFFF]
BOUNDARIES = [0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000]
RANGES = [(0, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF), (0x10000, 0x10FFFF)]

# Runs in the learner's kernel: an answer that reaches Python's codec (in its own code, its
# nested functions, or a function of the notebook it calls) returns the refusal on every case.
BY_HAND = '''
import builtins
import codecs
import dis
import functools
import types

REFUSED = "uses Python's UTF-8 codec"
# Methods that reach a codec whatever object they are called on (str.encode, int.to_bytes,
# codecs.utf_8_encode...), and the modules that hold one.
CODEC_METHODS = {"encode", "decode", "to_bytes", "fromhex"}
CODEC_METHODS |= {n for n in dir(codecs) if n.endswith(("encode", "decode")) or n[:3] == "get"}
CODEC_MODULES = {"codecs", "_codecs", "encodings"}
# Modules that hand out any other module (or builtins.bytes) by name.
OPENERS = CODEC_MODULES | {"builtins", "importlib", "sys"}


def _codec_value(value):
    """A bytes object, a codec's name ('utf-8', 'U8'...) or a module's for __import__."""
    if isinstance(value, (bytes, bytearray)):
        return True
    if not isinstance(value, str) or len(value) > 20:
        return False
    if value.split(".")[0] in OPENERS:
        return True
    try:
        return codecs.lookup(value).name.startswith("utf-8")
    except (LookupError, ValueError):
        return False


def _codec_thing(value):
    """Whether a value reaches the codec: the bytes types, a codec module or function, a
    method such as "".encode, or a codec value."""
    if value is bytes or value is bytearray or value is builtins.__import__:
        return True
    if isinstance(value, functools.partial):
        return _codec_thing(value.func) or any(map(_codec_thing, value.args))
    if isinstance(value, types.ModuleType):
        return value.__name__.split(".")[0] in OPENERS
    if getattr(value, "__name__", None) in CODEC_METHODS and not hasattr(value, "__code__"):
        owner = getattr(value, "__self__", None)
        if not isinstance(owner, types.ModuleType) or _codec_thing(owner):
            return True
    module = getattr(value, "__module__", None)
    if isinstance(module, str) and module.split(".")[0] in CODEC_MODULES:
        return True
    return _codec_value(value)


def _bound(name, space):
    """What a global name holds when the answer runs: the notebook's value, else a builtin."""
    return space[name] if name in space else getattr(builtins, name, None)


def _reaches_codec(code, space):
    """Whether code calls a codec method, imports a codec module, loads a global bound to
    the codec, holds a codec value, or passes encoding= or errors=. A global is judged by what
    it is bound to, so the notebook's own function called encode is judged by its code."""
    for op in dis.get_instructions(code):
        if op.opname in ("LOAD_ATTR", "LOAD_METHOD", "IMPORT_FROM"):
            if op.argval in CODEC_METHODS:
                return True
        elif op.opname == "IMPORT_NAME":
            if op.argval.split(".")[0] in OPENERS:
                return True
        elif op.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            if _codec_thing(_bound(op.argval, space)):
                return True
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            if _reaches_codec(const, space):
                return True
        elif isinstance(const, tuple):  # the keyword names of a call
            if {"encoding", "errors"} & set(const):
                return True
        elif _codec_value(const):
            return True
    return False


def _globals_loaded(code):
    """The global names code and its nested functions load."""
    names = {op.argval for op in dis.get_instructions(code) if op.opname == "LOAD_GLOBAL"}
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _globals_loaded(const)
    return names


def _uses_codec(function, seen):
    code = getattr(function, "__code__", None)
    if code is None or id(function) in seen:
        return False
    seen.add(id(function))
    space = getattr(function, "__globals__", {})
    held = list(function.__defaults__ or ()) + list((function.__kwdefaults__ or {}).values())
    held += [cell.cell_contents for cell in function.__closure__ or ()]
    if _reaches_codec(code, space) or any(_codec_thing(value) for value in held):
        return True
    called = [space.get(name) for name in _globals_loaded(code)] + held
    return any(
        getattr(value, "__module__", None) == "__main__" and _uses_codec(value, seen)
        for value in called
    )


def probe(answer, *args):
    if _uses_codec(answer, set()):
        return REFUSED
    return answer(*args)
'''
CODEC_SAYS = (
    "tasks 1-4 are done by hand, with ints: your answer (or a function it calls) uses Python's "
    "UTF-8 codec (str.encode, bytes.decode, bytes(text, ...), str(data, ...), codecs or bytes "
    "objects)"
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
        Mistake(CODEC_SAYS, lambda code_point: len(bytes(chr(code_point), "utf-8"))),
        Mistake(
            "a range's last code point belongs to it: 0x7F still takes one byte, 0x7FF two "
            "and 0xFFFF three",
            _length_by_threshold([0x7E, 0x7FE, 0xFFFE]),
        ),
        Mistake(
            "a range's first code point belongs to it: 0x80 already takes two bytes, 0x800 "
            "three and 0x10000 four",
            _length_by_threshold([0x80, 0x800, 0x10000]),
        ),
        Mistake(
            "a length's payload bits are what it can hold: a code point of exactly 7, 11 or 16 "
            "bits still fits the shorter length (0x7F one byte, 0x7FF two, 0xFFFF three)",
            lambda code_point: 1 + sum(code_point.bit_length() >= bits for bits in (7, 11, 16)),
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


def _bits(code_point: int, *, reverse: bool = False, mark: int = 0x80, lead4: int = 0xF0):
    """UTF-8's bit layout with no check of the value; the options make the slips."""
    n = 1 if code_point <= 0x7F else 2 if code_point <= 0x7FF else 3 if code_point <= 0xFFFF else 4
    if n == 1:
        return [code_point]
    tail = [mark | (code_point >> 6 * k & 0x3F) for k in range(n - 1)]
    tail = tail if reverse else tail[::-1]
    marker = {2: 0xC0, 3: 0xE0, 4: lead4}[n]
    return [marker | code_point >> 6 * (n - 1)] + tail


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


def _encode_constructor(code_point):
    if not 0 <= code_point <= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF:
        raise ValueError("not a character")
    return list(bytearray(chr(code_point), "utf8"))


def _encode_refusing(*refused):
    """An encoder by hand that raises ValueError only for the refused kinds of value."""
    tests = {
        "negative": lambda code_point: code_point < 0,
        "surrogate": lambda code_point: 0xD800 <= code_point <= 0xDFFF,
        "inner surrogate": lambda code_point: 0xD800 < code_point < 0xDFFF,
        "past Unicode": lambda code_point: code_point > 0x10FFFF,
    }

    def encode(code_point):
        if any(tests[kind](code_point) for kind in refused):
            raise ValueError("not a character")
        return _bits(code_point)

    return encode


def _checked(slip):
    def encode(code_point):
        encode_code_point_reference(code_point)  # the same errors as the reference
        return slip(code_point)

    return encode


# The errors part: a value of each kind that is no character, and the characters right beside
# each of them (0, the ends of the surrogates' gap, U+10FFFF), which an answer must encode.
NOT_CHARACTERS = [-1, -0x80, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x110000, 0x1FFFFF]
BESIDE = [0x00, 0xD7FF, 0xE000, 0x10FFFF, 0xE9, 0x20AC, 0x1F30D]


def _encode_hidden(rng: random.Random) -> Cases:
    points = [rng.randint(*span) for span in RANGES[1:]] + _random_code_points(rng, 6)
    return _cases(points, "random")


def _encode_errors_hidden(rng: random.Random) -> Cases:
    wrong = [rng.randint(0xD800, 0xDFFF), rng.randint(0x110000, 0x1FFFFF), -rng.randint(1, 999)]
    return _cases(wrong, "random")


ENCODE_CODE_POINT = TaskSpec(
    "encode_code_point",
    encode_code_point_reference,
    (
        Group("each length", 1, lambda: _cases(CODE_POINTS)),
        Group("random code points", 1, hidden=_encode_hidden),
        Group("errors", 1, lambda: _cases(NOT_CHARACTERS + BESIDE), _encode_errors_hidden),
    ),
    (
        Mistake(CODEC_SAYS, _encode_codec),
        Mistake(CODEC_SAYS, _encode_constructor),
        Mistake(
            "surrogates (U+D800-U+DFFF) are not characters: UTF-8 refuses them",
            _encode_refusing("negative", "past Unicode"),
            part="errors",
        ),
        Mistake(
            "U+D800 and U+DFFF are surrogates too: the surrogates' range includes both ends",
            _encode_refusing("negative", "inner surrogate", "past Unicode"),
            part="errors",
        ),
        Mistake(
            "Unicode ends at U+10FFFF: larger values are not characters",
            _encode_refusing("negative", "surrogate"),
            part="errors",
        ),
        Mistake(
            "code points start at 0: a negative value is not a character",
            _encode_refusing("surrogate", "past Unicode"),
            part="errors",
        ),
        Mistake(
            "the continuation bytes hold the code point's bits most significant first",
            _checked(lambda code_point: _bits(code_point, reverse=True)),
        ),
        Mistake(
            "every byte after the lead starts with the bits 10",
            _checked(lambda code_point: _bits(code_point, mark=0)),
        ),
        Mistake(
            "a four-byte lead starts with 11110: four 1s, then a 0",
            _checked(lambda code_point: _bits(code_point, lead4=0xF8)),
        ),
    ),
    "compare your bytes, bit by bit, with the chapter's table of UTF-8's bit patterns, and "
    "check that the value is a character at all.",
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


def _truncate_constructors(text, max_bytes):
    if max_bytes < 0:
        raise ValueError("negative")
    return str(bytes(text, "utf-8")[:max_bytes], "utf-8", "ignore")


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


def _truncate_skipping(text, max_bytes):
    """Keeps every character that still fits, skipping those that do not: not a prefix."""
    if max_bytes < 0:
        raise ValueError("negative")
    kept, used = [], 0
    for ch in text:
        if used + _character_bytes(ch) <= max_bytes:
            kept.append(ch)
            used += _character_bytes(ch)
    return "".join(kept)


def _truncate_negative(text, max_bytes):
    return truncate_reference(text, max(max_bytes, 0))


def _character_bytes(ch: str) -> int:
    return utf8_length_reference(ord(ch))


TRUNCATE_EXAMPLES = [("hi", 1), ("hi", 2), ("hi", 9), ("café", 4), ("café", 5), ("你好", 2)]
TRUNCATE_EXAMPLES += [
    ("你好", 3),
    ("你好", 5),
    ("你好", 6),
    ("a👍🏽", 4),
    ("a👍🏽", 5),
    ("a👍🏽", 8),
]
TRUNCATE_EXAMPLES += [("a👍🏽", 9), ("cafe\u0301!", 5), ("👨‍👩‍👧‍👦", 11), ("Ωmega", 1)]
# The errors part: negative limits, and the limit 0 beside them, which is no error; with a
# character that does not fit, one that fits exactly, and a smaller one after a bigger one.
TRUNCATE_ERRORS = [("x", -1), ("", -1), ("你好", -7), ("", 0), ("hi", 0), ("日a", 1), ("日a", 3)]


def _truncate_hidden(rng: random.Random) -> Cases:
    """Limits of 1 byte or more: the limits 0 and below are the errors part's."""
    cases = []
    for _ in range(4):
        text = random_text(rng, rng.randint(1, 6)) + rng.choice(["é", "日", "🦙"])
        size = len(text.encode("utf-8"))
        cases += [(text, rng.randint(1, size + 2)), (text, size), (text, size - 1)]
    # A character that does not fit, then one that would: only a prefix stops at the first.
    cases.append((rng.choice(["日", "🦙", "é"]) + rng.choice("abc") + random_text(rng, 2), 1))
    return _cases(cases + [("日本", 4)], "random")


TRUNCATE_UTF8 = TaskSpec(
    "truncate_utf8",
    truncate_reference,
    (
        Group("examples", 1, lambda: _cases(TRUNCATE_EXAMPLES)),
        Group("random texts", 1, hidden=_truncate_hidden),
        Group("errors", 1, lambda: _cases(TRUNCATE_ERRORS)),
    ),
    (
        Mistake(CODEC_SAYS, _truncate_codec),
        Mistake(CODEC_SAYS, _truncate_constructors),
        Mistake(
            "the limit is in bytes, not characters: a character may take up to four",
            _truncate_by(lambda ch: 1),
        ),
        Mistake("a prefix of exactly max_bytes bytes fits", _truncate_by(_character_bytes, True)),
        Mistake(
            "the result is a prefix of the text: nothing after the first character that does not "
            "fit is kept",
            _truncate_skipping,
        ),
        Mistake(
            "a negative max_bytes is an error, not an empty budget",
            _truncate_negative,
            part="errors",
        ),
    ),
    "the result is a prefix of the text made of whole characters, its UTF-8 length is at most "
    "max_bytes, and the next longer prefix would not fit.",
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


def _decode_constructor(ids):
    try:
        return str(bytes(ids), errors="strict"), len(ids)
    except UnicodeDecodeError as error:
        return str(bytes(ids[: error.start]), errors="strict"), error.start


SMALLEST = {1: 0, 2: 0x80, 3: 0x800, 4: 0x10000}
NEVER = {0xC0, 0xC1, *range(0xF5, 0x100)}  # the 13 byte values UTF-8 never uses


def _decode_by_hand(
    ids,
    *,
    overlong=False,
    never_bytes=False,
    surrogates=False,
    tails=True,
    count_chars=False,
    cut_used=False,
    high_leads=False,
    below_top=False,
    last_cut=False,
):
    """A decoder by hand; each flag makes one slip (lets one kind of bad character through,
    or, last_cut, holds back a character that ends at the last byte)."""
    chars, i = [], 0
    while i < len(ids):
        lead = ids[i]
        n = 1 if lead < 0x80 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        if 0x80 <= lead < 0xC0 or (lead >= 0xF8 and not high_leads):
            break
        if never_bytes and lead in NEVER:
            break
        tail = ids[i + 1 : i + n]
        if len(tail) < n - 1 or (last_cut and n > 1 and i + n == len(ids)):
            i = len(ids) if cut_used else i
            break
        if tails and any(byte >> 6 != 0b10 for byte in tail):
            break
        code_point = lead & (0xFF >> (n + 1) if n > 1 else 0x7F)
        for byte in tail:
            code_point = code_point << 6 | byte & 0x3F
        checked = not (overlong or never_bytes)
        if (code_point < SMALLEST[n] and checked) or code_point > 0x10FFFF - below_top:
            break
        if 0xD800 <= code_point <= 0xDFFF and not surrogates:
            break
        chars.append(chr(code_point))
        i += n
    text = "".join(chars)
    return text, len(text) if count_chars else i


def _decode_slip(says: str, part: str = "", **slip: bool) -> Mistake:
    """The mistake of a decoder by hand that makes one slip (breaking part, if only one)."""
    return Mistake(says, lambda ids: _decode_by_hand(ids, **slip), part)


# Every group holds overlong forms of two and three bytes, a surrogate, a bad continuation byte,
# a cut character at the end and a whole one, each after a valid multi-byte character.
DECODE_TRAPS = [[0xC3, 0xA9, 0xC0, 0x80], [0xC3, 0xA9, 0xE0, 0x9F, 0xBF]]
DECODE_TRAPS += [[0xC3, 0xA9, 0xED, 0xA0, 0x80, 0x41], [0xC3, 0xA9, 0xE2, 0x82, 0x41]]
DECODE_TRAPS += [[0xE2, 0x82, 0xAC, 0xE4, 0xBD], [0xC3, 0xA9, 0xE2, 0x82, 0xAC]]
DECODE_VALID = [[], [104, 105], [226, 130, 172], [0xF0, 0x9F, 0x8C, 0x8D], [228, 189]]
DECODE_VALID += [[0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF]]
DECODE_VALID += [[0xEF, 0xBF, 0xBF, 0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF]]
DECODE_VALID += [[104, 228, 189], [104, 105, 0xF0, 0x9F, 0x8C], [0xC3, 0xA9, 0xC3]]
DECODE_INVALID = [[0x80], [104, 0x80, 105], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF]]
DECODE_INVALID += [[0xF0, 0x8F, 0xBF, 0xBF], [104, 0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80]]
DECODE_INVALID += [[0xF5, 0x80, 0x80, 0x80], [0xFF]]
# Lead bytes F8-FF, followed by bytes that would complete a four-byte character.
DECODE_INVALID += [
    [0x61, 0xFC, 0x80, 0x80, 0x80],
    [0xF9, 0x80, 0x80, 0x80],
    [0xF8, 0x88, 0x80, 0x80],
]
# A lead byte where a continuation byte is expected.
DECODE_INVALID += [
    [0xC3, 0xC3, 0xA9],
    [0x68, 0xE4, 0xE4, 0xBD, 0xA0],
    [0xF0, 0x9F, 0xF0, 0x9F, 0x8C],
]

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
    longer = _utf8(rng.randint(*rng.choice(RANGES[2:])))  # three or four bytes, cut short
    cases += [
        [0xC3, 0xA9] + rng.choice([[0xC0, 0x80], [0xC1, 0xBF]]),
        [0xC3, 0xA9, 0xE0, rng.randint(0x80, 0x9F), rng.randint(0x80, 0xBF)],
        [0xC3, 0xA9, 0xF0, rng.randint(0x80, 0x8F), rng.randint(0x80, 0xBF), 0x80],
        [0xC3, 0xA9, 0xED, rng.randint(0xA0, 0xBF), rng.randint(0x80, 0xBF), 0x41],
        [0xC3, 0xA9, 0xE2, 0x82, rng.randint(0x20, 0x7E)],
        [0xC3, 0xA9, rng.randint(0xC2, 0xDF), rng.randint(0xC2, 0xF4), rng.randint(0x80, 0xBF)],
        [0xC3, 0xA9] + longer[: rng.randint(1, len(longer) - 1)],
        list(f"{random_text(rng, 1)}{rng.choice(['é', '€', '日', '🦙'])}".encode()),  # ends whole
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
        Mistake(CODEC_SAYS, _decode_constructor),
        _decode_slip(
            "refusing the 13 bytes UTF-8 never uses is not enough: E0 80 80 and F0 80 80 80 use "
            "none of them, yet write U+0000 in three and four bytes (overlong forms)",
            never_bytes=True,
        ),
        _decode_slip(
            "a code point written with more bytes than it needs (overlong) is invalid",
            overlong=True,
        ),
        _decode_slip("surrogates (ED A0 to ED BF) are not characters", surrogates=True),
        _decode_slip("every byte after the lead must start with the bits 10", tails=False),
        _decode_slip(
            "a lead byte announces at most four bytes: F8 to FF start no character",
            part="invalid bytes",
            high_leads=True,
        ),
        _decode_slip(
            "U+10FFFF is the last character: only the values above it are not characters",
            part="valid and cut",
            below_top=True,
        ),
        _decode_slip("n is a number of bytes, not of characters", count_chars=True),
        _decode_slip(
            "a character cut short at the end is not decoded yet: its bytes are not used",
            cut_used=True,
        ),
        _decode_slip(
            "a character whose last byte is the last of ids is complete: it is decoded",
            last_cut=True,
        ),
    ),
    "n is where the first character that is cut short or invalid starts; the task's list says "
    "what makes a character valid.",
    probe=BY_HAND,
)

# --- Task 5: truncate_graphemes ------------------------------------------------------------------


def truncate_graphemes_reference(text: str, max_bytes: int) -> str:
    """The longest prefix of whole graphemes of text whose UTF-8 encoding fits in max_bytes.

    >>> truncate_graphemes_reference("cafe\u0301!", 5)
    'caf'
    """
    if max_bytes < 0:
        raise ValueError(f"max_bytes must be 0 or more, not {max_bytes}")
    kept = used = 0  # code points kept, bytes used
    for grapheme in regex.findall(r"\X", text):
        used += len(grapheme.encode("utf-8"))
        if used > max_bytes:
            break
        kept += len(grapheme)
    return text[:kept]


def _marks_join(text: str) -> list[str]:
    """Graphemes by a rule of thumb: a combining mark joins what precedes it, nothing else does."""
    graphemes: list[str] = []
    for ch in text:
        if graphemes and unicodedata.category(ch).startswith("M"):
            graphemes[-1] += ch
        else:
            graphemes.append(ch)
    return graphemes


def _graphemes_cut_by(cost, split=lambda text: regex.findall(r"\X", text), **slip):
    """A cut at graphemes (as split finds them) that pays cost per grapheme, with slips:
    skip (keep later graphemes that fit), full (a grapheme that fills the budget is dropped)."""

    def truncate(text, max_bytes):
        if max_bytes < 0 and not slip.get("negative"):
            raise ValueError("negative")
        kept, used = [], 0
        for grapheme in split(text):
            if used + cost(grapheme) > max_bytes or (
                slip.get("full") and used + cost(grapheme) >= max_bytes
            ):
                if slip.get("skip"):
                    continue
                break
            kept.append(grapheme)
            used += cost(grapheme)
        return "".join(kept)

    return truncate


def _grapheme_bytes(grapheme: str) -> int:
    return len(grapheme.encode("utf-8"))


# Every group holds a family emoji, a flag, a skin tone, a decomposed accent, Hindi, CR LF, a
# Hangul syllable of three jamo and an e that is a grapheme alone before it begins é, with
# limits that fall inside a grapheme, fill the budget exactly, or leave room for a smaller
# grapheme after one that does not fit.
FAMILY = "👨\u200d👩\u200d👧\u200d👦"
GRAPHEME_TRAPS = [(FAMILY + "!", 11), (FAMILY + "!", 25), ("cafe\u0301!", 5), ("cafe\u0301!", 6)]
GRAPHEME_TRAPS += [("🇫🇷ok", 4), ("a👍🏽b", 5), ("a👍🏽b", 9), ("नमस्ते", 6), ("👍🏽ok", 4)]
GRAPHEME_TRAPS += [("a\r\nb", 2), ("\u1100\u1161\u11a8x", 6), ("the cafe\u0301", 8)]
GRAPHEME_EXAMPLES = [("", 0), ("hi", 1), ("hi", 2), ("你好", 5), ("a\u0301\u0302b", 4), ("x", 0)]
GRAPHEME_EVERY_LIMIT = [(FAMILY, n) for n in range(0, 27, 2)]
GRAPHEME_EVERY_LIMIT += [("e\u0301\u0301x", n) for n in range(7)] + [("🇯🇵🇫🇷", 9)]
# A character that is a grapheme of its own earlier in the text and begins a longer one later.
GRAPHEME_EVERY_LIMIT += [("the cafe\u0301", n) for n in range(6, 11)]
# The errors part: negative limits, and the limit 0 beside them, which is no error.
GRAPHEME_ERRORS = [("ok", -1), ("", -1), (FAMILY, -25), ("ok", 0), (FAMILY, 0)]
# Pieces for hidden texts: graphemes of several code points, and plain characters.
CLUSTERS = ["e\u0301", "a\u0301\u0302", "👍🏽", "🇫🇷", "🇯🇵", FAMILY, "👩\u200d💻", "नमस्ते", "நன்றி"]


def _grapheme_draw(rng: random.Random) -> tuple:
    text = random_text(rng, rng.randint(0, 2)) + rng.choice(CLUSTERS)
    text += rng.choice(["", "!", " ok", random_text(rng, 1)])
    size = len(text.encode("utf-8"))
    return (text, rng.choice([rng.randint(0, size), size]))


def _grapheme_hidden(rng: random.Random) -> Cases:
    return drawn_until_caught(
        rng, _grapheme_draw, TRUNCATE_GRAPHEMES, at_least=6, group="random texts"
    )


TRUNCATE_GRAPHEMES = TaskSpec(
    "truncate_graphemes",
    truncate_graphemes_reference,
    (
        Group("examples", 1, lambda: _cases(GRAPHEME_EXAMPLES + GRAPHEME_TRAPS)),
        Group("every limit", 1, lambda: _cases(GRAPHEME_EVERY_LIMIT + GRAPHEME_TRAPS)),
        Group("random texts", 1, lambda: _cases(GRAPHEME_TRAPS), _grapheme_hidden),
        Group("errors", 1, lambda: _cases(GRAPHEME_ERRORS + GRAPHEME_TRAPS)),
    ),
    (
        Mistake(
            "a grapheme is more than a letter and its combining marks: a zero-width joiner, a "
            "skin tone or a second regional indicator belongs to the grapheme before it",
            _graphemes_cut_by(_grapheme_bytes, split=_marks_join),
        ),
        Mistake(
            "a cut between code points can still split a grapheme: a grapheme is kept whole or "
            "not at all",
            truncate_reference,
        ),
        Mistake(
            "a grapheme costs the UTF-8 bytes of all its code points, not of its first one",
            _graphemes_cut_by(lambda grapheme: len(grapheme[0].encode("utf-8"))),
        ),
        Mistake(
            "the limit is in bytes: a grapheme costs its UTF-8 bytes, not one per code point",
            _graphemes_cut_by(len),
        ),
        Mistake(
            "the result is a prefix of the text: nothing after the first grapheme that does not "
            "fit is kept",
            _graphemes_cut_by(_grapheme_bytes, skip=True),
        ),
        Mistake(
            "a prefix of exactly max_bytes bytes fits",
            _graphemes_cut_by(_grapheme_bytes, full=True),
        ),
        Mistake(
            "a negative max_bytes is an error, not an empty budget",
            _graphemes_cut_by(_grapheme_bytes, negative=True),
            part="errors",
        ),
    ),
    "the result is a prefix of the text made of whole graphemes, its UTF-8 length is at most "
    "max_bytes, and the next longer such prefix would not fit.",
)

SPECS = (UTF8_LENGTH, ENCODE_CODE_POINT, TRUNCATE_UTF8, DECODE_PREFIX, TRUNCATE_GRAPHEMES)
check, judge_tasks = checks_of(SPECS)

REFERENCE: tuple[str, ...] = ()  # the reference is Python's own codec, which no one can take away
