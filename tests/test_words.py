"""Tests of the word tokenizer and its helpers (book.tokenizers.basic.words)."""

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from book.analysis import oov_curve, oov_rate
from book.tokenizers.base import UNK_TOKEN
from book.tokenizers.basic.words import (
    WordTokenizer,
    split_whitespace,
    split_words,
    vocab_from_counts,
    word_counts,
)
from book.tokenizers.errors import UnknownIdError, UnknownTokenError

SENTENCE = "the cat sat on the mat"

# Pieces that stress splitting: apostrophes, punctuation runs, digits with separators,
# combining marks, scripts with vowel signs, emoji sequences, and whitespace that only some
# definitions count (NEL, LINE SEPARATOR, IDEOGRAPHIC SPACE, the \x1c-\x1f separators).
TRICKY = [
    "don't",
    "I’m",
    "'tis",
    "dogs'",
    "...",
    "3.14",
    "1,000",
    "well-known",
    "cafe\u0301",
    "हिन्दी",
    "你好",
    "👨‍👩‍👧",
    "❤\ufe0f",
    "\u200b",
    "\x85",
    "\u2028",
    "\u3000",
    "\x1c",
    "\u00a0",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "<unk>",
    "The",
    "İ",
]
any_text = st.lists(st.one_of(st.text(), st.sampled_from(TRICKY))).map("".join)
splits = st.sampled_from(["regex", "whitespace"])


def test_seed_sentence_vocab_and_ids():
    for split in ("regex", "whitespace"):
        tok = WordTokenizer.train(SENTENCE, split=split)
        assert tok.n_vocab == 5  # the walkthrough's claim holds
        # Most frequent first, ties by first occurrence: "the" (2) then cat, sat, on, mat.
        assert tok.vocab == ["the", "cat", "sat", "on", "mat"]
        assert tok.encode(SENTENCE) == [0, 1, 2, 3, 0, 4]
        assert tok.decode(tok.encode(SENTENCE)) == SENTENCE
    # The walkthrough's ids [4, 0, 3, 2, 4, 1] come from an alphabetically sorted vocabulary.
    alphabetical = WordTokenizer(sorted(set(SENTENCE.split())))
    assert alphabetical.encode(SENTENCE) == [4, 0, 3, 2, 4, 1]


def test_split_whitespace_keeps_punctuation_attached():
    assert split_whitespace(" Hello,  world!\n\tBye. ") == ["Hello,", "world!", "Bye."]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello, world!", ["Hello", ",", "world", "!"]),
        ("Don't stop; I’m here.", ["Don't", "stop", ";", "I’m", "here", "."]),
        ("'tis the dogs' bone", ["'", "tis", "the", "dogs", "'", "bone"]),
        ("pi is 3.14...", ["pi", "is", "3", ".", "14", ".", ".", "."]),
        ("well-known", ["well", "-", "known"]),
        ("cafe\u0301 हिन्दी", ["cafe\u0301", "हिन्दी"]),  # marks stay with their letters
        ("hi👋!", ["hi", "👋", "!"]),
        ("", []),
    ],
)
def test_split_words_examples(text, expected):
    assert split_words(text) == expected


def test_word_counts_and_vocab_ties_by_first_occurrence():
    counts = word_counts("b a c a c d e d".split())
    assert list(counts) == ["b", "a", "c", "d", "e"]
    assert vocab_from_counts(counts) == ["a", "c", "d", "b", "e"]
    assert vocab_from_counts(counts, min_freq=2) == ["a", "c", "d"]
    assert vocab_from_counts(counts, max_size=2) == ["a", "c"]
    assert vocab_from_counts(counts, max_size=0) == []
    assert vocab_from_counts({"x": 1, "y": 3}) == ["y", "x"]  # any mapping works


def test_vocab_from_counts_rejects_bad_limits():
    with pytest.raises(ValueError, match="min_freq"):
        vocab_from_counts({"a": 1}, min_freq=0)
    with pytest.raises(ValueError, match="max_size"):
        vocab_from_counts({"a": 1}, max_size=-1)


def test_train_limits_and_unk_on_top():
    text = "a b b c c c d d d d"
    assert WordTokenizer.train(text, min_freq=3).vocab == ["d", "c"]
    tok = WordTokenizer.train(text, vocab_size=3, unk=True)
    assert tok.vocab == ["d", "c", "<unk>"] and tok.n_vocab == 3 and tok.unk_id == 2
    assert tok.encode("a c d") == [2, 1, 0]


def test_unknown_word_message_names_it_and_says_what_to_do():
    tok = WordTokenizer.train(SENTENCE)
    with pytest.raises(UnknownTokenError) as info:
        tok.encode("the dog sat")
    message = str(info.value)
    assert "'dog'" in message and "word 1" in message
    assert "unk=True" in message and "Train on text that contains it" in message
    assert "min_freq" in message
    assert info.value.token == "dog" and info.value.position == 1


def test_unk_is_last_and_never_renumbers_words():
    plain = WordTokenizer.train(SENTENCE)
    tok = WordTokenizer.train(SENTENCE, unk=True)
    assert tok.unk_id == tok.n_vocab - 1 == plain.n_vocab
    assert tok.vocab == [*plain.vocab, UNK_TOKEN]
    ids = tok.encode("the dog sat on the log!")
    assert ids == [0, 5, 2, 3, 0, 5, 5]
    assert tok.decode(ids) == f"the {UNK_TOKEN} sat on the {UNK_TOKEN} {UNK_TOKEN}"


