"""SentencePiece's compiled normalization rules, applied by the book: a model trained with
``nmt_nfkc`` (SentencePiece's default) reads and segments exactly as SentencePiece does."""

from __future__ import annotations

import io
import random

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st
from parity_corpus import TEXTS

from book.corpora import english
from book.tokenizers import Unigram
from book.tokenizers.unigram.precompiled import PrecompiledCharsmap

# What NFKC and SentencePiece's extra rules change: ligatures, full-width forms, circled and
# compatibility characters, half-width kana with sound marks (a rule over two characters),
# spaces of other kinds, and characters the rules delete.
NORMALIZED = [
    "ﬁne ﬂour ﬀ Ａｂｃ １２３ ①②③ ㍿ ½ ™ Ⅻ 𝐀𝐁𝐂",
    "ｶﾞｷﾞｸﾞ ﾊﾟﾋﾟ ﾝ",
    "x\u3000y\tz\nw\u00a0v\u2003u\u200bt\u00ads",
    "  leading\u3000\u3000and   inner  \u3000",
    "\u3000",
    "Ｈｅｌｌｏ，\u3000ｗｏｒｌｄ！",
]


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """SentencePiece's Unigram model trained with its default rules, and the book's reading."""
    text = english()[:200_000] + "\n" + "\n".join(NORMALIZED)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(text.split("\n")),
        model_writer=model,
        vocab_size=800,
        model_type="unigram",
        num_threads=1,
        minloglevel=2,
    )
    path = tmp_path_factory.mktemp("nfkc") / "nfkc.model"
    path.write_bytes(model.getvalue())
    return spm.SentencePieceProcessor(model_proto=model.getvalue()), Unigram.from_sentencepiece(
        path
    )


def test_the_rules_are_read_from_the_model(pair):
    _, ours = pair
    assert ours.precompiled_charsmap and len(ours.precompiled_charsmap) > 100_000


@pytest.mark.parametrize("text", NORMALIZED + TEXTS[::5])
def test_segments_as_sentencepiece(pair, text):
    sp, ours = pair
    assert ours.encode(text) == sp.encode(text)
    assert ours.decode(ours.encode(text)) == sp.decode(sp.encode(text))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40))
def test_segments_any_text_as_sentencepiece(pair, text):
    sp, ours = pair
    assert ours.encode(text) == sp.encode(text)


def test_mixed_random_characters_as_sentencepiece(pair):
    sp, ours = pair
    rng = random.Random(0)
    alphabet = "".join(NORMALIZED) + "abc ."
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))
        assert ours.encode(text) == sp.encode(text), text


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (b"\x08\0", "starts with a 4-byte trie size"),
        (b"\x08\0\0\0" + bytes(4), "does not fit"),
        (b"\x06\0\0\0" + bytes(12), "does not fit"),
    ],
)
def test_a_blob_that_is_not_a_charsmap_is_refused(blob, message):
    with pytest.raises(ValueError, match=message):
        PrecompiledCharsmap(blob)
