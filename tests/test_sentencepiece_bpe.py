"""SentencePieceBPE on small vocabularies: the merge order, byte fallback, the special pieces,
the GGUF builder's checks, and the round trip on any text (the real vocabularies:
``test_gguf_families.py``)."""

from __future__ import annotations

import pytest
from gguf_fakes import fake_vocabulary
from hypothesis import given
from hypothesis import strategies as st

from book.tokenizers import SentencePieceBPE, Tokenizer
from book.tokenizers.bpe.core import merge_best_first
from book.tokenizers.formats.gguf import GgufError, GgufVocabulary
from book.tokenizers.formats.gguf_pieces import gguf_pieces
from book.tokenizers.formats.sentencepiece_model import ModelPiece
from book.tokenizers.unigram.sentencepiece_text import byte_piece

BYTES = [ModelPiece(byte_piece(b), 0.0, "byte") for b in range(256)]
SPECIALS = [
    ModelPiece("<unk>", 0.0, "unknown"),
    ModelPiece("<s>", 0.0, "control"),
    ModelPiece("</s>", 0.0, "control"),
]
FIRST = len(SPECIALS) + len(BYTES)  # the id of the first normal piece


def tokenizer(scored: list[tuple[str, float]], **options) -> SentencePieceBPE:
    pieces = [*SPECIALS, *BYTES, *(ModelPiece(p, s) for p, s in scored)]
    return SentencePieceBPE(pieces, **options)


def by_score(scores: dict[str, float]):
    return lambda a, b: -scores[a + b] if a + b in scores else None


def test_the_best_scored_pair_is_joined_first_whatever_its_place():
    scores = {"ab": -5.0, "bc": -1.0}
    assert merge_best_first(list("abc"), by_score(scores)) == ["a", "bc"]


def test_among_equal_scores_the_leftmost_pair_is_joined():
    # SentencePiece's agenda: score, then position (bpe_model.cc); "▁▁" runs in Llama 2 tie.
    scores = {"aa": -1.0, "aaa": -1.0}
    assert merge_best_first(list("aaa"), by_score(scores)) == ["aaa"]
    assert merge_best_first(list("aaaa"), by_score({"aa": -1.0})) == ["aa", "aa"]


def test_a_join_that_a_later_pair_outscores_is_still_made_where_it_stands():
    # After "bc" is joined, the stale candidate "ab" must not be joined across it.
    scores = {"ab": -2.0, "bc": -1.0, "abc": -3.0, "bcd": -4.0}
    assert merge_best_first(list("abcd"), by_score(scores)) == ["abc", "d"]


def test_pieces_scores_and_byte_fallback():
    tok = tokenizer([("▁", -1.0), ("h", -2.0), ("i", -3.0), ("hi", -4.0), ("▁hi", -5.0)])
    assert isinstance(tok, Tokenizer)
    assert tok.tokenize("hi hi") == ["▁hi", "▁hi"]
    assert tok.tokenize("hé") == ["▁", "h", "<0xC3>", "<0xA9>"]  # é has no piece: its bytes
    assert tok.token_bytes(tok.token_to_id["<0xC3>"]) == b"\xc3"
    assert tok.token_bytes(FIRST) == "▁".encode()
    assert tok.encode("") == []


def test_the_dummy_prefix_is_added_and_removed():
    tok = tokenizer([("▁", -1.0), ("a", -2.0), ("▁a", -3.0)])
    assert tok.tokenize(" a") == ["▁", "▁a"]
    assert tok.decode(tok.encode(" a")) == " a"
    plain = tokenizer([("▁", -1.0), ("a", -2.0), ("▁a", -3.0)], add_dummy_prefix=False)
    assert plain.tokenize("a a") == ["a", "▁a"]


def test_user_defined_pieces_are_matched_whole_and_control_pieces_never():
    pieces = [*SPECIALS, *BYTES, ModelPiece("▁", -1.0), ModelPiece("<tag>", 0.0, "user_defined")]
    tok = SentencePieceBPE(pieces)
    tag = tok.token_to_id["<tag>"]
    # llama.cpp puts the dummy prefix after a user-defined piece too.
    assert tok.encode("<tag>x") == [tag, FIRST, tok.byte_ids[ord("x")]]
    assert 1 not in tok.encode("<s>")
    assert tok.decode([1, tag, 2]) == "<tag>"


