"""Chapter 04's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, more wrong answers
that lose points, and the references' own properties (the 'ids' rule is Hugging Face's)."""

import json
import random

import pytest
from check_helpers import line
from hypothesis import given
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from book.checks import ch04
from book.checks.ch04 import (
    decode_fallback_reference,
    encode_fallback_reference,
    merge_and_save_reference,
    tie_losers_reference,
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
    assert "not defined" in line(capsys, ch04.check, "tie_losers", None)


def capped_train(freqs, num_merges, end_of_word="</w>", tie_break="first"):
    """Right, except that it never learns more than 20 merges (a slip, not a known mistake)."""
    return train_reference(freqs, min(num_merges, 20), end_of_word, tie_break)


def test_a_slip_costs_only_its_group(capsys):
    text = line(capsys, ch04.check, "train_bpe", capped_train)
    assert "groups passed: ties, random corpora; failed: the walkthroughs" in text
    assert text.endswith("— 2/3 points\n")


def test_the_judge_gives_half_right_answers_part_of_the_points():
    half = dict(RIGHT, train_bpe=capped_train, tie_losers=ch04.TIE_LOSERS.mistakes[1].function)
    tasks = ch04.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "merge_and_save": 2,
        "train_bpe": 2,
        "tie_losers": 0,
        "encode_fallback": 2,
        "decode_fallback": 2,
        "wrong_counts": 2,
    }
    assert "after the winner is merged" in grades["tie_losers"].message
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
    text = line(capsys, ch04.check, "tie_losers", lambda f, n, eow="</w>": [])
    assert "expected [(" in text and "(0 items, not " in text


@pytest.mark.parametrize(
    "task, wrong",
    [
        ("merge_and_save", lambda s, f, p: ({w: list(t) for w, t in merge_pair(s, p).items()}, 0)),
        ("train_bpe", lambda f, n, eow="</w>", tb="first": train_reference(f, n, eow, tb)[:-1]),
        ("tie_losers", lambda f, n, eow="</w>": tie_losers_reference(f, n, "</w>")),
        ("tie_losers", lambda f, n, eow="</w>": tie_losers_reference(f, n + 5, eow)),
        (
            "encode_fallback",
            lambda t, m, a: [x.lower() for x in encode_fallback_reference(t, m, a)],
        ),
        ("decode_fallback", lambda tokens: decode_fallback_reference(tokens) + " "),
        ("wrong_counts", lambda claimed, freqs, eow, merges: [(("w", "e"), 8)]),
        (
            "wrong_counts",
            lambda claimed, freqs, eow, merges: dict(
                wrong_counts_reference(claimed, freqs, eow, merges)
            ),
        ),
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


def test_the_three_tie_breaks():
    freqs = {"ab": 2, "ba": 2, "cd": 1}
    assert train_reference(freqs, 1, None, "first") == [(("a", "b"), 2)]
    assert train_reference(freqs, 1, None, "lexicographic") == [(("b", "a"), 2)]
    assert train_reference(ch04.CS336, 3, None, "lexicographic")[-1][0] == ("BA", "A")
    # ids: a 0, b 1, </w> 2, so ('a', 'b') = (0, 1) is smallest; as strings '</w>' < 'b'
    assert train_reference(ch04.MARKER_LAST, 1, "</w>", "ids") == [(("a", "b"), 1)]
    with pytest.raises(ValueError):
        train_reference(freqs, 1, None, "greatest")


def hugging_face_merges(freqs: dict[str, int], num_merges: int) -> list[tuple[str, str]]:
    """The merges of tokenizers' BpeTrainer on the words, no marker, no minimum count."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    alphabet = sorted(set("".join(freqs)))
    trainer = trainers.BpeTrainer(vocab_size=len(alphabet) + num_merges, show_progress=False)
    words = [word for word, n in freqs.items() for _ in range(n)]
    random.Random(0).shuffle(words)  # its rule does not depend on the order of the words
    tokenizer.train_from_iterator([" ".join(words)], trainer)
    return [tuple(merge) for merge in json.loads(tokenizer.to_str())["model"]["merges"]]


def test_the_ids_rule_is_hugging_faces():
    rng = random.Random(1)
    for _ in range(100):
        freqs = ch04._random_freqs(rng)
        num_merges = rng.randint(1, 15)
        ours = [pair for pair, _ in train_reference(freqs, num_merges, None, "ids")]
        assert ours == hugging_face_merges(freqs, num_merges), freqs


def test_tie_losers_on_the_course_corpus():
    # rank 1: u n wins over n </w>, which it removes; rank 3: h ug wins, ug </w> keeps pug's 5
    assert tie_losers_reference(ch04.HUG, 6) == [(1, ("n", "</w>"), 0), (3, ("ug", "</w>"), 5)]
    assert tie_losers_reference({"ab": 3}, 5, None) == []


def test_wrong_counts_reference_keeps_absent_pairs_and_replays_merges():
    assert wrong_counts_reference({("q", "z"): 1}, {"ab": 1}, None, []) == [(("q", "z"), 0)]
    claimed = {("a", "b"): 1, ("ab", "c"): 1}
    assert wrong_counts_reference(claimed, {"abc": 1}, None, [(("a", "b"), 1)]) == [(("a", "b"), 0)]


@given(st.lists(st.text(min_size=1).map(lambda s: "".join(s.split())).filter(bool)))
def test_byte_fallback_round_trips_any_text(words):
    merges = train_reference({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    alphabet = sorted(set("lowernstid"))
    text = " ".join(words)
    assert decode_fallback_reference(encode_fallback_reference(text, merges, alphabet)) == text
