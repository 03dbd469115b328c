"""The checks of chapter 01's exercises pass right answers and catch plausible wrong ones.

The wrong answers are the mistakes a reader makes with UTF-8: the single-byte range taken to
end at 255 instead of 127, surrogates treated as characters, characters counted instead of
bytes, a decoder that stops one byte late or accepts overlong forms, code points counted
instead of graphemes. The judge's tasks are graded here too, in this process: the model
solutions earn every point, unattempted answers none, and half-right answers part.
"""

import random

import pytest
import regex
from check_helpers import line, passes

from book import corpora
from book.checks import answers, ch01
from book.grading.calls import judge_in_process


def grade_locally(tasks, answers: dict, tmp_path) -> dict[str, int]:
    """{task: points} that the judge gives answers (name -> object), calls run in this process."""
    return {grade.task: grade.points for grade in judge_in_process(tasks, dict(answers))}


def utf8_length_right(code_point):
    return len(chr(code_point).encode("utf-8"))


def encode_code_point_right(code_point):
    if not 0 <= code_point <= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF:
        raise ValueError(f"{code_point:#x} is not a Unicode scalar value")
    return list(chr(code_point).encode("utf-8"))


def truncate_right(text, max_bytes):
    if max_bytes < 0:
        raise ValueError("negative")
    kept, used = "", 0
    for ch in text:
        used += utf8_length_right(ord(ch))
        if used > max_bytes:
            break
        kept += ch
    return kept


def decode_prefix_right(ids):
    """By hand, as the solution does: lead byte, continuation bytes, then the value's range."""
    chars, i = [], 0
    smallest = {1: 0, 2: 0x80, 3: 0x800, 4: 0x10000}
    while i < len(ids):
        lead = ids[i]
        n = 1 if lead < 0x80 else 2 if 0xC0 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4
        if 0x80 <= lead < 0xC0 or lead >= 0xF8:
            break
        tail = ids[i + 1 : i + n]
        if len(tail) < n - 1 or any(byte >> 6 != 0b10 for byte in tail):
            break
        code_point = lead & (0x7F >> (n - 1) if n > 1 else 0x7F)
        for byte in tail:
            code_point = code_point << 6 | byte & 0x3F
        if code_point < smallest[n] or 0xD800 <= code_point <= 0xDFFF or code_point > 0x10FFFF:
            break
        chars.append(chr(code_point))
        i += n
    return "".join(chars), i


def bytes_per_grapheme_right(text):
    if not text:
        raise ValueError("empty")
    return len(text.encode()) / len(regex.findall(r"\X", text))


RIGHT = {
    "utf8_length": utf8_length_right,
    "encode_code_point": encode_code_point_right,
    "truncate_utf8": truncate_right,
    "decode_prefix": decode_prefix_right,
    "bytes_per_grapheme": bytes_per_grapheme_right,
    "heaviest_per_grapheme": "Bengali",
    "grapheme_answer": "b",
}


def test_right_answers_pass(capsys):
    assert passes(capsys, ch01.check_utf8_length, utf8_length_right)
    assert passes(capsys, ch01.check_encode_code_point, encode_code_point_right)
    assert passes(capsys, ch01.check_truncate_utf8, truncate_right)
    assert passes(capsys, ch01.check_decode_prefix, decode_prefix_right)
    assert passes(capsys, ch01.check_graphemes, bytes_per_grapheme_right, "Bengali", "b")


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


def truncate_off_by_one(text, max_bytes):
    """Keeps a prefix only while it is strictly shorter than the limit."""
    return truncate_right(text, max_bytes - 1) if max_bytes > 0 else ""


def truncate_keeps_partial(text, max_bytes):
    """Cuts the bytes and lets the decoder replace the partial character."""
    return text.encode()[:max_bytes].decode("utf-8", errors="replace")


@pytest.mark.parametrize(
    "wrong, says",
    [
        (lambda text, max_bytes: text[:max_bytes], "characters"),  # counts characters
        (truncate_off_by_one, "exactly max_bytes bytes fits"),
        (truncate_keeps_partial, "never keep part of a character"),
        (lambda text, max_bytes: truncate_right(text, max(max_bytes, 0)), "negative"),
    ],
)
def test_truncate_utf8_catches_and_the_hint_names_the_mistake(capsys, wrong, says):
    out = line(capsys, ch01.check_truncate_utf8, wrong)
    assert out.startswith("✘") and says in out


