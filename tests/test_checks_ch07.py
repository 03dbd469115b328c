"""Chapter 07's specs beyond the generic mutation test (tests/test_check_specs.py): undefined
and unattempted answers, partial credit by group for slips that are not known mistakes, the
rules the judge enforces through probes, and the references' own properties."""

import random

from check_helpers import line
from hypothesis import given
from hypothesis import strategies as st

from book.chat import split_on_special_tokens
from book.checks import ch07
from book.checks.ch07 import SPECIALS, add_special_tokens_reference, split_stream_reference
from book.grading.calls import judge_in_process

RIGHT = {spec.name: spec.reference for spec in ch07.SPECS}


def test_right_answers_pass(capsys):
    for name, answer in RIGHT.items():
        assert line(capsys, ch07.check, name, answer).startswith(f"✔ {name}: all ")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch07.check, "split_stream", not_yet)
    assert "not defined" in line(capsys, ch07.check, "encode", None)


def accepts_empty(vocab_size, special_tokens, names):
    """Right, except that an empty name is accepted."""
    return add_special_tokens_reference(vocab_size, special_tokens, [n for n in names if n])


def no_prompt_alone(tok, messages, add_generation_prompt=True):
    """A safe encoder that forgets the generation prompt when there are no messages."""
    if not messages:
        return []
    ids = []
    for message in messages:
        if message["role"] not in ("system", "user", "assistant"):
            raise ValueError(message["role"])
        ids += tok.encode(f"<|im_start|>{message['role']}\n", allowed_special="all")
        ids += tok.encode_ordinary(message["content"])
        ids += tok.encode("<|im_end|>\n", allowed_special="all")
    if add_generation_prompt:
        ids += tok.encode("<|im_start|>assistant\n", allowed_special="all")
    return ids


def rejects_empty_text(tok, text, allowed_special=frozenset(), disallowed_special="all"):
    """Right, except that an empty text raises instead of giving no ids."""
    if not text:
        raise ValueError("nothing to encode")
    return ch07.encode_reference(tok, text, allowed_special, disallowed_special)


def test_a_safe_encoder_without_the_prompt_of_no_messages_loses_only_that_group(capsys):
    text = line(capsys, ch07.check, "encode_chatml", no_prompt_alone)
    assert "failed: conversations" in text and text.endswith("— 2/3 points\n")


def test_slips_cost_their_group_only():
    half = dict(RIGHT, add_special_tokens=accepts_empty, encode=rejects_empty_text)
    tasks = ch07.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "add_special_tokens": 1,
        "split_stream": 3,
        "encode": 2,
        "encode_chatml": 3,
        "collate": 3,
    }
    assert "failed: allowed and disallowed" in grades["encode"].message


def names_the_token_by_its_text(tok, text, allowed_special=frozenset(), disallowed_special="all"):
    """Right, with a message that writes the token as it is (a newline and all), not its repr."""
    try:
        return ch07.encode_reference(tok, text, allowed_special, disallowed_special)
    except ValueError as error:
        raise ValueError(f"found {error.token} in the text") from None


def test_the_probes_enforce_what_a_return_value_cannot_show(capsys):
    for spec, rule in [
        (ch07.ADD_SPECIAL_TOKENS, "the special_tokens you are given must not change"),
        (ch07.COLLATE, "the batch you are given must not change"),
        (ch07.COLLATE, "not the caller's list"),
        (ch07.ENCODE, "must name the disallowed special token"),
        (ch07.ENCODE, "the tokenizer behind encode_ordinary knows no special tokens"),
        (ch07.ENCODE, "not the notebook's tok"),
    ]:
        (mistake,) = [m for m in spec.mistakes if rule in m.says]
        text = line(capsys, ch07.check, spec.name, mistake.function)
        assert text.endswith(f"— 0/{spec.points} points\n") and rule in text
    assert line(capsys, ch07.check, "encode", names_the_token_by_its_text).startswith("✔")


def merged(pieces: list[str], specials: list[str]) -> list[str]:
    """Adjacent ordinary pieces joined: what splitting the whole text at once gives."""
    out: list[str] = []
    for piece in pieces:
        if out and piece not in specials and out[-1] not in specials:
            out[-1] += piece
        else:
            out.append(piece)
    return out


TEXT = st.text(alphabet="ab<|>\nendoftxim_srt", max_size=40)


@given(TEXT, st.lists(st.integers(0, 40), max_size=6))
def test_split_stream_is_the_whole_split_released_in_order(text, cuts):
    cuts = sorted({min(c, len(text)) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    released = split_stream_reference(chunks, SPECIALS)
    assert len(released) == len(chunks) + 1
    flat = [piece for pieces in released for piece in pieces]
    assert all(flat) and "".join(flat) == text
    assert merged(flat, SPECIALS) == split_on_special_tokens(text, SPECIALS)


def test_split_stream_holds_a_special_that_may_grow():
    assert split_stream_reference(["a<|end|>", "\n"], SPECIALS) == [["a"], ["<|end|>\n"], []]
    assert split_stream_reference(["a<|end|>", "x"], SPECIALS) == [["a"], ["<|end|>", "x"], []]
    assert split_stream_reference(["<|end"], SPECIALS) == [[], ["<|end"]]
