"""Chapter 06's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, answers written as a learner writes them, partial credit by group, the
rule that ranks are loaded by name in the kernel, hints that never give the answer, and the
references' own properties."""

from __future__ import annotations

import regex
from check_helpers import line

from book.checks import ch06
from book.checks.ch06 import (
    DIGITS_RIGHT_REFERENCE,
    digits_right_reference,
    encode_lru_reference,
    first_crossings_reference,
)
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN


def test_right_answers_pass(capsys):
    for spec in ch06.SPECS:
        assert line(capsys, ch06.check, spec.name, spec.reference).startswith(f"✔ {spec.name}")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch06.check, "first_crossings", not_yet)
    assert "not defined" in line(capsys, ch06.check, "digits_right", None)


def test_hints_never_hold_the_answer():
    for spec in ch06.SPECS:
        says = [spec.hint, *(mistake.says for mistake in spec.mistakes)]
        for text in says:
            assert "\\p{" not in text and "(?" not in text and "popitem" not in text, text
            assert "move_to_end" not in text and "min(" not in text, text


def test_digits_right_groups_thousands():
    assert digits_right_reference("1234567 12,345") == ["1", "234", "567", " ", "12", ",", "345"]
    assert regex.findall(DIGITS_RIGHT_REFERENCE, "x") == regex.findall(CL100K_PATTERN, "x")


def test_first_crossings_names_only_the_first():
    merges = [(b"e", b" "), (b"e ", b"t"), (b"\xd0", b"\xb0"), (b"\xd0", b"a"), (b"a", b" ")]
    assert first_crossings_reference(merges, GPT2_PATTERN) == [0, 4]


def test_lru_hits_and_eviction():
    assert encode_lru_reference(" a b a c a", [], GPT2_PATTERN, 2) == (
        list(b" a b a c a"),
        2,
    )
    assert encode_lru_reference(" a b c a", [], GPT2_PATTERN, 2)[1] == 0
    assert encode_lru_reference(" a a", [], GPT2_PATTERN, 0)[1] == 0
