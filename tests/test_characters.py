"""Tests of the character tokenizer (book.tokenizers.basic.characters) and the shared errors."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.tokenizers import UNK_TOKEN, CharTokenizer
from book.tokenizers.errors import UnknownIdError, UnknownTokenError

SENTENCE = "the cat sat on the mat"

# Pieces that tend to break naive code: astral characters (4 UTF-8 bytes), combining marks,
# ZWJ sequences, variation selectors, invisible and control characters, CJK, right-to-left.
# Texts mix arbitrary Unicode with these pieces so that every run meets some of them.
TRICKY = [
    "😀",
    "🚀",
    "𝔘",
    "\U00010000",
    "\U0010fffd",
    "cafe\u0301",
    "👨‍👩‍👧",
    "❤\ufe0f",
    "\u200b",
    "\u00a0",
    "\t",
    "\n",
    "\r\n",
    "\x00",
    "你好",
    "שלום",
    "हिन्दी",
]
any_text = st.lists(st.one_of(st.text(), st.sampled_from(TRICKY))).map("".join)


def test_seed_sentence_vocab_and_ids():
    tok = CharTokenizer.train(SENTENCE)
    assert tok.n_vocab == 10  # the walkthrough's claim holds
    assert tok.alphabet == tok.vocab == [" ", "a", "c", "e", "h", "m", "n", "o", "s", "t"]
    ids = tok.encode(SENTENCE)
    assert ids == [9, 4, 3, 0, 2, 1, 9, 0, 8, 1, 9, 0, 7, 6, 0, 9, 4, 3, 0, 5, 1, 9]
    assert len(ids) == 22
    assert tok.decode(ids) == SENTENCE


def test_stoi_and_itos_are_inverse():
    tok = CharTokenizer.train("hello world")
    assert all(tok.vocab[i] == ch for ch, i in tok.token_to_id.items())
    assert list(tok.token_to_id.values()) == list(range(tok.n_vocab))


def test_characters_are_code_points():
    decomposed = "cafe\u0301"  # "café" with a combining acute accent
    tok = CharTokenizer.train(decomposed)
    assert len(tok.encode(decomposed)) == 5
    family = "👨‍👩‍👧"  # three emoji joined by two ZERO WIDTH JOINERs
    assert CharTokenizer.train(family).n_vocab == 4
    assert len(CharTokenizer.train(family).encode(family)) == 5


def test_empty_text():
    tok = CharTokenizer.train("")
    assert tok.n_vocab == 0
    assert tok.encode("") == []
    assert tok.decode([]) == ""


def test_unknown_character_message_names_it_and_says_what_to_do():
    tok = CharTokenizer.train(SENTENCE)
    with pytest.raises(UnknownTokenError) as info:
        tok.encode("the maté")
    message = str(info.value)
    assert "'é'" in message and "U+00E9" in message
    assert "position 7" in message
    assert "unk=True" in message and "Train on text that contains it" in message
    assert info.value.token == "é" and info.value.position == 7
    assert isinstance(info.value, ValueError)


def test_unknown_invisible_character_is_identifiable():
    with pytest.raises(UnknownTokenError, match=r"'\\n' \(U\+000A\)"):
        CharTokenizer.train("ab").encode("a\nb")


def test_unk_is_last_and_never_renumbers_characters():
    plain = CharTokenizer.train(SENTENCE)
    tok = CharTokenizer.train(SENTENCE, unk=True)
    assert tok.unk_id == tok.n_vocab - 1 == plain.n_vocab
    assert tok.vocab == [*plain.vocab, UNK_TOKEN]
    assert tok.encode("hat") == plain.encode("hat")
    ids = tok.encode("the maté!")
    assert ids.count(tok.unk_id) == 2
    assert tok.decode(ids) == f"the mat{UNK_TOKEN}{UNK_TOKEN}"


def test_decode_unknown_id_names_the_id_and_the_range():
    tok = CharTokenizer.train(SENTENCE)
    for bad in (10, -1, 999):
        with pytest.raises(UnknownIdError) as info:
            tok.decode([0, bad])
        assert f"id {bad}" in str(info.value)
        assert "0 to 9" in str(info.value) and "n_vocab=10" in str(info.value)
    with pytest.raises(UnknownIdError, match="n_vocab=11"):
        CharTokenizer.train(SENTENCE, unk=True).decode([11])
    with pytest.raises(UnknownIdError, match="empty"):
        CharTokenizer.train("").decode([0])


def test_decode_accepts_any_iterable():
    tok = CharTokenizer.train("abc")
    assert tok.decode(iter([0, 1, 2])) == "abc"
    assert tok.decode((2, 1)) == "cb"


def test_bad_inputs():
    with pytest.raises(TypeError, match="str"):
        CharTokenizer.train("ab").encode(b"ab")
    with pytest.raises(ValueError, match="single characters"):
        CharTokenizer(["ab"])
    with pytest.raises(ValueError, match="twice"):
        CharTokenizer(["a", "a"])


def test_repr():
    assert repr(CharTokenizer.train("ab", unk=True)) == "CharTokenizer(n_vocab=3, unk=True)"


@given(st.data(), any_text.filter(bool))
def test_round_trip_on_training_alphabet(data, training_text):
    tok = CharTokenizer.train(training_text)
    assert tok.n_vocab == len(set(training_text))
    text = data.draw(st.text(alphabet=st.sampled_from(tok.alphabet)))
    ids = tok.encode(text)
    assert len(ids) == len(text)
    assert all(0 <= i < tok.n_vocab for i in ids)
    assert tok.decode(ids) == text


@given(any_text)
def test_training_text_round_trips(text):
    tok = CharTokenizer.train(text, unk=True)
    assert tok.unk_id not in tok.encode(text)
    assert tok.decode(tok.encode(text)) == text


@given(st.data(), any_text)
def test_unknown_characters_raise_or_map_to_unk(data, training_text):
    known = sorted(set(training_text))
    # Mix characters of the vocabulary with arbitrary ones, so both cases occur.
    pieces = st.one_of(st.sampled_from(known), any_text) if known else any_text
    text = data.draw(st.lists(pieces).map("".join))
    unknown = [position for position, ch in enumerate(text) if ch not in set(training_text)]
    strict = CharTokenizer.train(training_text)
    if unknown:
        with pytest.raises(UnknownTokenError) as info:
            strict.encode(text)
        assert info.value.position == unknown[0]
        assert info.value.token == text[unknown[0]]
    else:
        assert strict.decode(strict.encode(text)) == text

    lenient = CharTokenizer.train(training_text, unk=True)
    ids = lenient.encode(text)
    assert len(ids) == len(text)  # nothing dropped
    assert ids.count(lenient.unk_id) == len(unknown)
    expected = "".join(UNK_TOKEN if i in unknown else ch for i, ch in enumerate(text))
    assert lenient.decode(ids) == expected
