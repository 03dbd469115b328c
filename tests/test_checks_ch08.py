"""The checks of chapter 08's exercises pass right answers and catch plausible wrong ones.

The wrong answers are the mistakes a reader makes with real tokenizers: cutting the ids every
N tokens and decoding with errors='replace', an off-by-one in the limit, `encode` instead of
`encode_ordinary` (special tokens), characters counted instead of bytes (token lengths taken
from a replacing decode), partial tokens counted with errors='ignore', digit chunks from the
wrong end. The judge's tasks are graded in this process too: full marks for the model
solutions, none for unattempted answers, part for half-right ones.
"""

import random

import pytest
from check_helpers import line, passes
from hypothesis import given
from hypothesis import strategies as st
from test_checks_ch01 import grade_locally

from book import corpora
from book.checks import ch08
from book.encodings import get_encoding


def passages_right(text, encoding_name, max_tokens):
    """Greedy by decoding: back off while the passage's bytes are not whole characters."""
    if max_tokens < 1:
        raise ValueError("max_tokens < 1")
    enc = get_encoding(encoding_name)
    ids, passages, i = enc.encode_ordinary(text), [], 0

    def whole(j):
        try:
            enc.decode_bytes(ids[i:j]).decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False

    while i < len(ids):
        j = min(i + max_tokens, len(ids))
        while j > i and not whole(j):
            j -= 1
        if j == i:
            j = i + 1
            while not whole(j):
                j += 1
        passages.append(enc.decode(ids[i:j]))
        i = j
    return passages


def partial_right(text, encoding_name):
    """A token is a piece of a character when a replacing decode cannot give its bytes back."""
    enc = get_encoding(encoding_name)
    pieces = [enc.decode_single_token_bytes(i) for i in enc.encode_ordinary(text)]
    broken = [piece.decode("utf-8", errors="replace").encode() != piece for piece in pieces]
    return sum(broken) / len(pieces) if pieces else 0.0


def starts_right(text, encoding_name):
    """From the text: the character holding each token's first byte."""
    enc = get_encoding(encoding_name)
    char_of_byte = [k for k, ch in enumerate(text) for _ in ch.encode("utf-8")]
    starts, offset = [], 0
    for token_id in enc.encode_ordinary(text):
        starts.append(char_of_byte[offset])
        offset += len(enc.decode_single_token_bytes(token_id))
    return starts


def digits_right(digits, from_right=False):
    if from_right:
        return [digits[max(end - 3, 0) : end] for end in range(len(digits), 0, -3)][::-1]
    return [digits[i : i + 3] for i in range(0, len(digits), 3)]


def years_right():
    gpt2 = get_encoding("gpt2")
    return [year for year in range(1900, 2100) if len(gpt2.encode_ordinary(f" {year}")) > 1]


RIGHT = {
    "passages_by_tokens": passages_right,
    "partial_share": partial_right,
    "partial_top3": ["Amharic", "Korean", "Chinese"],
    "partial_answer": "b",
    "token_starts": starts_right,
    "digit_chunks": digits_right,
    "split_years": years_right(),
}


def test_right_answers_pass(capsys):
    assert passes(capsys, ch08.check_passages_by_tokens, passages_right)
    assert passes(capsys, ch08.check_partial_share, partial_right, RIGHT["partial_top3"], "b")
    assert passes(capsys, ch08.check_token_starts, starts_right)
    assert passes(capsys, ch08.check_digit_chunks, digits_right)
    assert passes(capsys, ch08.check_split_years, years_right())


PIECES = ["a", "b", " ", "1", "\n", "é", "日", "🌍", "👍🏽", "\u0301", "नमस्ते", "ሰ", "<|endoftext|>"]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=12)


@given(TEXTS, st.sampled_from(ch08.ENCODINGS), st.integers(1, 6))
def test_the_passages_reference_keeps_the_text_and_agrees_with_decoding(text, name, max_tokens):
    passages = ch08.passages_reference(text, name, max_tokens)
    assert "".join(passages) == text and all(passages)
    assert passages == passages_right(text, name, max_tokens)


@given(TEXTS, st.sampled_from(ch08.ENCODINGS))
def test_token_starts_by_bytes_match_the_text(text, name):
    assert ch08.token_starts_reference(text, name) == starts_right(text, name)


def test_the_question_answers_follow_from_the_numbers():
    passages = corpora.parallel()
    shares = {n: partial_right(t, "o200k_base") for n, t in passages.items()}
    assert ch08.partial_top3_reference() == sorted(shares, key=shares.get, reverse=True)[:3]
    # (b): Amharic mostly pieces, every other language mostly whole characters
    assert shares["Amharic"] > 0.5 and max(v for n, v in shares.items() if n != "Amharic") < 0.5
    assert ch08.split_years_reference() == years_right()


