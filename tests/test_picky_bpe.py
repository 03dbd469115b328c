"""Tests of PickyBPE (book.tokenizers.bpe.picky): BPE that removes used-up tokens."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.tokenizers import RegexTokenizer
from book.tokenizers.base import N_BYTES
from book.tokenizers.bpe.picky import PickyBPE, check_threshold

TRAIN = corpora.english("train")[:20_000]
WORDS = r"\S+|\s+"
BPE = RegexTokenizer.train(TRAIN, 600)
PLAIN = PickyBPE.train(TRAIN, 600, threshold=1.0)
PICKY = PickyBPE.train(TRAIN, 600, threshold=0.6)


def test_threshold_one_is_ordinary_bpe():
    assert all(event.kind == "merge" for event in PLAIN.events)
    assert [(event.parts, event.score) for event in PLAIN.events] == BPE.merges
    assert PLAIN.vocab == BPE.vocab


@given(st.text(max_size=60))
def test_threshold_one_encodes_as_bpe(text):
    assert PLAIN.encode(text) == BPE.encode(text)


@given(st.text(max_size=60))
def test_round_trip(text):
    ids = PICKY.encode(text)
    assert all(i in PICKY.vocab for i in ids)  # a removed token never comes out
    assert PICKY.decode(ids, errors="strict") == text


@given(
    st.text(alphabet="ab c\né", max_size=50),
    st.integers(256, 290),
    st.sampled_from([0.3, 0.6, 0.9, 1.0]),
)
def test_training_on_any_text_stops_and_round_trips(text, vocab_size, threshold):
    tok = PickyBPE.train(text, vocab_size, threshold=threshold, pattern=WORDS)
    assert len(tok.vocab) <= vocab_size
    assert tok.decode(tok.encode(text), errors="strict") == text


def test_the_ios_threshold_decides_a_removal():
    # "ab" occurs 4 times; 3 of them become "abc": IoS(ab) = 3/4.
    text = "abc abc abc ab"
    kept = PickyBPE.train(text, 258, threshold=0.8, pattern=WORDS)
    gone = PickyBPE.train(text, 258, threshold=0.7, pattern=WORDS)
    assert [event.kind for event in kept.events] == ["merge", "merge"]
    assert [event.kind for event in gone.events[:3]] == ["merge", "merge", "remove"]
    assert gone.events[2].score == 0.75 and gone.spell(gone.events[2].token) == b"ab"


def test_removals_follow_the_paper():
    removals = [event for event in PICKY.events if event.kind == "remove"]
    assert len(removals) > 10
    made_of = {}
    for event in PICKY.events:
        if event.kind == "remove":
            assert event.score > 0.6 and event.token >= N_BYTES  # bytes are never removed
            assert PICKY.spell(event.token) == b"".join(map(PICKY.spell, event.parts))
            assert event.token in made_of
        else:
            made_of[event.token] = event.parts
    assert len(PICKY.vocab) == 600  # removed places went to later merges


def test_fewer_tokens_that_the_training_text_never_uses():
    # The paper's motivation: intermediate tokens that end up (almost) never used.
    def unused(tok):
        used = Counter(tok.encode(TRAIN))
        return sum(used[i] == 0 for i in tok.vocab if i >= N_BYTES)

    assert unused(PICKY) < unused(PLAIN)


@pytest.mark.parametrize("bad", [0, -0.5, 1.5, "0.9", True])
def test_a_bad_threshold_is_refused(bad):
    with pytest.raises(ValueError, match=r"threshold must be"):
        check_threshold(bad)
