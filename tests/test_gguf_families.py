"""Real models' non-byte-level vocabularies, read by the book's tokenizers and matched id for id.

llama.cpp's ``ggml-vocab-*.gguf`` files (``book.vocabularies``): SentencePiece BPE (``llama``:
Llama 2, Phi-3, Baichuan), Gemma 4's BPE over ``▁`` pieces (``gemma4``), WordPiece (``bert``:
BAAI's bge) and Unigram (``t5``: nomic-embed's copy of XLM-R's vocabulary). Where llama.cpp
ships test vectors (the ids Hugging Face's tokenizer gives), the book's ``encode`` must give
them on every text; where it does not (Baichuan, nomic), SentencePiece itself, loaded with the
same pieces and switches, is the reference.
"""

from __future__ import annotations

from functools import cache

import pytest
import sentencepiece as spm
from hypothesis import given, settings
from hypothesis import strategies as st
from parity_corpus import TEXTS
from sentencepiece_proto import BPE, UNIGRAM, model_proto
from tokenizers import normalizers

from book.tokenizers import SentencePieceBPE, Tokenizer, Unigram, WordPiece
from book.tokenizers.formats.gguf import GgufVocabulary, read_gguf_vocabulary
from book.tokenizers.formats.gguf_pieces import gguf_pieces
from book.tokenizers.gguf import from_gguf
from book.tokenizers.unigram.precompiled import PrecompiledCharsmap
from book.vocabularies import test_vectors, vocabulary_path

WITH_TEST_VECTORS = ("llama-spm", "phi-3", "gemma-4", "bert-bge")
# (vocabulary, text) -> why the book's ids differ from the .out file's. Every text of every
# vocabulary above matches, so the list is empty; a difference found later goes here with its
# cause, and the test checks that exactly the listed texts differ.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}
# Vocabularies whose decode cannot give every text back, and why (the others must).
LOSSY = {
    "bert-bge": "BERT uncased lower-cases, strips accents, drops control characters, "
    "collapses whitespace and spells uncovered words [UNK]",
}
# Text that normalization rules change (NFKC: ligatures, full-width forms, compatibility
# characters; half-width kana with their sound marks), for the Unigram parity.
NORMALIZED = [
    "ﬁne ﬂour ﬀ Ａｂｃ １２３ ①②③ ㍿ ½ ™ Ⅻ 𝐀𝐁𝐂",
    "ｶﾞｷﾞｸﾞ ﾊﾟﾋﾟ ﾝ",
    "x\u3000y\tz\nw\u00a0v\u2003u\u200bt",
    "  leading\u3000\u3000and   inner  ",
]


@cache
def vocabulary(name: str) -> GgufVocabulary:
    """The vocabulary ``name`` (``python -m book.vocabularies`` fetches it), read once."""
    return read_gguf_vocabulary(vocabulary_path(name))


@cache
def tokenizer(name: str):
    """The book's tokenizer of vocabulary ``name``, built once."""
    return from_gguf(vocabulary(name))


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("llama-spm", SentencePieceBPE),
        ("phi-3", SentencePieceBPE),
        ("baichuan", SentencePieceBPE),
        ("gemma-4", SentencePieceBPE),
        ("bert-bge", WordPiece),
        ("nomic-bert-moe", Unigram),
    ],
)
def test_each_model_type_is_read_by_its_family(name, family):
    tok = tokenizer(name)
    assert type(tok) is family
    assert tok.vocab == list(vocabulary(name).tokens) or family is WordPiece  # BERT's spelling
    if family is SentencePieceBPE:  # ranked by merges (Gemma 4) or by scores
        assert (tok.merges is not None) == (name == "gemma-4")


@pytest.mark.parametrize("name", WITH_TEST_VECTORS)
def test_encode_gives_the_test_vectors_ids(name):
    tok = tokenizer(name)
    assert isinstance(tok, Tokenizer)
    cases = test_vectors(name)
    differ = {text for text, ids in cases if tok.encode(text) != ids}
    listed = {text for (vocab, text) in KNOWN_DIFFERENCES if vocab == name}
    assert len(cases) == 46
    assert differ == listed


@pytest.mark.parametrize("name", [n for n in WITH_TEST_VECTORS if n not in LOSSY])
def test_decode_gives_every_text_back(name):
    tok = tokenizer(name)
    for text, ids in test_vectors(name):
        assert tok.decode(ids) == text


