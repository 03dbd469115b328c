"""Chapter 01's specs beyond the generic mutation test (tests/test_check_specs.py): the rule
"without Python's UTF-8 codec" enforced through the notebook's own helpers and on the codec's
other routes, partial credit by group, unattempted answers, and the references agreeing with
Python's codec.

``grade_locally`` is shared with the tests of other chapters' checks."""

import random
import unicodedata

import pytest
import regex
from check_helpers import ALL, grade_losing, grades_on_seeds, line
from hypothesis import given
from hypothesis import strategies as st

from book.checks import ch01
from book.grading.calls import judge_in_process

RIGHT = {spec.name: spec.reference for spec in ch01.SPECS}
BY_NAME = {spec.name: spec for spec in ch01.SPECS}


def grade_locally(tasks, answers: dict, tmp_path) -> dict[str, int]:
    """{task: points} that the judge gives answers (name -> object), calls run in this process."""
    return {grade.task: grade.points for grade in judge_in_process(tasks, dict(answers))}


def notebook_functions(source: str) -> dict:
    """Functions defined as a notebook cell defines them (their module is __main__)."""
    space = {"__name__": "__main__"}
    exec(source, space)
    return space


def test_right_answers_pass(capsys):
    for name, answer in RIGHT.items():
        assert line(capsys, ch01.check, name, answer).startswith(f"✔ {name}: all ")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch01.check, "decode_prefix", not_yet)
    assert "not defined" in line(capsys, ch01.check, "utf8_length", None)


def test_the_codec_is_refused_even_behind_a_helper_of_the_notebook(capsys):
    space = notebook_functions(
        "def helper(code_point):\n"
        "    return len(chr(code_point).encode())\n"
        "def utf8_length(code_point):\n"
        "    return helper(code_point)\n"
        "def by_hand(code_point):\n"
        "    return 1 if code_point < 0x80 else 2 if code_point < 0x800 else"
        " 3 if code_point < 0x10000 else 4\n"
    )
    out = line(capsys, ch01.check, "utf8_length", space["utf8_length"])
    assert out.startswith("✘") and "0/2 points" in out and ch01.CODEC_SAYS in out
    assert line(capsys, ch01.check, "utf8_length", space["by_hand"]).startswith("✔")


CODEC_ROUTES = """
import codecs
ENCODING = "utf-8"
def constructor(code_point):
    return len(bytes(chr(code_point), "utf-8"))
def other_spelling(code_point):
    return len(bytearray(chr(code_point), "U8"))
def module(code_point):
    return len(codecs.encode(chr(code_point), "utf-8"))
def global_name(code_point):
    return len(bytes(chr(code_point), ENCODING))
def default(code_point, encoding="utf8"):
    return len(bytes(chr(code_point), encoding))
def default_encoding(ids):
    return str(bytes(ids), errors="strict"), len(ids)
def bytes_literal(ids):
    return str(b"".join(b"%c" % byte for byte in ids), "utf-8"), len(ids)
from codecs import utf_8_encode
import codecs as c
from array import array
TO_BYTES = str.encode
def imported_function(code_point):
    return len(utf_8_encode(chr(code_point))[0])
def aliased_module(code_point):
    return len(c.utf_8_encode(chr(code_point))[0])
def method_held_in_a_global(code_point):
    return len(TO_BYTES(chr(code_point)))
def imported_by_name(code_point):
    return len(__import__("co" + "decs").utf_8_encode(chr(code_point))[0])
def import_inside(code_point):
    import _codecs
    return len(_codecs.utf_8_encode(chr(code_point))[0])
def aliased_decoder(ids):
    return c.utf_8_decode(array("B", ids), "strict", True)[0], len(ids)
def encode(code_point):  # the learner's own encoder, named as the chapter names its own
    if code_point > 0x10FFFF:
        raise ValueError("utf-8 has no such character")
    return [0] * by_hand(code_point)
def by_own_encode(code_point):
    return len(encode(code_point))
def by_hand(code_point):
    if code_point > 0x10FFFF:
        raise ValueError("utf-8 has no such character")
    return 1 if code_point < 0x80 else 2 if code_point < 0x800 else 3 if code_point < 0x10000 else 4
"""


