"""Chapter 03's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, the rule that
vocab_under_budget leaves its input alone, hints that never give the answer, and the
references' own properties."""

import random

from check_helpers import line
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.checks import ch03
from book.checks.ch03 import (
    decode_folded_reference,
    encode_folded_reference,
    hapax_share_reference,
    split_keep_spaces_reference,
)
from book.grading.calls import judge_in_process
from book.tokenizers.basic.words import split_words

RIGHT = {spec.name: spec.reference for spec in ch03.SPECS}


def test_right_answers_pass(capsys):
    for name, answer in RIGHT.items():
        assert line(capsys, ch03.check, name, answer).startswith(f"✔ {name}: all ")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch03.check, "hapax_share", not_yet)
    assert "not defined" in line(capsys, ch03.check, "split_keep_spaces", None)


def mistake(spec, says: str):
    """The known mistake of spec whose hint starts with says."""
    (found,) = [m.function for m in spec.mistakes if m.says.startswith(says)]
    return found


def test_a_split_with_backslash_w_is_named(capsys):
    says = "\\w matches digits and '_' too"
    text = line(capsys, ch03.check, "split_keep_spaces", mistake(ch03.SPLIT_KEEP_SPACES, says))
    assert "0/3 points" in text and says in text


def test_a_split_that_drops_what_it_does_not_match_is_named(capsys):
    """[0-9] drops the Arabic passage's digits and ½: the hint names it, not \\d's mistake."""
    says = "a number is not only 0 to 9"
    answer = mistake(ch03.SPLIT_KEEP_SPACES, says)
    assert "".join(answer("١٨٨٧ ½")) != "١٨٨٧ ½"
    text = line(capsys, ch03.check, "split_keep_spaces", answer)
    assert "0/3 points" in text and says in text


def test_a_budget_that_sorts_its_input_earns_nothing(capsys):
    def sorts_in_place(words, max_bytes):
        result = ch03.vocab_under_budget_reference(words, max_bytes)
        words.sort()
        return result

    text = line(capsys, ch03.check, "vocab_under_budget", sorts_in_place)
    assert "0/3 points" in text


def test_a_slip_on_errors_costs_only_its_group(capsys):
    def lenient(ids, record, vocab):
        return decode_folded_reference(ids[: len(record)], record[: len(ids)], vocab)

    text = line(capsys, ch03.check, "decode_folded", lenient)
    assert "groups passed: random records; failed: the examples" in text
    assert text.endswith("— 1/2 points\n")


def test_a_negative_id_costs_the_examples_group(capsys):
    """A decode that lets Python index a negative id from the end: [-1, 0] gives 'catthe'."""

    def from_the_end(ids, record, vocab):
        if len(ids) != len(record):
            raise ValueError("ids and record differ in length")
        for i, kept in zip(ids, record):
            if i > len(vocab) or (i == len(vocab) and kept is None):
                raise ValueError(f"id {i} names no token")
        return "".join(vocab[i] if kept is None else kept for i, kept in zip(ids, record))

    assert from_the_end([-1, 0], [None, None], ["the", " ", "cat"]) == "catthe"
    text = line(capsys, ch03.check, "decode_folded", from_the_end)
    assert "[a negative id: ValueError]" in text and text.endswith("— 1/2 points\n")


def test_hints_never_give_the_answer():
    for spec in ch03.SPECS:
        for text in [spec.hint, *(mistake.says for mistake in spec.mistakes)]:
            assert "\\p{" not in text and "\\s+" not in text, text
            assert "/ len(" not in text and "sorted(" not in text, text


def test_the_judge_gives_half_right_answers_part_of_the_points():
    half = dict(
        RIGHT,
        vocab_under_budget=mistake(ch03.VOCAB_UNDER_BUDGET, "the budget is in UTF-8 bytes"),
        best_additions=ch03.BEST_ADDITIONS.mistakes[0].function,
    )
    tasks = ch03.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "split_keep_spaces": 3,
        "vocab_under_budget": 0,
        "hapax_share": 3,
        "encode_folded": 3,
        "decode_folded": 2,
        "best_additions": 0,
    }
    assert "UTF-8 bytes, not characters" in grades["vocab_under_budget"].message
    assert "the chapter's way to grow the vocabulary" in grades["best_additions"].message


@given(st.text())
def test_the_split_keeps_every_character_and_agrees_with_split_words(text):
    tokens = split_keep_spaces_reference(text)
    assert "".join(tokens) == text
    vocab = ch03.FOLD_VOCAB
    assert decode_folded_reference(*encode_folded_reference(tokens, vocab), vocab) == text
    if not any(0x1C <= ord(ch) <= 0x1F for ch in text):  # str.split's extra separators
        assert [t for t in tokens if not t.isspace()] == split_words(text)


def test_the_tail_stays_after_all_three_plays():
    """What the ungraded question's model answer says: most types seen once, few tokens."""
    words = [w for w in split_words(corpora.english("all")) if w[0].isalpha()]
    types, tokens = hapax_share_reference(words, len(words))
    assert types > 0.5 > 0.1 > tokens
