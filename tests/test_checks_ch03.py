"""The checks of chapter 03's exercises pass right answers and catch plausible wrong ones.

The wrong answers are the mistakes a reader makes here: whitespace dropped or split into
single spaces, marks left out of words, characters counted instead of bytes, ties broken
alphabetically, a too-long word skipped instead of stopping, the input sorted in place, types
counted instead of tokens, the prefix off by one, the record kept for every token or for
none. The judge's tasks are graded in this process too: full marks for the model solutions,
none for unattempted answers, part for half-right ones.
"""

import random
from collections import Counter

import pytest
import regex
from check_helpers import line, passes
from hypothesis import given
from hypothesis import strategies as st
from test_checks_ch01 import grade_locally

from book import corpora
from book.checks import ch03
from book.tokenizers.basic.words import split_words

TOKEN = r"[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*|\p{N}+|\s+|[^\s\p{L}\p{M}\p{N}]"


def split_right(text):
    return regex.findall(TOKEN, text)


def budget_right(words, max_bytes):
    if max_bytes < 0:
        raise ValueError("negative")
    counts, vocab, used = Counter(words), [], 0
    for word in sorted(counts, key=lambda w: -counts[w]):
        used += len(word.encode())
        if used > max_bytes:
            break
        vocab.append(word)
    return vocab


def hapax_right(words, n):
    if n < 1 or not words:
        raise ValueError("nothing to read")
    counts = Counter(words[:n])
    once = [word for word, count in counts.items() if count == 1]
    return len(once) / len(counts), len(once) / len(words[:n])


def encode_folded_right(text, vocab):
    ids = [vocab.index(t.lower()) if t.lower() in vocab else len(vocab) for t in split_right(text)]
    record = [
        None if i < len(vocab) and vocab[i] == t else t for i, t in zip(ids, split_right(text))
    ]
    return ids, record


def decode_folded_right(ids, record, vocab):
    if len(ids) != len(record):
        raise ValueError("lengths differ")
    out = ""
    for token_id, kept in zip(ids, record):
        if token_id < 0 or token_id > len(vocab) or (kept is None and token_id == len(vocab)):
            raise ValueError("bad id")
        out += vocab[token_id] if kept is None else kept
    return out


def smallest_right(train_words, heldout_words, target):
    counts, held = Counter(train_words), Counter(heldout_words)
    ranked = sorted(counts, key=lambda word: -counts[word])
    unknown = len(heldout_words)
    for k in range(len(ranked) + 1):
        if unknown / len(heldout_words) <= target:
            return k
        if k < len(ranked):
            unknown -= held[ranked[k]]  # the word of rank k becomes known
    return None


def tail_shares_right():
    words = regex.findall(r"\p{L}+(?:'\p{L}+)*", corpora.english("all"))
    return [hapax_right(words, n) for n in (1_000, 10_000, len(words))]


RIGHT = {
    "split_keep_spaces": split_right,
    "vocab_under_budget": budget_right,
    "hapax_share": hapax_right,
    "tail_shares": tail_shares_right(),
    "tail_answer": "c",
    "encode_folded": encode_folded_right,
    "decode_folded": decode_folded_right,
    "smallest_vocab": smallest_right,
}


def test_right_answers_pass(capsys):
    assert passes(capsys, ch03.check_split_keep_spaces, split_right)
    assert passes(capsys, ch03.check_vocab_under_budget, budget_right)
    assert passes(capsys, ch03.check_hapax, hapax_right, tail_shares_right(), "c")
    assert passes(capsys, ch03.check_encode_decode_folded, encode_folded_right, decode_folded_right)
    assert passes(capsys, ch03.check_smallest_vocab, smallest_right)


@given(st.text())
def test_the_split_keeps_every_character_and_agrees_with_split_words(text):
    tokens = ch03.split_keep_spaces_reference(text)
    assert "".join(tokens) == text
    ids, record = ch03.encode_folded_reference(text, ch03.plays_lower_vocab())
    assert ch03.decode_folded_reference(ids, record, ch03.plays_lower_vocab()) == text
    if not any(0x1C <= ord(ch) <= 0x1F for ch in text):  # str.split's extra separators
        assert [t for t in tokens if not t.isspace()] == split_words(text)


def test_the_measured_shares_match_the_chapter():
    shares = ch03.tail_shares_reference()
    assert shares == tail_shares_right()
    words = [w for w in split_words(corpora.english("all")) if w[0].isalpha()]
    assert ch03.play_words() == words  # the chapter's Heaps' law words
    assert shares[-1][0] > 0.5 > 0.1 > shares[-1][1]  # what answer (c) says


@pytest.mark.parametrize(
    "wrong, says",
    [
        (lambda text: split_words(text), r"\s+ for a run of whitespace"),  # drops the spacing
        (lambda text: regex.findall(TOKEN.replace(r"\s+", r"\s"), text), "one token per run"),
        (lambda text: regex.findall(TOKEN.replace(r"\p{M}", ""), text), r"[\p{L}\p{M}]+"),
    ],
)
def test_split_keep_spaces_catches(capsys, wrong, says):
    out = line(capsys, ch03.check_split_keep_spaces, wrong)
    assert out.startswith("✘") and says in out