def test_the_codec_is_refused_by_its_other_routes_and_a_message_naming_it_is_not(capsys):
    space = notebook_functions(CODEC_ROUTES)
    refused = ["constructor", "other_spelling", "module", "global_name", "default"]
    refused += ["imported_function", "aliased_module", "method_held_in_a_global"]
    for name in refused + ["imported_by_name", "import_inside"]:
        out = line(capsys, ch01.check, "utf8_length", space[name])
        assert "0/2 points" in out and ch01.CODEC_SAYS in out, name
    for name in ["default_encoding", "bytes_literal", "aliased_decoder"]:
        out = line(capsys, ch01.check, "decode_prefix", space[name])
        assert "0/3 points" in out and ch01.CODEC_SAYS in out, name
    for name in ["by_hand", "by_own_encode"]:  # a notebook function named encode is judged
        assert line(capsys, ch01.check, "utf8_length", space[name]).startswith("✔"), name


def test_a_slip_costs_only_its_group(tmp_path):
    def zero_for_empty(text, max_bytes):  # only the empty text within a limit tells
        return ch01.truncate_graphemes_reference(text, max_bytes) if text or max_bytes < 0 else "0"

    def encode_with_wrong_error(code_point):
        try:
            return ch01.encode_code_point_reference(code_point)
        except ValueError:
            if code_point == -0x80:  # only the group "errors" has it
                return []
            raise

    half = dict(RIGHT, truncate_graphemes=zero_for_empty)
    half["encode_code_point"] = encode_with_wrong_error
    tasks = ch01.judge_tasks(random.Random(4))
    points = grade_locally(tasks, half, tmp_path)
    assert points == {
        **{name: spec.points for name, spec in BY_NAME.items()},
        "truncate_graphemes": 3,
        "encode_code_point": 2,
    }


def test_unattempted_answers_earn_nothing_from_the_judge(tmp_path):
    def unattempted(*args):
        raise NotImplementedError()

    tasks = ch01.judge_tasks(random.Random(3))
    assert set(grade_locally(tasks, dict.fromkeys(RIGHT, unattempted), tmp_path).values()) == {0}


@given(st.integers(0, 0x10FFFF).filter(lambda cp: not 0xD800 <= cp <= 0xDFFF))
def test_the_bit_layout_of_the_slips_is_utf8_when_no_slip_is_made(code_point):
    assert ch01._bits(code_point) == ch01.encode_code_point_reference(code_point)
    assert ch01.utf8_length_reference(code_point) == len(ch01._bits(code_point))


@given(st.lists(st.integers(0, 255), max_size=12))
def test_the_decoder_by_hand_agrees_with_the_codec_without_slips(ids):
    assert ch01._decode_by_hand(ids) == ch01.decode_prefix_reference(ids)


@given(st.text(max_size=12), st.integers(-2, 40))
def test_truncate_keeps_the_longest_prefix_that_fits(text, max_bytes):
    if max_bytes < 0:
        return
    kept = ch01.truncate_reference(text, max_bytes)
    assert text.startswith(kept) and len(kept.encode()) <= max_bytes
    assert kept == text or len(text[: len(kept) + 1].encode()) > max_bytes


# --- Wrong answers readers wrote (a review of the exercises): one grade on seeds 1-20 each,
# below full points, and only the parts each breaks are lost.


def length_by_hand(code_point):
    return 1 if code_point < 0x80 else 2 if code_point < 0x800 else 3 if code_point < 0x10000 else 4


def length_boundaries_inclusive(code_point):
    """0x80, 0x800 and 0x10000 land in the shorter form."""
    return (
        1 if code_point <= 0x80 else 2 if code_point <= 0x800 else 3 if code_point <= 0x10000 else 4
    )