@pytest.mark.parametrize("name", ["llama-spm", "gemma-4"])
@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=50))
def test_any_text_comes_back(name, text):
    tok = tokenizer(name)
    assert tok.decode(tok.encode(text)) == text


def test_bert_decodes_to_its_normalized_words():
    tok = tokenizer("bert-bge")
    assert tok.decode(tok.encode(" Hello,  WORLD! Cửa Việt")) == "hello, world! cua viet"


def sentencepiece_of(name: str, model_type: int, tok) -> spm.SentencePieceProcessor:
    """SentencePiece's own tokenizer on the pieces of ``name`` with ``tok``'s switches."""
    proto = model_proto(
        gguf_pieces(vocabulary(name)),
        model_type,
        add_dummy_prefix=tok.add_dummy_prefix,
        remove_extra_whitespaces=getattr(tok, "remove_extra_whitespaces", False),
        precompiled_charsmap=getattr(tok, "precompiled_charsmap", None) or b"",
    )
    return spm.SentencePieceProcessor(model_proto=proto)


def varied_texts() -> list[str]:
    vector_texts = [text for name in WITH_TEST_VECTORS for text, _ in test_vectors(name)]
    return [*TEXTS, *vector_texts, *NORMALIZED]


@pytest.mark.parametrize(
    ("name", "model_type"),
    [("llama-spm", BPE), ("baichuan", BPE), ("nomic-bert-moe", UNIGRAM)],
)
def test_sentencepiece_gives_the_same_ids(name, model_type):
    tok = tokenizer(name)
    sp = sentencepiece_of(name, model_type, tok)
    texts = varied_texts()
    assert len(texts) > 250
    for text in texts:
        assert tok.encode(text) == sp.encode(text), text


def test_the_unigram_vocabulary_is_xlm_r():
    # XLM-R's ids: fairseq's four specials first, then SentencePiece's pieces one id later.
    tok = tokenizer("nomic-bert-moe")
    assert tok.vocab[:5] == ["<s>", "<pad>", "</s>", "<unk>", ","]
    assert tok.encode("Hello world") == [35378, 8999]


def test_compiled_rules_agree_with_tokenizers_precompiled():
    # Every seventh code point, one at a time: Hugging Face's Precompiled looks up whole
    # grapheme clusters, SentencePiece (and the book) the longest rule, which differ only
    # where a cluster of several characters has a rule (half-width kana with sound marks).
    charsmap = tokenizer("nomic-bert-moe").precompiled_charsmap
    reference = normalizers.Precompiled(charsmap)
    book = PrecompiledCharsmap(charsmap)
    for code in range(0, 0x110000, 7):
        if not 0xD800 <= code <= 0xDFFF:
            assert book.normalize(chr(code)) == reference.normalize_str(chr(code)), hex(code)


def test_special_tokens_and_their_attributes():
    llama = tokenizer("llama-spm")
    assert (llama.bos_id, llama.eos_id, llama.add_bos_token, llama.add_eos_token) == (1, 2, 1, 0)
    assert llama.encode("Hello", add_special_tokens=True) == [1, 15043]
    assert llama.encode("<s>") != [1]  # a control piece never comes from text
    phi3 = tokenizer("phi-3")
    assert "</s>" in phi3.user_defined  # Phi-3 made </s> user-defined: matched whole in text
    assert phi3.encode("Hi</s>") == [phi3.encode("Hi")[0], 2]
    gemma = tokenizer("gemma-4")
    assert (gemma.bos_id, gemma.add_bos_token, gemma.add_dummy_prefix) == (2, True, False)
    assert gemma.encode("<|tool_call>") == [48]  # user-defined
    assert 105 not in gemma.encode("<|turn>")  # control
    bert = tokenizer("bert-bge")
    assert bert.encode("[CLS] hi [SEP]") == [101, 7632, 102]
    assert bert.encode("hi", add_special_tokens=True) == [101, 7632, 102]
    assert set(bert.special_tokens) == {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    xlm_r = tokenizer("nomic-bert-moe")
    assert xlm_r.encode("Hello world", add_special_tokens=True) == [0, 35378, 8999, 2]
