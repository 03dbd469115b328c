"""The checks of chapter 07's exercises pass right answers and catch plausible wrong ones."""

import pytest
import regex
from check_helpers import passes

from book.chat import split_on_special_tokens
from book.checks import ch07


def encoder_splitting_with(split):
    """A tiktoken-style encode that finds the allowed specials with ``split(text, allowed)``."""

    def encode(tok, text, allowed_special=frozenset(), disallowed_special="all"):
        names = set(tok.special_tokens)
        allowed = names if allowed_special == "all" else set(allowed_special)
        disallowed = names - allowed if disallowed_special == "all" else set(disallowed_special)
        if any(name in text for name in disallowed):
            raise ValueError("disallowed special token")
        ids = []
        for piece in split(text, allowed):
            ids += [tok.special_tokens[piece]] if piece in allowed else tok.encode_ordinary(piece)
        return ids

    return encode


encode_right = encoder_splitting_with(split_on_special_tokens)


def chatml_from(content_encoder, roles=("system", "user", "assistant"), prompt=True):
    """An encode_chatml whose contents are encoded by content_encoder(tok, text)."""

    def encode_chatml(tok, messages, add_generation_prompt=True):
        ids = []
        for message in messages:
            if message["role"] not in roles:
                raise ValueError(message["role"])
            ids += tok.encode(f"<|im_start|>{message['role']}\n", allowed_special="all")
            ids += content_encoder(tok, message["content"])
            ids += tok.encode("<|im_end|>\n", allowed_special="all")
        if add_generation_prompt and prompt:
            ids += tok.encode("<|im_start|>assistant\n", allowed_special="all")
        return ids

    return encode_chatml


class AnyRole:
    """A role list that accepts every role."""

    def __contains__(self, role):
        return True


chatml_right = chatml_from(lambda tok, text: tok.encode_ordinary(text))


def test_right_answers_pass(capsys):
    assert passes(capsys, ch07.check_add_special_tokens, ch07.add_special_tokens_reference)
    assert passes(capsys, ch07.check_split_on_specials, split_on_special_tokens)
    assert passes(capsys, ch07.check_encode, encode_right)
    assert passes(capsys, ch07.check_encode_chatml, chatml_right)
    assert passes(capsys, ch07.check_collate, ch07.collate_reference)


def from_vocab_size(vocab_size, special_tokens, names):
    """Ignores the ids already in use."""
    return {**special_tokens, **{name: vocab_size + i for i, name in enumerate(names)}}


def renumbers_known(vocab_size, special_tokens, names):
    """Gives a name that already has an id a new one."""
    result = dict(special_tokens)
    next_id = max([vocab_size, *[i + 1 for i in special_tokens.values()]])
    for name in dict.fromkeys(names):
        result[name] = next_id
        next_id += 1
    return result


def accepts_empty(vocab_size, special_tokens, names):
    """Right, except that an empty name is accepted."""
    return ch07.add_special_tokens_reference(
        vocab_size, special_tokens, [name for name in names if name]
    )


@pytest.mark.parametrize("wrong", [from_vocab_size, renumbers_known, accepts_empty])
def test_add_special_tokens_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_add_special_tokens, wrong)


def shortest_first(text, specials):
    if not specials:
        return [text] if text else []
    pattern = "(" + "|".join(map(regex.escape, sorted(specials, key=len))) + ")"
    return [piece for piece in regex.split(pattern, text) if piece]


def unescaped(text, specials):
    if not specials:
        return [text] if text else []
    pattern = "(" + "|".join(sorted(specials, key=len, reverse=True)) + ")"
    return [piece for piece in regex.split(pattern, text) if piece]


def keeps_empty(text, specials):
    if not specials:
        return [text]
    pattern = "(" + "|".join(map(regex.escape, sorted(specials, key=len, reverse=True))) + ")"
    return regex.split(pattern, text)


@pytest.mark.parametrize("wrong", [shortest_first, unescaped, keeps_empty])
def test_split_on_specials_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_split_on_specials, wrong)


def never_raises(tok, text, allowed_special=frozenset(), disallowed_special="all"):
    return encode_right(tok, text, allowed_special, ())


def everything_special(tok, text, allowed_special=frozenset(), disallowed_special="all"):
    return encode_right(tok, text, "all", ())


def ignores_explicit_disallowed(tok, text, allowed_special=frozenset(), disallowed_special="all"):
    return encode_right(tok, text, allowed_special, "all" if disallowed_special == "all" else ())


shortest_special_first = encoder_splitting_with(shortest_first)


@pytest.mark.parametrize(
    "wrong", [never_raises, everything_special, ignores_explicit_disallowed, shortest_special_first]
)
def test_encode_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_encode, wrong)


def rendered_then_encoded(tok, messages, add_generation_prompt=True):
    """The injection bug: one string, every special token allowed."""
    text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    text += "<|im_start|>assistant\n" if add_generation_prompt else ""
    return tok.encode(text, allowed_special="all")


@pytest.mark.parametrize(
    "wrong",
    [
        chatml_from(lambda tok, text: tok.encode(text, allowed_special="all")),  # trusts contents
        rendered_then_encoded,
        chatml_from(lambda tok, text: tok.encode_ordinary(text), roles=AnyRole()),  # any role
        chatml_from(lambda tok, text: tok.encode_ordinary(text), prompt=False),  # no reply header
    ],
    ids=["trusted-contents", "rendered", "any-role", "no-generation-prompt"],
)
def test_encode_chatml_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_encode_chatml, wrong)


def collate_masking_by_value(batch, pad_id, side="right"):
    """Pads right, then finds padding by comparing ids with pad_id: hides a real EOS."""
    ids, _, _ = ch07.collate_reference(batch, pad_id, side)
    mask = [[int(t != pad_id) for t in row] for row in ids]
    labels = [[t if m else -100 for t, m in zip(row, r)] for row, r in zip(ids, mask)]
    return ids, mask, labels


def collate_in_place(batch, pad_id, side="right"):
    result = ch07.collate_reference(batch, pad_id, side)
    batch[:] = result[0]
    return result


@pytest.mark.parametrize(
    "wrong",
    [
        collate_masking_by_value,
        collate_in_place,
        lambda batch, pad_id, side="right": ch07.collate_reference(batch, pad_id, "right"),
        lambda batch, pad_id, side="right": ch07.collate_reference(batch, pad_id, side)[:2],
        lambda batch, pad_id, side="right": (
            *ch07.collate_reference(batch, pad_id, side)[:2],
            ch07.collate_reference(batch, pad_id, side)[0],
        ),  # labels not masked
    ],
    ids=["mask-by-value", "mutates", "ignores-side", "no-labels", "labels-unmasked"],
)
def test_collate_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_collate, wrong)


def test_collate_names_pad_equal_to_eos(capsys):
    from check_helpers import line

    assert "PAD = EOS" in line(capsys, ch07.check_collate, collate_masking_by_value)