def decode_one_late(ids):
    """Reports the index after the bad byte, not the bad character's first byte."""
    text, n = decode_prefix_right(ids)
    return text, min(n + 1, len(ids)) if n < len(ids) else n


def decode_accepting_overlong(ids):
    """Checks lengths and continuation bytes but not the value's range."""
    data = bytes(ids)
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError as error:
        if data[error.start] in (0xC0, 0xC1, 0xE0, 0xED, 0xF0, 0xF4):
            return data.decode("utf-8", errors="replace"), len(data)
        return data[: error.start].decode("utf-8"), error.start


@pytest.mark.parametrize(
    "wrong",
    [
        decode_one_late,
        decode_accepting_overlong,
        lambda ids: (bytes(ids).decode("utf-8", errors="ignore"), len(ids)),  # skips bad bytes
        lambda ids: ("".join(map(chr, ids)), len(ids)),  # bytes as Latin-1 characters
    ],
)
def test_decode_prefix_catches(capsys, wrong):
    assert not passes(capsys, ch01.check_decode_prefix, wrong)


def test_graphemes_catches_code_points_and_wrong_answers_without_revealing_them(capsys):
    def per_code_point(text):
        return len(text.encode()) / len(text)

    out = line(capsys, ch01.check_graphemes, per_code_point, "Bengali", "b")
    assert out.startswith("✘") and "not len(text)" in out
    out = line(capsys, ch01.check_graphemes, bytes_per_grapheme_right, "Japanese", "b")
    assert "heaviest_per_grapheme — expected 'right', got 'wrong'" in out and "Bengali" not in out
    out = line(capsys, ch01.check_graphemes, bytes_per_grapheme_right, "Bengali", "a")
    assert "grapheme_answer — expected 'right', got 'wrong'" in out
    out = line(capsys, ch01.check_graphemes, bytes_per_grapheme_right, "Bengali", "B")
    assert "one lower-case letter" in out


def test_the_measured_answers_are_what_the_passages_give():
    passages = corpora.parallel()
    per_grapheme = {name: bytes_per_grapheme_right(text) for name, text in passages.items()}
    per_code_point = {name: len(text.encode()) / len(text) for name, text in passages.items()}
    assert max(per_grapheme, key=per_grapheme.get) == ch01.heaviest_per_grapheme_reference()
    assert max(per_code_point, key=per_code_point.get) == "Japanese" != "Bengali"


def test_readable_labels_escape_combining_marks():
    assert answers.readable("cafe\u0301") == "'cafe\\u0301'" and answers.readable("é") == "'é'"
    assert answers.choice("c", "c") == "right" and answers.choice(3, "c").startswith("not one of")


@pytest.mark.parametrize("seed", [1, 2])
def test_the_judge_gives_the_solutions_full_marks(tmp_path, seed):
    tasks = ch01.judge_tasks(random.Random(seed))
    assert grade_locally(tasks, RIGHT, tmp_path) == {task.name: task.points for task in tasks}


def test_the_judge_gives_unattempted_answers_nothing(tmp_path):
    def unattempted(*args):
        raise NotImplementedError()

    answers = {name: unattempted for name in RIGHT}
    tasks = ch01.judge_tasks(random.Random(3))
    assert set(grade_locally(tasks, answers, tmp_path).values()) == {0}


def test_the_judge_gives_half_right_answers_part_of_the_points(tmp_path):
    half = dict(RIGHT, truncate_utf8=lambda text, n: text[:n], grapheme_answer="a")
    half["decode_prefix"] = lambda ids: (bytes(ids).decode(errors="ignore"), len(ids))
    tasks = ch01.judge_tasks(random.Random(4))
    points = grade_locally(tasks, half, tmp_path)
    assert points == {
        "utf8_length": 2,
        "encode_code_point": 3,
        "truncate_utf8": 0,
        "decode_prefix": 0,
        "graphemes": 0,
    }


def test_hidden_cases_catch_an_answer_written_for_the_visible_ones(tmp_path):
    visible = {args: truncate_right(*args) for args in ch01.TRUNCATE_CASES if args[1] >= 0}

    def memorised(text, max_bytes):
        if max_bytes < 0:
            raise ValueError("negative")
        return visible.get((text, max_bytes), text)

    tasks = [task for task in ch01.judge_tasks(random.Random(5)) if task.name == "truncate_utf8"]
    assert grade_locally(tasks, dict(RIGHT, truncate_utf8=memorised), tmp_path) == {
        "truncate_utf8": 0
    }