def length_ffff_is_four(code_point):
    return 1 if code_point < 0x80 else 2 if code_point < 0x800 else 3 if code_point < 0xFFFF else 4


def length_from_bits(code_point):
    """(bits + 4) // 5 after ASCII: 11 and 16 bits get one byte too many."""
    bits = code_point.bit_length()
    return 1 if bits <= 7 else min(4, (bits + 4) // 5)


def encoder(refuses, reverse=False):
    """An encoder by hand that raises ValueError when refuses(code_point)."""

    def encode_code_point(code_point):
        if refuses(code_point):
            raise ValueError(code_point)
        n = length_by_hand(code_point)
        if n == 1:
            return [code_point]
        tail = []
        for _ in range(n - 1):
            tail.append(0x80 | code_point & 0x3F)
            code_point >>= 6
        return [{2: 0xC0, 3: 0xE0, 4: 0xF0}[n] | code_point] + (tail if reverse else tail[::-1])

    return encode_code_point


def not_scalar(code_point):
    return not 0 <= code_point <= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF


def truncate_stops_at_equal(text, max_bytes):
    if max_bytes < 0:
        raise ValueError(max_bytes)
    used = 0
    for i, ch in enumerate(text):
        used += length_by_hand(ord(ch))
        if used >= max_bytes:
            return text[:i]
    return text


def truncate(text, max_bytes, smallest=0):
    """Right, but refusing a max_bytes below smallest (a negative one is let through when
    smallest is None)."""
    if smallest is not None and max_bytes < smallest:
        raise ValueError(max_bytes)
    used = 0
    for i, ch in enumerate(text):
        used += length_by_hand(ord(ch))
        if used > max_bytes:
            return text[:i]
    return text


def truncate_skipping(text, max_bytes):
    """Not a prefix: skips a character that does not fit and keeps smaller ones after it."""
    if max_bytes < 0:
        raise ValueError(max_bytes)
    out, used = [], 0
    for ch in text:
        if used + length_by_hand(ord(ch)) <= max_bytes:
            out.append(ch)
            used += length_by_hand(ord(ch))
    return "".join(out)


SMALLEST = {1: 0, 2: 0x80, 3: 0x800, 4: 0x10000}


def decoder(lead_max=0xF8, is_tail=lambda b: b & 0xC0 == 0x80, top=0x10FFFF, **skip):
    """A decoder by hand as readers wrote it: leads below lead_max start four bytes, is_tail
    tests a following byte, top is the largest code point; skip lets overlong forms or
    surrogates through, or takes a character ending at the last byte as cut short."""

    def decode_prefix(ids):
        chars, i = [], 0
        while i < len(ids):
            lead = ids[i]
            if lead < 0x80:
                n, cp = 1, lead
            elif 0xC0 <= lead < 0xE0:
                n, cp = 2, lead & 0x1F
            elif 0xE0 <= lead < 0xF0:
                n, cp = 3, lead & 0x0F
            elif 0xF0 <= lead < lead_max:
                n, cp = 4, lead & 0x07
            else:
                break
            if i + n > len(ids) or (skip.get("last") and n > 1 and i + n == len(ids)):
                break
            if not all(is_tail(b) for b in ids[i + 1 : i + n]):
                break
            for b in ids[i + 1 : i + n]:
                cp = (cp << 6) | (b & 0x3F)
            overlong = cp < SMALLEST[n] and not skip.get("overlong")
            surrogate = 0xD800 <= cp <= 0xDFFF and not skip.get("surrogates")
            if overlong or surrogate or cp > top:
                break
            chars.append(chr(cp))
            i += n
        return "".join(chars), i

    return decode_prefix


def grapheme_cut(split=lambda text: regex.findall(r"\X", text), negative=True, skip=False):
    """A cut at graphemes as split finds them; negative: a negative limit raises; skip: a
    grapheme that does not fit is skipped, not the end."""

    def truncate_graphemes(text, max_bytes):
        if negative and max_bytes < 0:
            raise ValueError(max_bytes)
        out, used = [], 0
        for g in split(text):
            cost = len(g.encode("utf-8"))
            if used + cost > max_bytes:
                if skip:
                    continue
                break
            out.append(g)
            used += cost
        return "".join(out)

    return truncate_graphemes


def homemade_clusters(text):
    """A character and its combining marks, and ZWJ sequences: no flags, skin tones, CR LF or
    Hangul jamo."""
    clusters = []
    for ch in text:
        if clusters and (
            unicodedata.category(ch).startswith("M")
            or ch == "\u200d"
            or clusters[-1][-1] == "\u200d"
        ):
            clusters[-1] += ch
        else:
            clusters.append(ch)
    return clusters


def graphemes_of_cut_only(text, max_bytes):
    """Drops the last grapheme whenever the cut was not the whole text."""
    cut = ch01.truncate_reference(text, max_bytes)
    return text if cut == text else "".join(regex.findall(r"\X", cut)[:-1])


def graphemes_by_set(text, max_bytes):
    """Cuts after a character that is one of the text's graphemes: the e of "the" looks like
    a whole grapheme everywhere."""
    if max_bytes < 0:
        raise ValueError(max_bytes)
    whole = set(regex.findall(r"\X", text))
    kept = used = 0
    for index, ch in enumerate(text):
        used += len(ch.encode("utf-8"))
        if used > max_bytes:
            break
        if text[kept : index + 1] in whole:
            kept = index + 1
    return text[:kept]


WRONG_ANSWERS = [  # (task, answer, the parts it loses)
    ("utf8_length", length_boundaries_inclusive, ALL),
    ("utf8_length", length_ffff_is_four, ALL),
    ("utf8_length", length_from_bits, ALL),
    ("encode_code_point", encoder(lambda cp: not 0 <= cp <= 0x10FFFF), ("errors",)),
    (
        "encode_code_point",
        encoder(lambda cp: cp < 0 or cp > 0x10FFFF or 0xD800 < cp < 0xDFFF),
        ("errors",),
    ),
    ("encode_code_point", encoder(not_scalar, reverse=True), ALL),
    ("encode_code_point", encoder(lambda cp: cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF), ("errors",)),
    ("truncate_utf8", truncate_stops_at_equal, ALL),
    ("truncate_utf8", lambda text, max_bytes: truncate(text, max_bytes, None), ("errors",)),
    ("truncate_utf8", lambda text, max_bytes: truncate(text, max_bytes, 1), ("errors",)),
    ("truncate_utf8", truncate_skipping, ALL),
    ("decode_prefix", decoder(overlong=True), ALL),
    ("decode_prefix", decoder(surrogates=True), ALL),
    ("decode_prefix", decoder(lead_max=0x100), ("invalid bytes",)),
    ("decode_prefix", decoder(last=True), ALL),
    ("decode_prefix", decoder(top=0x10FFFE), ("valid and cut",)),
    ("decode_prefix", decoder(is_tail=lambda b: b >= 0x80), ("invalid bytes", "random damage")),
    ("truncate_graphemes", grapheme_cut(negative=False), ("errors",)),
    ("truncate_graphemes", grapheme_cut(split=homemade_clusters), ALL),
    ("truncate_graphemes", grapheme_cut(skip=True), ALL),
    ("truncate_graphemes", graphemes_of_cut_only, ALL),
    ("truncate_graphemes", graphemes_by_set, ALL),
]


@pytest.mark.parametrize("name, answer, lost", WRONG_ANSWERS)
def test_a_readers_wrong_answer_gets_one_grade_and_loses_only_what_it_breaks(name, answer, lost):
    spec = BY_NAME[name]
    assert grades_on_seeds(spec, answer) == grade_losing(spec, lost)