def test_bos_and_eos_are_added_as_the_model_asks():
    tok = tokenizer([("▁", -1.0)], bos_id=1, eos_id=2, add_bos_token=True, add_eos_token=True)
    assert tok.encode(" ", add_special_tokens=True) == [1, FIRST, FIRST, 2]
    assert tok.encode(" ") == [FIRST, FIRST]


def test_merges_rank_pairs_and_the_pattern_cuts_at_newlines():
    pieces = [("a", 0.0), ("b", 0.0), ("ab", 0.0), ("\n", 0.0), ("\n\n", 0.0), ("b\n", 0.0)]
    merges = [("b", "\n"), ("a", "b")]
    tok = tokenizer(pieces, merges=merges, add_dummy_prefix=False, pattern=r"[^\n]+|\n+")
    # Without the cut, ("b", "\n") would come first; with it, "ab" and a newline run.
    assert tok.tokenize("ab\n\n") == ["ab", "\n\n"]
    assert tok.decode(tok.encode("ab\n\nab")) == "ab\n\nab"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bos_id": 9999}, "bos_id=9999"),
        ({"add_eos_token": True}, "needs eos_id"),
    ],
)
def test_bad_options_are_named(options, message):
    with pytest.raises(ValueError, match=message):
        tokenizer([("▁", -1.0)], **options)


def test_missing_byte_pieces_and_duplicates_are_refused():
    with pytest.raises(ValueError, match="256 byte pieces"):
        SentencePieceBPE([*SPECIALS, *BYTES[:-1]])
    with pytest.raises(ValueError, match="occurs twice"):
        tokenizer([("▁", -1.0), ("▁", -2.0)])


def test_a_lone_surrogate_is_refused_with_a_reason():
    with pytest.raises(UnicodeEncodeError, match="lone surrogate"):
        tokenizer([("▁", -1.0)]).encode("a\ud800")


def gguf(model: str, **fields) -> GgufVocabulary:
    pieces = [*SPECIALS, *BYTES, ModelPiece("▁", -1.0)]
    special_ids = {"bos": 1, "eos": 2, "unk": 0}
    return fake_vocabulary(model, pieces, **{"special_ids": special_ids, **fields})


def test_from_gguf_uses_llama_cpp_defaults_where_the_file_is_silent():
    tok = SentencePieceBPE.from_gguf(gguf("llama"))
    assert (tok.add_dummy_prefix, tok.add_bos_token, tok.add_eos_token) == (True, True, False)
    assert tok.pieces[1] == ModelPiece("<s>", 0.0, "control")
    tok = SentencePieceBPE.from_gguf(gguf("llama", add_bos=False, add_space_prefix=False))
    assert (tok.add_dummy_prefix, tok.add_bos_token) == (False, False)


def test_from_gguf_refuses_other_models_and_a_gemma4_without_merges():
    with pytest.raises(ValueError, match="'bert' is not SentencePiece BPE"):
        SentencePieceBPE.from_gguf(gguf("bert"))
    with pytest.raises(ValueError, match="needs its merges"):
        SentencePieceBPE.from_gguf(gguf("gemma4"))


def test_an_undefined_token_type_is_named():
    with pytest.raises(GgufError, match="token 3 .* token type 9"):
        gguf_pieces(gguf("llama", token_types=(2, 3, 3, 9, *[6] * 255, 1)))


ROUND_TRIP = tokenizer([("▁", -1.0), ("e", -2.0), ("▁t", -3.0), ("h", -4.0), ("▁th", -5.0)])


@given(st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=60))
def test_any_text_comes_back(text):
    # Byte fallback spells every character, so nothing is lost (only SentencePiece's
    # decoder's rule: the one space in front that the dummy prefix stands for is dropped).
    assert ROUND_TRIP.decode(ROUND_TRIP.encode(text)) == text
