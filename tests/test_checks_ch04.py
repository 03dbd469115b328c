"""Chapter 04's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, more wrong answers
that lose points, and the references' own properties (the 'ids' rule is Hugging Face's)."""

import json
import random
import re
import unicodedata

import pytest
from check_helpers import assert_loses_only, line
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
    assert "groups passed: ties, random corpora, errors; failed: the walkthroughs" in text
    assert text.endswith("— 3/4 points\n")


def test_the_judge_gives_half_right_answers_part_of_the_points():
    half = dict(RIGHT, train_bpe=capped_train, tie_losers=ch04.TIE_LOSERS.mistakes[1].function)
    tasks = ch04.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "merge_and_save": 2,
        "train_bpe": 3,
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
    assert "0/4 points" in text


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


# The review's wrong answers (issue 28): each as its student wrote it, with the exercise's
# helpers (spell, count_pairs, merge_word), and what it gets wrong.


def spell(word_freqs, end_of_word="</w>"):
    end = () if end_of_word is None else (end_of_word,)
    return {word: (*word, *end) for word in word_freqs}


def count_pairs(splits, word_freqs):
    counts = {}
    for word, freq in word_freqs.items():
        symbols = splits[word]
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def merge_word(symbols, pair):
    merged, i = [], 0
    while i < len(symbols):
        if symbols[i : i + 2] == pair:
            merged.append(pair[0] + pair[1])
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return tuple(merged)


def save_counted(splits, word_freqs, pair):
    saved = count_pairs(splits, word_freqs).get(pair, 0)
    return {w: merge_word(s, pair) for w, s in splits.items()}, saved


def save_in_place(splits, word_freqs, pair):
    saved = 0
    for word, symbols in splits.items():
        merged = merge_word(symbols, pair)
        saved += word_freqs[word] * (len(symbols) - len(merged))
        splits[word] = merged
    return splits, saved


def save_unweighted(splits, word_freqs, pair):
    new_splits, saved = {}, 0
    for word, symbols in splits.items():
        new_splits[word] = merge_word(symbols, pair)
        saved += len(symbols) - len(new_splits[word])
    return new_splits, saved


def _train(check="at once", left_only=False, marker_sorted=False):
    """The students' train_bpe: when the rule is checked ('at once', or 'at a tie'), 'ids'
    comparing the left ids only, the marker sorted among the characters."""

    def train_bpe(word_freqs, num_merges, end_of_word="</w>", tie_break="first"):
        if check == "at once" and tie_break not in ("first", "lexicographic", "ids"):
            raise ValueError(f"unknown tie_break {tie_break!r}")
        splits = spell(word_freqs, end_of_word)
        marker = [] if end_of_word is None else [end_of_word]
        chars = sorted(set("".join(word_freqs)))
        ids = {}
        for token in sorted(chars + marker) if marker_sorted else chars + marker:
            ids.setdefault(token, len(ids))
        merges = []
        for _ in range(num_merges):
            counts = count_pairs(splits, word_freqs)
            if not counts:
                break
            top = max(counts.values())
            tied = [p for p, c in counts.items() if c == top]
            if len(tied) == 1 or tie_break == "first":
                best = tied[0]
            elif tie_break == "lexicographic":
                best = max(tied)
            elif tie_break == "ids":
                best = min(tied, key=lambda p: ids[p[0]] if left_only else (ids[p[0]], ids[p[1]]))
            else:
                raise ValueError(f"unknown tie_break {tie_break!r}")
            merges.append((best, top))
            ids.setdefault(best[0] + best[1], len(ids))
            splits = {w: merge_word(s, best) for w, s in splits.items()}
        return merges

    return train_bpe


def _losers(count="after", order=list, keep_vanished=True):
    """The students' tie_losers: the count taken 'before' or 'after' the merge, the order of
    the losers of a rank, whether a loser that no longer occurs is kept."""

    def tie_losers(word_freqs, num_merges, end_of_word="</w>"):
        splits = spell(word_freqs, end_of_word)
        out = []
        for rank in range(num_merges):
            counts = count_pairs(splits, word_freqs)
            if not counts:
                break
            top = max(counts.values())
            tied = [p for p, c in counts.items() if c == top]
            splits = {w: merge_word(s, tied[0]) for w, s in splits.items()}
            after = count_pairs(splits, word_freqs)
            for p in order(tied[1:]):
                if keep_vanished or p in after:
                    out.append((rank, p, counts[p] if count == "before" else after.get(p, 0)))
        return out

    return tie_losers


def _encode(byte=lambda b: f"<0x{b:02X}>", words=str.split, marker_last=False, nfc=False):
    """The students' encode_fallback: how a byte is written, how the text is cut into words,
    the marker added after the merges, the text NFC-normalised first."""

    def encode_fallback(text, merges, alphabet):
        known, out = set(alphabet), []
        text = unicodedata.normalize("NFC", text) if nfc else text
        for word in words(text):
            symbols = []
            for ch in word:
                if ch in known:
                    symbols.append(ch)
                else:
                    symbols.extend(byte(b) for b in ch.encode("utf-8"))
            symbols = tuple(symbols) + (() if marker_last else ("</w>",))
            for pair, _count in merges:
                symbols = merge_word(symbols, tuple(pair))
            out.extend(symbols + (("</w>",) if marker_last else ()))
        return out

    return encode_fallback


