"""Chapter 06's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, answers written as a learner writes them, partial credit by group, the
rule that ranks are loaded by name in the kernel, hints that never give the answer, and the
references' own properties."""

from __future__ import annotations

from collections import OrderedDict

import pytest
import regex
from check_helpers import line, same_grade_below_full

from book.checks import ch06
from book.checks.ch06 import (
    DIGITS_RIGHT_REFERENCE,
    digits_right_reference,
    encode_lru_reference,
    first_crossings_reference,
)
from book.tokenizers.bpe.core import merge_lowest_rank
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


# --- wrong answers found in review (and issue 28's), each as a learner wrote it ----------------


def digits_right_decimal_lookahead(text):
    """Groups category N but stops the run at the first character that is not a decimal digit
    (?!\\d): 12½3 becomes 12 + ½3, where the run is 1 + 2½3."""
    number = r"\p{N}{1,3}(?=(?:\p{N}{3})*(?!\d))"
    return regex.findall(CL100K_PATTERN.replace(r"\p{N}{1,3}+", number), text)


def digits_right_word_boundary(text):
    """Ends a number at a word boundary: 12345abc has none after the digits."""
    number = r"\p{N}{1,3}(?=(?:\p{N}{3})*\b)"
    return regex.findall(CL100K_PATTERN.replace(r"\p{N}{1,3}+", number), text)


def digits_right_isnumeric(text):
    """cl100k's chunks, runs of str.isnumeric() chunks regrouped from the right: 五 is numeric
    to Python but a letter (Lo) to \\p{N}, so 五1234 is cut as a number."""
    chunks, run = [], ""
    for chunk in [*regex.findall(CL100K_PATTERN, text), None]:
        if chunk is not None and chunk.isnumeric():
            run += chunk
            continue
        if run:
            head = len(run) % 3 or 3
            chunks += [run[:head]] + [run[i : i + 3] for i in range(head, len(run), 3)]
            run = ""
        if chunk is not None:
            chunks.append(chunk)
    return chunks


def first_crossings_fullmatch(merges, pattern):
    """Takes "cut" to mean that the pattern does not match the whole token: under cl100k,
    [^\\r\\n\\p{L}\\p{N}]?+\\p{L}++ matches 'tis whole, which the pattern cuts after 't."""

    def cut(token):
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return regex.fullmatch(pattern, text) is None

    return [r for r, (a, b) in enumerate(merges) if cut(a + b) and not cut(a) and not cut(b)]


def encode_lru_evicting_first(text, merges, pattern, capacity):
    """Right for a capacity of 1 or more; evicts before storing, so at capacity 0 it pops
    from an empty cache (KeyError)."""
    ranks = {pair: rank for rank, (pair, _count) in enumerate(merges)}
    cache, ids, hits = OrderedDict(), [], 0
    for chunk in regex.findall(pattern, text):
        if chunk in cache:
            hits += 1
            cache.move_to_end(chunk)
            ids += cache[chunk]
            continue
        out = merge_lowest_rank(list(chunk.encode("utf-8")), ranks)
        ids += out
        if len(cache) >= capacity:
            cache.popitem(last=False)
        cache[chunk] = out
    return ids, hits


# (spec, answer, the part it breaks: None when it breaks the central computation, all of it)
WRONG = [
    (ch06.DIGITS_RIGHT, digits_right_decimal_lookahead, None),
    (ch06.DIGITS_RIGHT, digits_right_word_boundary, None),
    (ch06.DIGITS_RIGHT, digits_right_isnumeric, None),
    (ch06.FIRST_CROSSINGS, first_crossings_fullmatch, None),
    (ch06.ENCODE_LRU, encode_lru_evicting_first, "the examples"),
]


@pytest.mark.parametrize("spec, answer, broken", WRONG, ids=[w[1].__name__ for w in WRONG])
def test_a_wrong_answer_gets_the_same_grade_below_full_on_every_seed(spec, answer, broken):
    same_grade_below_full(spec, answer, broken)
