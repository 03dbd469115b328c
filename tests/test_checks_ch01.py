"""Chapter 01's specs beyond the generic mutation test (tests/test_check_specs.py): the rule
"without Python's UTF-8 codec" enforced through the notebook's own helpers and on the codec's
other routes, partial credit by group, unattempted answers, and the references agreeing with
Python's codec.

``grade_locally`` is shared with the tests of other chapters' checks."""

import random

from check_helpers import line
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
    def zero_for_empty(text, max_bytes):  # only the empty text tells
        return ch01.truncate_graphemes_reference(text, max_bytes) if text else "0"

    def encode_with_wrong_error(code_point):
        try:
            return ch01.encode_code_point_reference(code_point)
        except ValueError:
            if code_point == -0x80:  # only the group "not characters" has it
                return []
            raise

    half = dict(RIGHT, truncate_graphemes=zero_for_empty)
    half["encode_code_point"] = encode_with_wrong_error
    tasks = ch01.judge_tasks(random.Random(4))
    points = grade_locally(tasks, half, tmp_path)
    assert points == {
        **{name: spec.points for name, spec in BY_NAME.items()},
        "truncate_graphemes": 2,
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
