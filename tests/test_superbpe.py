"""Tests of SuperBPE's two-stage training (book.tokenizers.bpe.superbpe)."""

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.analysis.metrics import bytes_per_token
from book.tokenizers import RegexTokenizer
from book.tokenizers.base import N_BYTES
from book.tokenizers.bpe.patterns import GPT2_PATTERN, split
from book.tokenizers.bpe.superbpe import (
    MAX_WORDS,
    STAGE_TWO_PATTERN,
    STAGE_TWO_SPLIT,
    train_superbpe,
)
from book.tokenizers.bpe.train import train_merges

TRAIN = corpora.english("train")[:30_000]
SUPER = train_superbpe(TRAIN, 900, transition=600)


def isolated_split(text: str, pattern: str) -> list[str]:
    """Hugging Face's Split(behavior="isolated") written out: the matches and the gaps."""
    pieces, end = [], 0
    for match in regex.finditer(pattern, text):
        pieces += [text[end : match.start()], match.group()]
        end = match.end()
    return [piece for piece in [*pieces, text[end:]] if piece]


@given(st.text(alphabet=st.sampled_from("ab é7 \n\t.,!?/-'1"), max_size=40))
def test_stage_two_chunks_are_the_split_isolated(text):
    assert split(text, STAGE_TWO_PATTERN) == isolated_split(text, STAGE_TWO_SPLIT)


@given(st.text(max_size=40))
def test_stage_two_chunks_join_to_the_text(text):
    assert "".join(split(text, STAGE_TWO_PATTERN)) == text


def test_stage_two_keeps_numbers_punctuation_runs_and_space_runs_apart():
    chunks = split("by the way, 12345 ok?! so   far", STAGE_TWO_PATTERN)
    assert chunks == ["by the way, ", "123", "45", " ok", "?!", " so", "  ", " far"]


@pytest.mark.parametrize("pattern", [GPT2_PATTERN, None])
def test_stage_one_is_ordinary_bpe(pattern):
    options = {} if pattern is None else {"pattern": pattern}
    tok = train_superbpe(TRAIN, 700, transition=500, **options)
    assert tok.merges[: 500 - N_BYTES] == RegexTokenizer.train(TRAIN, 500, **options).merges


def test_transition_at_the_vocab_size_is_stage_one_alone():
    assert train_superbpe(TRAIN, 600, 600).merges == RegexTokenizer.train(TRAIN, 600).merges


def test_stage_two_learns_superwords_within_its_chunks():
    stage_two = [SUPER.vocab[N_BYTES + rank] for rank in range(600 - N_BYTES, 900 - N_BYTES)]
    chunks = set(split(TRAIN, STAGE_TWO_PATTERN))
    text = "\n".join(chunks).encode()
    assert all(token in text for token in stage_two)  # each lies inside some chunk
    spans_a_space = [t for t in stage_two if regex.search(rb"\S \S", t)]
    assert len(spans_a_space) > 20, spans_a_space


def test_no_superword_of_more_than_four_words_or_with_a_colon_space():
    text = "Answer: one two three four five six, " * 30
    tok = train_superbpe(text, 400, transition=300)
    first = N_BYTES + len(RegexTokenizer.train(text, 300).merges)  # stage one ran out early
    stage_two = [tok.vocab[i] for i in range(first, tok.n_vocab)]
    assert stage_two, "stage two learned nothing"
    for token in stage_two:
        assert b": " not in token and len(token.split()) <= MAX_WORDS, token
    assert b" one two three four" in stage_two  # four words are allowed
    assert len(tok.encode(" one two three four five six,")) >= 2


def test_a_refused_pair_is_never_merged():
    data = {tuple(b"abab cd abab"): 3, tuple(b"cdcd"): 2}
    refused = (97, 98)
    merges = train_merges(data, 6, allow=lambda pair: pair != refused)
    assert refused not in [pair for pair, _ in merges]
    assert train_merges(data, 6, allow=lambda pair: True) == train_merges(data, 6)


def test_fewer_tokens_than_bpe_at_the_same_vocabulary():
    # The paper's headline direction: more bytes per token at the same vocabulary size.
    heldout = corpora.english("heldout")[:20_000]
    bpe = RegexTokenizer.train(TRAIN, 900)
    assert bytes_per_token(SUPER, heldout) > bytes_per_token(bpe, heldout)


@given(st.text(max_size=60))
def test_round_trip(text):
    assert SUPER.decode(SUPER.encode(text), errors="strict") == text


@pytest.mark.parametrize(
    ("transition", "error", "message"),
    [(255, ValueError, "from 256"), (901, ValueError, "vocab_size=900"), (5.0, TypeError, "int")],
)
def test_a_bad_transition_is_refused(transition, error, message):
    with pytest.raises(error, match=message):
        train_superbpe(TRAIN, 900, transition)
