"""Every tokenizer of the book has the one interface and trains the same way (issue: one design).

``X.train(text, vocab_size=N)`` where N counts the whole vocabulary; ``isinstance(tok,
Tokenizer)``; a round trip on text the tokenizer can represent; ``book.analysis.measure`` works
on each; ``token_bytes`` shows every id.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book import corpora
from book.analysis import measure
from book.tokenizers import (
    ByteTokenizer,
    CharBPE,
    CharTokenizer,
    RegexTokenizer,
    Tokenizer,
    Unigram,
    WordPiece,
    WordTokenizer,
)
from book.tokenizers.errors import UnknownIdError

TEXT = corpora.english("train")[:20_000]
# What each one reproduces exactly: characters and bytes keep everything; words, character BPE
# and WordPiece normalise whitespace (one space between words); Unigram, SentencePiece style,
# collapses runs of spaces too.
SAMPLE = "Full fathom five thy father lies; Of his bones are coral made"
TOKENIZERS = {
    CharTokenizer: (80, SAMPLE),
    WordTokenizer: (3_000, " ".join([w for w in TEXT.split() if w.isalpha()][:8])),
    CharBPE: (300, SAMPLE),
    ByteTokenizer: (300, SAMPLE + " — naïve 🦙"),
    RegexTokenizer: (300, SAMPLE + " — naïve 🦙"),
    WordPiece: (300, "full fathom five thy father lies ; of his bones are coral made"),
    Unigram: (300, SAMPLE),
}


@pytest.fixture(scope="module", params=list(TOKENIZERS), ids=lambda cls: cls.__name__)
def trained(request):
    cls = request.param
    vocab_size, sample = TOKENIZERS[cls]
    return cls, vocab_size, sample, cls.train(TEXT, vocab_size=vocab_size)


def test_trains_to_at_most_vocab_size_ids_and_has_the_interface(trained):
    cls, vocab_size, _, tok = trained
    assert isinstance(tok, Tokenizer)
    assert 0 < tok.n_vocab <= vocab_size


def test_round_trips_text_it_can_represent(trained):
    _, _, sample, tok = trained
    assert tok.decode(tok.encode(sample)) == sample


def test_measure_works_on_every_tokenizer(trained):
    _, _, sample, tok = trained
    row = measure(tok, sample)
    assert row["n_vocab"] == tok.n_vocab and row["tokens"] == len(tok.encode(sample))
    assert row["bytes per token"] == len(sample.encode()) / row["tokens"]


def test_token_bytes_names_every_id(trained):
    _, _, _, tok = trained
    assert all(isinstance(tok.token_bytes(i), bytes) for i in range(tok.n_vocab))


@pytest.mark.parametrize("bad", [-1, "n_vocab", True, 1.0, "0"])
def test_every_decoder_refuses_what_is_not_an_id_the_same_way(trained, bad):
    _, _, _, tok = trained
    bad = tok.n_vocab if bad == "n_vocab" else bad
    with pytest.raises(UnknownIdError, match="cannot decode id"):
        tok.decode([0, bad])
    assert tok.token_to_id[tok.vocab[1]] == 1  # the way back from a token to its id


@pytest.mark.parametrize("cls", [ByteTokenizer, RegexTokenizer])
@settings(max_examples=50, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=["Cs"])))
def test_byte_level_tokenizers_round_trip_any_unicode(cls, text):
    tok = cls.train("the cat sat on the mat " * 4, vocab_size=270)
    assert tok.decode(tok.encode(text)) == text