def _decode(is_byte=re.compile(r"<0x[0-9A-F]{2}>").fullmatch, errors="strict", end="one"):
    """The students' decode_fallback: which tokens are bytes, the decoding's errors, and what
    is dropped at the end ('one' space, 'strip', or the marker replaced after decoding)."""

    def decode_fallback(tokens):
        data = bytearray()
        for t in tokens:
            if is_byte(t):
                data.append(int(t[3:5], 16))
            else:
                data.extend((t if end == "late" else t.replace("</w>", " ")).encode("utf-8"))
        text = bytes(data).decode("utf-8", errors=errors)
        if end == "strip":
            return text.strip()
        text = text.replace("</w>", " ") if end == "late" else text
        return text[:-1] if text.endswith(" ") else text

    return decode_fallback


def _counts(spelled=spell, replay=None, keep=lambda pair, counts: True):
    """The students' wrong_counts: how the words are spelled, which merges are replayed (None:
    the given ones), which wrong claims are kept."""

    def wrong_counts(claimed, word_freqs, end_of_word, merges):
        splits = spelled(word_freqs, end_of_word)
        for pair, _count in replay(word_freqs, merges, end_of_word) if replay else merges:
            splits = {w: merge_word(s, tuple(pair)) for w, s in splits.items()}
        counts = count_pairs(splits, word_freqs)
        return [
            (pair, counts.get(pair, 0))
            for pair, c in claimed.items()
            if keep(pair, counts) and counts.get(pair, 0) != c
        ]

    return wrong_counts


def counts_by_text_replacement(claimed, word_freqs, end_of_word, merges):
    """Issue 28's list: symbols joined with spaces, each merge a str.replace."""
    counts = {}
    for word, freq in word_freqs.items():
        text = " ".join(spell({word: freq}, end_of_word)[word])
        for (a, b), _ in merges:
            text = text.replace(a + " " + b, a + b)
        symbols = text.split(" ")
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return [(p, counts.get(p, 0)) for p, n in claimed.items() if counts.get(p, 0) != n]


ALL = ()  # every part lost
WRONG = [
    (ch04.MERGE_AND_SAVE, save_counted, ALL),
    (ch04.MERGE_AND_SAVE, save_in_place, ALL),
    (ch04.MERGE_AND_SAVE, save_unweighted, ALL),
    (ch04.TRAIN_BPE, _train(check="at a tie"), ("errors",)),
    (ch04.TRAIN_BPE, _train(left_only=True), ALL),
    (ch04.TRAIN_BPE, _train(marker_sorted=True), ALL),
    (ch04.TIE_LOSERS, _losers(count="before"), ALL),
    (ch04.TIE_LOSERS, _losers(order=sorted), ALL),
    (ch04.TIE_LOSERS, _losers(keep_vanished=False), ALL),
    (ch04.ENCODE_FALLBACK, _encode(byte=lambda b: f"<0x{b:02x}>"), ALL),
    (ch04.ENCODE_FALLBACK, _encode(words=lambda text: text.split(" ")), ALL),
    (ch04.ENCODE_FALLBACK, _encode(marker_last=True), ALL),
    (ch04.ENCODE_FALLBACK, _encode(nfc=True), ALL),
    (ch04.DECODE_FALLBACK, _decode(end="strip"), ALL),
    (ch04.DECODE_FALLBACK, _decode(errors="replace"), ALL),
    (
        ch04.DECODE_FALLBACK,
        _decode(is_byte=lambda t: t.startswith("<0x") and len(t) >= 6),
        ("examples",),
    ),
    (ch04.DECODE_FALLBACK, _decode(end="late"), ALL),
    # issue 28's list: <0x4a> taken for a byte; re.match, which reads <0x41>x as a byte
    (
        ch04.DECODE_FALLBACK,
        _decode(is_byte=re.compile(r"<0x[0-9A-Fa-f]{2}>").fullmatch),
        ("examples",),
    ),
    (ch04.DECODE_FALLBACK, _decode(is_byte=re.compile(r"<0x[0-9A-F]{2}>").match), ("examples",)),
    (ch04.WRONG_COUNTS, _counts(keep=lambda pair, counts: pair in counts), ALL),
    (ch04.WRONG_COUNTS, _counts(spelled=lambda freqs, end_of_word: spell(freqs)), ALL),
    (
        ch04.WRONG_COUNTS,
        _counts(replay=lambda freqs, merges, eow: _train()(freqs, len(merges), eow)),
        ALL,
    ),
    (ch04.WRONG_COUNTS, counts_by_text_replacement, ALL),
]


@pytest.mark.parametrize(
    "spec, answer, lost", WRONG, ids=[f"{s.name}-{i}" for i, (s, _, _) in enumerate(WRONG)]
)
def test_each_wrong_answer_of_the_review_loses_the_part_it_breaks_on_every_seed(spec, answer, lost):
    assert_loses_only(spec, answer, lost)
