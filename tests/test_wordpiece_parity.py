"""Our WordPiece given Hugging Face ``tokenizers``' stages and vocabulary gives its pieces.

``tokenizers`` trains a WordPiece vocabulary here on the book's corpora, in three pipelines:
BERT's pre-tokenizer with no normalizer (a ``tokenizers.Tokenizer``'s default), and with
BERT's uncased and cased normalizer. Our ``WordPiece.from_vocab`` with the book's defaults and
the same stages, and ``WordPiece.from_tokenizer_json`` reading the file ``tokenizers`` saves,
must give the same pieces, ids and decoded text on accented, CJK, emoji, code and
control-character text. (``test_library_parity_beyond_bpe`` repeats this on hundreds of texts.)
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from parity_corpus import CODE, COMBINING, EDGE, EMOJI, SCRIPTS
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from book import corpora
from book.tokenizers import BertNormalizer, WordPiece
from book.tokenizers.formats.tokenizer_json import TokenizerJSONError
from book.tokenizers.wordpiece.wordpiece import BERT_SPECIAL_TOKENS

TRAIN_TEXT = "\n".join(
    [
        corpora.english("train")[:40_000],
        corpora.code("python")[:10_000],
        *corpora.parallel().values(),
    ]
)
TEXTS = [
    *SCRIPTS,
    *EMOJI,
    *CODE,
    *EDGE,
    *COMBINING,
    "ünïcödé 日本語 Ünïcödé ŒUVRE",
    "tab\tnew line\nNUL\x00 bell\x07 zero\u200bwidth",
    "[CLS] a sentence [SEP] with [MASK] and [UNK] inside[PAD]",
    "x" * 101 + " " + "y" * 100,
]
# The stages of each pipeline: (tokenizers' normalizer, ours).
NORMALIZERS = {
    "no normalizer": (None, None),
    "uncased": (normalizers.BertNormalizer(lowercase=True), BertNormalizer(lowercase=True)),
    "cased": (normalizers.BertNormalizer(lowercase=False), BertNormalizer(lowercase=False)),
}


def test_the_texts_hold_what_the_parity_is_claimed_on():
    chars = set("".join(TEXTS))
    assert {"é", "ü", "日", "中", "😀", "\x00", "\x07", "\t", "\u200b"} <= chars
    assert any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in chars)
    assert any("def " in text for text in TEXTS) and any("{" in text for text in TEXTS)


def trained(normalizer) -> Tokenizer:
    """``tokenizers``' WordPiece with BERT's pre-tokenizer and decoder, trained on TRAIN_TEXT."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=2000, special_tokens=list(BERT_SPECIAL_TOKENS), show_progress=False
    )
    tokenizer.train_from_iterator(TRAIN_TEXT.split("\n"), trainer)
    return tokenizer


@pytest.fixture(scope="module", params=list(NORMALIZERS))
def pipeline(request) -> tuple[str, Tokenizer]:
    return request.param, trained(NORMALIZERS[request.param][0])


def differences(hf: Tokenizer, ours: WordPiece, skip_special_tokens: bool) -> list[str]:
    """The texts on which the two differ in pieces, ids or decoded text, with what differs."""
    found = []
    for text in TEXTS:
        theirs = hf.encode(text, add_special_tokens=False)
        if ours.tokenize(text) != theirs.tokens or ours.encode(text) != theirs.ids:
            found.append(f"{text[:30]!r}: {ours.tokenize(text)[:6]} vs {theirs.tokens[:6]}")
            continue
        decoded = hf.decode(theirs.ids, skip_special_tokens=skip_special_tokens)
        if ours.decode(theirs.ids, skip_special_tokens=skip_special_tokens) != decoded:
            found.append(f"{text[:30]!r} decodes to {ours.decode(theirs.ids)[:30]!r}")
    return found


def test_from_vocab_with_the_same_stages_gives_the_same_pieces(pipeline):
    name, hf = pipeline
    # The trainer adds its special tokens to the pipeline: matched whole, skipped by decode.
    specials = {"special_tokens": BERT_SPECIAL_TOKENS}
    ours = WordPiece.from_vocab(hf.get_vocab(), normalizer=NORMALIZERS[name][1], **specials)
    assert differences(hf, ours, skip_special_tokens=False) == []
    assert differences(hf, ours, skip_special_tokens=True) == []
    pieces = [piece for text in TEXTS for piece in ours.tokenize(text)]
    assert pieces.count("[UNK]") > 10 and sum(p.startswith("##") for p in pieces) > 100


def test_the_defaults_are_tokenizers_defaults_and_the_normalizer_matters():
    hf = trained(None)  # BERT's pre-tokenizer, no normalizer
    text = "ünïcödé 日本語"
    theirs = hf.encode(text, add_special_tokens=False).tokens
    assert WordPiece.from_vocab(hf.get_vocab()).tokenize(text) == theirs
    uncased = WordPiece.from_vocab(hf.get_vocab(), normalizer=BertNormalizer())
    assert uncased.tokenize(text) != theirs


def test_tokenizer_json_gives_the_same_pipeline(pipeline, tmp_path):
    name, hf = pipeline
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    ours = WordPiece.from_tokenizer_json(path)
    assert ours.special_tokens == BERT_SPECIAL_TOKENS and ours.normalizer == NORMALIZERS[name][1]
    assert differences(hf, ours, skip_special_tokens=True) == []
    assert differences(hf, ours, skip_special_tokens=False) == []


def test_tokenizer_json_that_is_not_a_bert_wordpiece_is_refused(tmp_path):
    bpe = Tokenizer(models.BPE(unk_token="[UNK]"))
    bpe.save(str(tmp_path / "bpe.json"))
    with pytest.raises(TokenizerJSONError, match="the model is 'BPE'"):
        WordPiece.from_tokenizer_json(tmp_path / "bpe.json")
    wordpiece = trained(normalizers.NFKC())
    wordpiece.save(str(tmp_path / "nfkc.json"))
    with pytest.raises(TokenizerJSONError, match="the normalizer is 'NFKC'"):
        WordPiece.from_tokenizer_json(tmp_path / "nfkc.json")
    (tmp_path / "bad.json").write_text(json.dumps([1, 2]))
    with pytest.raises(TokenizerJSONError, match="no 'model' object"):
        WordPiece.from_tokenizer_json(tmp_path / "bad.json")
