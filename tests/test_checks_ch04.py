"""Chapter 04's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, more wrong answers
that lose points, and the references' own properties."""

import random

import pytest
from check_helpers import line
from hypothesis import given
from hypothesis import strategies as st

from book.checks import ch04
from book.checks.ch04 import (
    decode_fallback_reference,
    encode_fallback_reference,
    merge_and_save_reference,
    tie_ranks_reference,
    train_reference,
    wrong_counts_reference,
)
from book.grading.calls import judge_in_process
from book.tokenizers.bpe.char_bpe import merge_pair

RIGHT = {spec.name: spec.reference for spec in ch04.SPECS}


def test_right_answers_pass(capsys):
    for name, answer in RIGHT.items():
        assert line(capsys, ch04.check, name, answer).startswith(f"✔ {name}: all ")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch04.check, "train_bpe", not_yet)
    assert "not defined" in line(capsys, ch04.check, "tie_ranks", None)


def lenient_train(freqs, num_merges, end_of_word="</w>", tie_break="first"):
    """Right, except that an unknown rule trains with 'first' instead of raising."""
    rule = tie_break if tie_break in ("first", "lexicographic") else "first"
    return train_reference(freqs, num_merges, end_of_word, rule)


def test_a_slip_costs_only_its_group(capsys):
    text = line(capsys, ch04.check, "train_bpe", lenient_train)
    assert "groups passed: ties, random corpora; failed: the walkthroughs" in text
    assert "should raise ValueError" in text and text.endswith("— 2/3 points\n")


def test_the_judge_gives_half_right_answers_part_of_the_points():
    half = dict(RIGHT, train_bpe=lenient_train, tie_ranks=ch04.TIE_RANKS.mistakes[0].function)
    tasks = ch04.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "merge_and_save": 2,
        "train_bpe": 2,
        "tie_ranks": 0,
        "encode_fallback": 2,
        "decode_fallback": 2,
        "wrong_counts": 2,
    }
    assert "ranks count from 0" in grades["tie_ranks"].message
    assert "failed: the walkthroughs" in grades["train_bpe"].message


def test_the_hint_names_cs336s_joined_string_tie_break(capsys):
    joined = ch04.TRAIN_BPE.mistakes[0].function
    assert joined({"BA": 5, "ZZ": 5, "BAA": 3, "BZZ": 3}, 3, None, "lexicographic")[-1][0] == (
        "B",
        "ZZ",
    )
    text = line(capsys, ch04.check, "train_bpe", joined)
    assert "compares the joined strings (a + b), not the pairs" in text
    assert "0/3 points" in text


def test_a_failure_without_a_known_mistake_shows_the_first_difference(capsys):
    text = line(capsys, ch04.check, "tie_ranks", lambda f, n, eow="</w>": [])
    assert "expected [(" in text and "(0 items, not " in text


@pytest.mark.parametrize(
    "task, wrong",
    [
        ("merge_and_save", lambda s, f, p: ({w: list(t) for w, t in merge_pair(s, p).items()}, 0)),
        ("train_bpe", lambda f, n, eow="</w>", tb="first": train_reference(f, n, eow, tb)[:-1]),
        ("tie_ranks", lambda f, n, eow="</w>": tie_ranks_reference(f, n, "</w>")),
        ("tie_ranks", lambda f, n, eow="</w>": tie_ranks_reference(f, n + 5, eow)),
        (
            "encode_fallback",
            lambda t, m, a: [x.lower() for x in encode_fallback_reference(t, m, a)],
        ),
        ("decode_fallback", lambda tokens: decode_fallback_reference(tokens) + " "),
        ("wrong_counts", lambda claimed, freqs, eow: {("w", "e"): 8}),
    ],
)
def test_other_wrong_answers_lose_points(capsys, task, wrong):
    assert not line(capsys, ch04.check, task, wrong).startswith("✔")


def test_merge_and_save_must_not_change_its_input(capsys):
    def in_place(splits, freqs, pair):
        saved = merge_and_save_reference(splits, freqs, pair)[1]
        splits.update(merge_pair(splits, pair))
        return splits, saved

    text = line(capsys, ch04.check, "merge_and_save", in_place)
    assert "must not change" in text and "0/2 points" in text


def test_lexicographic_reference_is_cs336s_rule():
    freqs = {"ab": 2, "ba": 2, "cd": 1}
    assert train_reference(freqs, 1, None, "first") == [(("a", "b"), 2)]
    assert train_reference(freqs, 1, None, "lexicographic") == [(("b", "a"), 2)]
    assert train_reference(ch04.CS336, 3, None, "lexicographic")[-1][0] == ("BA", "A")


def test_wrong_counts_reference_keeps_absent_pairs():
    assert wrong_counts_reference({("q", "z"): 1}, {"ab": 1}, None) == {("q", "z"): 0}


@given(st.lists(st.text(min_size=1).map(lambda s: "".join(s.split())).filter(bool)))
def test_byte_fallback_round_trips_any_text(words):
    merges = train_reference({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    alphabet = sorted(set("lowernstid"))
    text = " ".join(words)
    assert decode_fallback_reference(encode_fallback_reference(text, merges, alphabet)) == text