def test_decode_loses_spacing_only():
    text = "Hello,  world!\n\tBye."
    tok = WordTokenizer.train(text)
    assert tok.decode(tok.encode(text)) == "Hello , world ! Bye ."
    tok = WordTokenizer.train(text, split="whitespace")
    assert tok.decode(tok.encode(text)) == "Hello, world! Bye."


def test_lowercase_merges_cases_and_decode_cannot_restore_them():
    tok = WordTokenizer.train("The cat saw the Cat", lowercase=True)
    assert tok.vocab == ["the", "cat", "saw"]
    assert tok.encode("THE CAT") == tok.encode("the cat") == [0, 1]
    assert tok.decode(tok.encode("The Cat")) == "the cat"
    assert WordTokenizer.train("The the").vocab == ["The", "the"]  # case kept by default


def test_decode_unknown_id_names_the_id_and_the_range():
    tok = WordTokenizer.train(SENTENCE)
    for bad in (5, -1):
        with pytest.raises(UnknownIdError) as info:
            tok.decode([0, bad])
        assert f"id {bad}" in str(info.value) and "0 to 4" in str(info.value)
    with pytest.raises(UnknownIdError, match="n_vocab=6"):
        WordTokenizer.train(SENTENCE, unk=True).decode([6])


def test_bad_inputs():
    with pytest.raises(ValueError, match="split must be one of"):
        WordTokenizer.train(SENTENCE, split="spaces")
    with pytest.raises(ValueError, match="twice"):
        WordTokenizer(["a", "a"])
    with pytest.raises(TypeError, match="str"):
        WordTokenizer(["a"]).encode(["a"])


def test_repr():
    tok = WordTokenizer.train("a b", unk=True)
    assert repr(tok) == ("WordTokenizer(n_vocab=3, split='regex', unk=True, lowercase=False)")


def test_oov_rate_counts_running_words():
    heldout = "the dog and the cat".split()
    assert oov_rate({"the", "cat"}, heldout) == 2 / 5
    assert oov_rate(["the", "cat"], iter(heldout)) == 2 / 5
    tok = WordTokenizer.train("The cat", lowercase=True)
    assert oov_rate(tok, ["THE", "Cat", "dog", "the"]) == 1 / 4
    with pytest.raises(ValueError, match="at least one word"):
        oov_rate({"a"}, [])


def test_oov_curve_example():
    counts = word_counts("a a a b b c".split())
    curve = oov_curve(counts, "a b c d".split(), [0, 1, 2, 3, 10])
    assert curve == [1.0, 0.75, 0.5, 0.25, 0.25]
    with pytest.raises(ValueError, match="at least 0"):
        oov_curve(counts, ["a"], [-1])
    with pytest.raises(ValueError, match="at least one"):
        oov_curve(counts, [], [1])


@given(any_text)
def test_split_words_never_loses_a_non_space_character(text):
    pieces = split_words(text)
    assert "".join(pieces) == "".join(text.split())
    assert all(piece and not any(ch.isspace() for ch in piece) for piece in pieces)


@given(any_text)
def test_split_words_is_stable_on_its_own_output(text):
    # What makes decode's single spaces re-encode to the same ids.
    pieces = split_words(text)
    assert split_words(" ".join(pieces)) == pieces


@given(st.data(), any_text, splits, st.booleans())
def test_round_trip_on_vocabulary_words(data, training_text, split, lowercase):
    tok = WordTokenizer.train(training_text, split=split, lowercase=lowercase)
    assert tok.n_vocab == len(set(tok.split(training_text)))
    if not tok.vocab:
        assert tok.encode(training_text) == []
        return
    text = " ".join(data.draw(st.lists(st.sampled_from(tok.vocab))))
    ids = tok.encode(text)
    assert all(0 <= i < tok.n_vocab for i in ids)
    assert tok.decode(ids) == text
    assert tok.decode(tok.encode(training_text)) == " ".join(tok.split(training_text))


@given(st.data(), any_text, splits)
def test_unknown_words_raise_or_map_to_unk(data, training_text, split):
    strict = WordTokenizer.train(training_text, split=split)
    pieces = st.one_of(st.sampled_from(strict.vocab), any_text) if strict.vocab else any_text
    text = " ".join(data.draw(st.lists(pieces)))
    found = strict.split(text)
    unknown = [index for index, word in enumerate(found) if word not in strict.token_to_id]
    if unknown:
        with pytest.raises(UnknownTokenError) as info:
            strict.encode(text)
        assert info.value.position == unknown[0] and info.value.token == found[unknown[0]]
    else:
        assert strict.decode(strict.encode(text)) == " ".join(found)

    lenient = WordTokenizer.train(training_text, split=split, unk=True)
    ids = lenient.encode(text)
    assert len(ids) == len(found)  # nothing dropped
    assert ids.count(lenient.unk_id) == len(unknown)
    expected = [UNK_TOKEN if index in unknown else word for index, word in enumerate(found)]
    assert lenient.decode(ids) == " ".join(expected)


@given(st.data(), any_text, st.lists(st.integers(0, 30)))
def test_oov_curve_matches_oov_rate_at_every_size(data, training_text, sizes):
    counts = word_counts(split_words(training_text))
    known = list(counts)
    # Held-out words: some seen in training (at various ranks), some not.
    pieces = st.one_of(st.sampled_from(known), any_text) if known else any_text
    heldout = split_words(" ".join(data.draw(st.lists(pieces))))
    assume(heldout)
    curve = oov_curve(counts, heldout, sizes)
    assert curve == [oov_rate(vocab_from_counts(counts, max_size=k), heldout) for k in sizes]
    ordered = oov_curve(counts, heldout, sorted(sizes))
    assert ordered == sorted(ordered, reverse=True)  # more words never raise the OOV rate