def budget_in_characters(words, max_bytes):
    counts, vocab, used = Counter(words), [], 0
    for word in sorted(counts, key=lambda w: -counts[w]):
        used += len(word)
        if used > max_bytes:
            break
        vocab.append(word)
    return vocab


def budget_skipping(words, max_bytes):
    """Skips a word that does not fit and tries the next ones."""
    counts, vocab, used = Counter(words), [], 0
    for word in sorted(counts, key=lambda w: -counts[w]):
        if used + len(word.encode()) <= max_bytes:
            vocab.append(word)
            used += len(word.encode())
    return vocab


def budget_alphabetical_ties(words, max_bytes):
    counts = Counter(words)
    ranked = sorted(counts, key=lambda w: (-counts[w], w))
    return budget_right([w for w in ranked for _ in range(counts[w])], max_bytes)


def budget_sorting_in_place(words, max_bytes):
    result = budget_right(words, max_bytes)
    words.sort()
    return result


@pytest.mark.parametrize(
    "wrong, says",
    [
        (budget_in_characters, "bytes, not characters"),
        (budget_skipping, "stop at the first word that does not fit"),
        (budget_alphabetical_ties, "ties by first occurrence"),
        (budget_sorting_in_place, "do not sort words in place"),
    ],
)
def test_vocab_under_budget_catches(capsys, wrong, says):
    out = line(capsys, ch03.check_vocab_under_budget, wrong)
    assert out.startswith("✘") and says in out


def hapax_types_for_tokens(words, n):
    """Divides the once-seen types by the number of types for both shares."""
    types, _ = hapax_right(words, n)
    return types, types


def hapax_off_by_one(words, n):
    return hapax_right(words, n + 1)


@pytest.mark.parametrize("wrong", [hapax_types_for_tokens, hapax_off_by_one])
def test_hapax_catches(capsys, wrong):
    assert not passes(capsys, ch03.check_hapax, wrong, tail_shares_right(), "c")


def test_hapax_answers_are_checked_without_revealing_them(capsys):
    out = line(capsys, ch03.check_hapax, hapax_right, [(0.5, 0.1)] * 3, "c")
    assert "tail_shares — expected 'right', got 'wrong'" in out and "0.548" not in out
    out = line(capsys, ch03.check_hapax, hapax_right, tail_shares_right(), "a")
    assert "tail_answer — expected 'right', got 'wrong'" in out


def encode_record_everything(text, vocab):
    ids, _ = encode_folded_right(text, vocab)
    return ids, split_right(text)


def encode_without_lowercasing(text, vocab):
    ids = [vocab.index(t) if t in vocab else len(vocab) for t in split_right(text)]
    return ids, [None if i < len(vocab) else t for i, t in zip(ids, split_right(text))]


def decode_joining_with_spaces(ids, record, vocab):
    pieces = [vocab[i] if kept is None else kept for i, kept in zip(ids, record)]
    return " ".join(pieces)


@pytest.mark.parametrize(
    "encode, decode",
    [
        (encode_record_everything, decode_folded_right),
        (encode_without_lowercasing, decode_folded_right),
        (encode_folded_right, decode_joining_with_spaces),
        (encode_folded_right, lambda ids, record, vocab: "".join(vocab[i] for i in ids)),
    ],
)
def test_encode_decode_folded_catches(capsys, encode, decode):
    assert not passes(capsys, ch03.check_encode_decode_folded, encode, decode)


def test_smallest_vocab_catches(capsys):
    assert not passes(capsys, ch03.check_smallest_vocab, lambda *args: 0)
    assert not passes(
        capsys, ch03.check_smallest_vocab, lambda t, h, target: smallest_right(t, h, target) or 0
    )


@pytest.mark.parametrize("seed", [1, 2])
def test_the_judge_gives_the_solutions_full_marks(tmp_path, seed):
    tasks = ch03.judge_tasks(random.Random(seed))
    assert grade_locally(tasks, RIGHT, tmp_path) == {task.name: task.points for task in tasks}


def test_the_judge_gives_unattempted_answers_nothing(tmp_path):
    def unattempted(*args):
        raise NotImplementedError()

    answers = {name: unattempted for name in RIGHT}
    tasks = ch03.judge_tasks(random.Random(3))
    assert set(grade_locally(tasks, answers, tmp_path).values()) == {0}


def test_the_judge_gives_half_right_answers_part_of_the_points(tmp_path):
    half = dict(RIGHT, vocab_under_budget=budget_in_characters, tail_answer="a")
    tasks = ch03.judge_tasks(random.Random(4))
    assert grade_locally(tasks, half, tmp_path) == {
        "split_keep_spaces": 3,
        "vocab_under_budget": 0,
        "hapax": 0,
        "encode_decode_folded": 3,
        "smallest_vocab": 2,
    }


def test_a_hidden_case_catches_a_budget_that_sorts_its_input(tmp_path):
    tasks = [t for t in ch03.judge_tasks(random.Random(5)) if t.name == "vocab_under_budget"]
    answers = dict(RIGHT, vocab_under_budget=budget_sorting_in_place)
    assert grade_locally(tasks, answers, tmp_path) == {"vocab_under_budget": 0}
