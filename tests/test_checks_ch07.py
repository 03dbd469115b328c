"""The checks of chapter 07's exercises pass right answers and catch plausible wrong ones."""


import pytest
import regex

from book.checks import ch07
from book.chat import pad_batch, split_on_special_tokens

from check_helpers import passes


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


def encode_segments_right(tok, segments):
    ids = []
    for text, trusted in segments:
        ids += tok.encode(text, allowed_special="all") if trusted else tok.encode_ordinary(text)
    return ids


def test_right_answers_pass(capsys):
    assert passes(capsys, ch07.check_add_special_tokens, ch07.add_special_tokens_reference)
    assert passes(capsys, ch07.check_split_on_specials, split_on_special_tokens)
    assert passes(capsys, ch07.check_encode, encode_right)
    assert passes(capsys, ch07.check_encode_segments, encode_segments_right)
    assert passes(capsys, ch07.check_pad_batch, lambda batch, pad_id: pad_batch(batch, pad_id))


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
    return ch07.add_special_tokens_reference(vocab_size, special_tokens,
                                             [name for name in names if name])


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


@pytest.mark.parametrize("wrong", [never_raises, everything_special, ignores_explicit_disallowed,
                                   shortest_special_first])
def test_encode_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_encode, wrong)


def all_trusted(tok, segments):
    return encode_segments_right(tok, [(text, True) for text, _ in segments])


def all_untrusted(tok, segments):
    return encode_segments_right(tok, [(text, False) for text, _ in segments])


def joined_then_encoded(tok, segments):
    return tok.encode("".join(text for text, _ in segments), allowed_special="all")


@pytest.mark.parametrize("wrong", [all_trusted, all_untrusted, joined_then_encoded])
def test_encode_segments_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_encode_segments, wrong)


@pytest.mark.parametrize("wrong", [
    lambda batch, pad_id: pad_batch(batch, pad_id, side="left"),
    lambda batch, pad_id: (pad_batch(batch, pad_id)[0], [[1 - m for m in row]
                                                         for row in pad_batch(batch, pad_id)[1]]),
    lambda batch, pad_id: list(pad_batch(batch, pad_id)),
    lambda batch, pad_id: pad_batch(batch, 0),
])
def test_pad_batch_catches(capsys, wrong):
    assert not passes(capsys, ch07.check_pad_batch, wrong)