def passages_every_n(text, encoding_name, max_tokens):
    """Cuts every max_tokens ids and decodes each slice with errors='replace'."""
    enc = get_encoding(encoding_name)
    ids = enc.encode_ordinary(text)
    return [enc.decode(ids[i : i + max_tokens]) for i in range(0, len(ids), max_tokens)]


def passages_one_short(text, encoding_name, max_tokens):
    return passages_right(text, encoding_name, max(max_tokens - 1, 1)) if max_tokens > 0 else 1 / 0


def passages_with_specials(text, encoding_name, max_tokens):
    """encode, not encode_ordinary: raises on the text of a special token."""
    enc = get_encoding(encoding_name)
    enc.encode(text)
    return passages_right(text, encoding_name, max_tokens)


@pytest.mark.parametrize(
    "wrong, says",
    [
        (passages_every_n, "give tokens back"),
        (passages_one_short, "at most max_tokens"),
        (passages_with_specials, "encode_ordinary"),
    ],
)
def test_passages_by_tokens_catches(capsys, wrong, says):
    out = line(capsys, ch08.check_passages_by_tokens, wrong)
    assert out.startswith("✘") and says in out


def partial_ignoring(text, encoding_name):
    """Counts a token as partial only when nothing of it decodes (errors='ignore')."""
    enc = get_encoding(encoding_name)
    ids = enc.encode_ordinary(text)
    empty = [enc.decode_single_token_bytes(i).decode("utf-8", errors="ignore") == "" for i in ids]
    return sum(empty) / len(ids) if ids else 0.0


@pytest.mark.parametrize("wrong", [partial_ignoring, lambda text, name: 0.0])
def test_partial_share_catches(capsys, wrong):
    assert not passes(capsys, ch08.check_partial_share, wrong, RIGHT["partial_top3"], "b")


def test_partial_answers_are_checked_without_revealing_them(capsys):
    out = line(
        capsys, ch08.check_partial_share, partial_right, ["Amharic", "Chinese", "Korean"], "b"
    )
    assert "partial_top3 — expected 'right', got 'wrong'" in out and "Korean'" not in out
    out = line(capsys, ch08.check_partial_share, partial_right, RIGHT["partial_top3"], "c")
    assert "partial_answer — expected 'right', got 'wrong'" in out


def starts_by_replaced_lengths(text, encoding_name):
    """Counts characters with errors='replace': every partial token becomes one character."""
    enc = get_encoding(encoding_name)
    starts, position = [], 0
    for token_id in enc.encode_ordinary(text):
        starts.append(position)
        position += len(enc.decode_single_token_bytes(token_id).decode("utf-8", errors="replace"))
    return starts


def starts_in_bytes(text, encoding_name):
    enc = get_encoding(encoding_name)
    starts, position = [], 0
    for token_id in enc.encode_ordinary(text):
        starts.append(position)
        position += len(enc.decode_single_token_bytes(token_id))
    return starts


@pytest.mark.parametrize("wrong", [starts_by_replaced_lengths, starts_in_bytes])
def test_token_starts_catches_and_names_the_mistake(capsys, wrong):
    out = line(capsys, ch08.check_token_starts, wrong)
    assert out.startswith("✘") and "not byte positions" in out


def digits_swapped(digits, from_right=False):
    return digits_right(digits, not from_right)


def digits_ignoring_the_end(digits, from_right=False):
    return digits_right(digits)


def digits_left_reversed(digits, from_right=False):
    """From the right taken as the left chunks in reverse order."""
    return digits_right(digits)[::-1] if from_right else digits_right(digits)


@pytest.mark.parametrize("wrong", [digits_swapped, digits_ignoring_the_end, digits_left_reversed])
def test_digit_chunks_catches(capsys, wrong):
    assert not passes(capsys, ch08.check_digit_chunks, wrong)


def test_split_years_catches_years_without_the_space(capsys):
    gpt2 = get_encoding("gpt2")
    no_space = [year for year in range(1900, 2100) if len(gpt2.encode(str(year))) > 1]
    assert not passes(capsys, ch08.check_split_years, no_space)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_judge_gives_the_solutions_full_marks(tmp_path, seed):
    tasks = ch08.judge_tasks(random.Random(seed))
    assert grade_locally(tasks, RIGHT, tmp_path) == {task.name: task.points for task in tasks}


def test_the_judge_gives_unattempted_answers_nothing(tmp_path):
    def unattempted(*args):
        raise NotImplementedError()

    answers = {name: unattempted for name in RIGHT}
    tasks = ch08.judge_tasks(random.Random(3))
    assert set(grade_locally(tasks, answers, tmp_path).values()) == {0}


def test_the_judge_gives_half_right_answers_part_of_the_points(tmp_path):
    half = dict(RIGHT, passages_by_tokens=passages_every_n, token_starts=starts_in_bytes)
    tasks = ch08.judge_tasks(random.Random(4))
    assert grade_locally(tasks, half, tmp_path) == {
        "passages_by_tokens": 0,
        "partial_share": 3,
        "token_starts": 0,
        "digit_chunks": 2,
        "split_years": 2,
    }
