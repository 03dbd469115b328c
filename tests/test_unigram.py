"""Unigram: lattice algorithms against brute force, errors, the model-file reader, EM training."""

from __future__ import annotations

import functools
import itertools
import math
import random
import struct
from collections import Counter

import pytest
from gguf_fakes import fake_vocabulary
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.tokenizers import Tokenizer
from book.tokenizers.errors import UnknownIdError
from book.tokenizers.formats.protobuf import ProtobufError, fields, read_varint
from book.tokenizers.formats.sentencepiece_model import ModelFileError, ModelPiece, parse_model
from book.tokenizers.unigram.lattice import (
    build_lattice,
    marginals,
    nbest,
    path_score,
    piece_table,
    sample_path,
    viterbi,
)
from book.tokenizers.unigram.sentencepiece_text import decode_bytes, normalize
from book.tokenizers.unigram.train import (
    digamma,
    e_step,
    is_valid_piece,
    required_chars,
    sentence_words,
    train_pieces,
)
from book.tokenizers.unigram.unigram import Unigram

SCORES = {
    "▁": -2.0,
    "▁h": -3.0,
    "▁hu": -5.5,
    "ug": -2.5,
    "▁hug": -4.0,
    "h": -4.0,
    "u": -4.0,
    "g": -4.0,
    "s": -3.0,
    "gs": -3.5,
    "▁hugs": -7.5,
    "hug": -4.5,
}
TABLE = piece_table({piece: (i, score) for i, (piece, score) in enumerate(SCORES.items())})
PIECES = list(SCORES)


def all_segmentations(text: str) -> list[list[str]]:
    """Every way to cut ``text`` into pieces of SCORES (brute force)."""
    if not text:
        return [[]]
    return [
        [text[:end], *rest]
        for end in range(1, len(text) + 1)
        if text[:end] in SCORES
        for rest in all_segmentations(text[end:])
    ]


def brute_force(text: str) -> list[tuple[list[str], float]]:
    """All segmentations with their scores, best first."""
    scored = [(seg, math.fsum(SCORES[p] for p in seg)) for seg in all_segmentations(text)]
    return sorted(scored, key=lambda item: -item[1])


def pieces_of(path) -> list[str]:
    return [PIECES[node.piece_id] for node in path]


@pytest.mark.parametrize("word", ["▁hug", "▁hugs", "▁hugug", "▁ug", "▁hugsgs", "▁h"])
def test_viterbi_and_nbest_agree_with_brute_force(word):
    lattice = build_lattice(word, TABLE)
    expected = brute_force(word)
    assert pieces_of(viterbi(lattice)) == expected[0][0]
    got = nbest(lattice, 50)
    assert [score for _, score in got] == pytest.approx([score for _, score in expected])
    assert sorted(map(pieces_of, (path for path, _ in got))) == sorted(seg for seg, _ in expected)
    assert all(path_score(path) == pytest.approx(score) for path, score in got)


def test_marginals_are_expected_counts_over_all_segmentations():
    word = "▁hugsgs"
    segmentations = brute_force(word)
    z = math.fsum(math.exp(score) for _, score in segmentations)
    expected: Counter[str] = Counter()
    for seg, score in segmentations:
        for piece in seg:
            expected[piece] += math.exp(score) / z
    counts, log_z = marginals(build_lattice(word, TABLE))
    assert log_z == pytest.approx(math.log(z))
    assert {PIECES[i]: c for i, c in counts.items() if c > 1e-12} == pytest.approx(
        {p: c for p, c in expected.items() if c > 1e-12}
    )


def test_samples_follow_the_model_distribution():
    word, alpha, n = "▁hugs", 0.5, 4000
    segmentations = brute_force(word)
    weights = {tuple(seg): math.exp(alpha * score) for seg, score in segmentations}
    total = sum(weights.values())
    rng = random.Random(1)
    lattice = build_lattice(word, TABLE)
    drawn = Counter(tuple(pieces_of(sample_path(lattice, rng, alpha))) for _ in range(n))
    for seg, weight in weights.items():
        p = weight / total
        # within 4.5 standard deviations of the expected frequency: fails by chance < 1e-5
        assert abs(drawn[seg] / n - p) < 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9, seg
    assert set(drawn) <= set(weights)


def test_sampling_is_repeatable_and_alpha_sharpens():
    tok = Unigram.from_pieces([("<unk>", 0.0), *SCORES.items()])
    assert tok.sample("hugs hug", seed=3) == tok.sample("hugs hug", seed=3)
    assert all(tok.sample("hugs", alpha=50.0, seed=s) == tok.tokenize("hugs") for s in range(20))
    assert len({tuple(tok.sample("hugs", alpha=0.0, seed=s)) for s in range(200)}) > 5
    with pytest.raises(ValueError, match="alpha"):
        tok.sample("hugs", alpha=-1)


def test_viterbi_breaks_ties_like_sentencepiece():
    # "▁a" + "b" and "▁" + "ab" score the same; the path whose last piece starts first wins.
    tok = Unigram.from_pieces(
        [("<unk>", 0.0), ("▁a", -2.0), ("b", -2.0), ("▁", -2.0), ("ab", -2.0), ("a", -3.0)]
    )
    assert tok.tokenize("ab") == ["▁", "ab"]


def test_unknown_characters_merge_or_fall_back_to_bytes():
    tok = Unigram.from_pieces([("<unk>", 0.0), ("▁a", -1.0), ("▁", -2.0)])
    assert tok.tokenize("a éé a") == ["▁a", "▁", "éé", "▁a"]
    assert tok.encode("a éé a") == [1, 2, 0, 1]
    assert tok.decode(tok.encode("a éé a")) == "a  ⁇  a"
    byte_pieces = [(f"<0x{b:02X}>", 0.0) for b in range(256)]
    fallback = Unigram.from_pieces(
        [("<unk>", 0.0), *byte_pieces, ("▁a", -1.0), ("▁", -2.0)], byte_fallback=True
    )
    assert fallback.tokenize("a é") == ["▁a", "▁", "<0xC3>", "<0xA9>"]
    assert fallback.decode(fallback.encode("a é🦙 a")) == "a é🦙 a"
    assert fallback.token_bytes(fallback.token_to_id["<0xC3>"]) == b"\xc3"


def test_decode_shows_cut_characters_as_sentencepiece_does():
    assert decode_bytes(b"a\xc3") == "a\ufffd"
    assert decode_bytes(b"\xf0\x9f\xa6") == "\ufffd" * 3  # one per byte, not one per character
    assert decode_bytes("é🦙".encode()) == "é🦙"


@pytest.mark.parametrize(
    "pieces, message",
    [
        ([], "the vocabulary is empty"),
        ([("▁a", -1.0)], "needs exactly one unknown piece, it has 0"),
        ([("<unk>", 0.0), ("▁a", 2.5)], "is 2.5, but a score is a log-probability"),
        ([("<unk>", 0.0), ("▁a", math.nan)], "is nan"),
        ([("<unk>", 0.0), ("▁a", -math.inf)], "is -inf"),
        ([("<unk>", 0.0), ("▁a", -0.1), ("▁b", -0.1)], "add up to 1.81, more than 1"),
        ([("<unk>", 0.0), ("▁a", -1.0), ("▁a", -2.0)], "occurs twice"),
        ([("<unk>", 0.0), ("", -1.0)], "non-empty str"),
        ([("<unk>", 0.0), ("a",)], "expected (piece, score) pairs"),
    ],
)
def test_bad_pieces_raise_clear_errors(pieces, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Unigram.from_pieces(pieces)


def test_byte_fallback_needs_all_256_bytes():
    with pytest.raises(ValueError, match="255 are missing, e.g. <0x01>"):
        Unigram.from_pieces([("<unk>", 0.0), ("<0x00>", 0.0)], byte_fallback=True)


def test_interface_and_ids():
    tok = Unigram.from_pieces(
        [("<unk>", 0.0), ("<s>", 0.0), ("▁a", -1.0), ("▁", -2.0)], control_tokens=["<s>"]
    )
    assert isinstance(tok, Tokenizer) and tok.n_vocab == 4 and tok.unk_id == 0
    assert tok.tokenize("<s>") == ["▁", "<s>"]  # control tokens never match text
    assert tok.decode([1, 2, 3]) == "a "  # and decode to nothing
    assert tok.token_bytes(2) == "▁a".encode()
    with pytest.raises(UnknownIdError):
        tok.decode([4])
    with pytest.raises(ValueError, match="lone surrogate, U\\+DC80 at position 1"):
        tok.encode("a\udc80")


def test_normalize_follows_the_three_switches():
    assert normalize(" a  b ") == "▁a▁b"
    assert normalize(" a  b ", remove_extra_whitespaces=False) == "▁▁a▁▁b▁"
    assert normalize(" a  b ", add_dummy_prefix=False) == "a▁b"
    assert normalize("\ta\nb") == "▁\ta\nb"  # only U+0020 is a space
    assert normalize("a▁") == "▁a"  # a trailing ▁ goes, even one the text had


# --- the protobuf reader and the model file ------------------------------------------------


def test_varints_and_fields():
    assert read_varint(bytes([0xAC, 0x02]), 0) == (300, 2)
    assert list(fields(b"\x0a\x00")) == [(1, 2, b"")]
    for bad, message in [
        (b"\x0a\x05ab", "truncated"),
        (b"\x80", "past the end"),
        (b"\x0b", "wire type 3"),
        (b"\x00", "field number 0"),
    ]:
        with pytest.raises(ProtobufError, match=message):
            list(fields(bad))


def piece_message(piece: str, score: float, kind: int = 1) -> bytes:
    """A SentencePiece message, written by hand."""
    text = piece.encode()
    body = b"\x0a" + bytes([len(text)]) + text + b"\x15" + struct.pack("<f", score)
    return body + b"\x18" + bytes([kind])


def test_parse_a_hand_written_model():
    pieces = [piece_message("<unk>", 0.0, 2), piece_message("▁a", -1.5)]
    data = b"".join(b"\x0a" + bytes([len(p)]) + p for p in pieces)
    model = parse_model(data)
    assert [(p.piece, p.score, p.kind) for p in model.pieces] == [
        ("<unk>", 0.0, "unknown"),
        ("▁a", -1.5, "normal"),
    ]
    assert model.trainer.model_type == "unigram" and model.normalizer.add_dummy_prefix


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "holds no pieces"),
        (b"hello world, not a model\n", "is not a SentencePiece model file"),
        ("<unk>\t0\n▁the\t-3.2\n".encode(), "looks like the <prefix>.vocab file"),
        (b"\x0a\x03\x0a\x01", "truncated"),
        (b"\x0a\x02\x18\x09", "piece type 9"),
    ],
)
def test_files_that_are_not_models_raise_clear_errors(tmp_path, content, message):
    path = tmp_path / "x.model"
    path.write_bytes(content)
    with pytest.raises(ModelFileError, match=message.replace(".", r"\.")):
        Unigram.from_sentencepiece(path)


# --- training -----------------------------------------------------------------------------


def test_digamma():
    assert digamma(1.0) == pytest.approx(-0.5772156649, abs=1e-9)
    # psi(n + 1/2) = -gamma - 2 ln 2 + sum over k = 1..n of 2 / (2k - 1)
    exact = -0.5772156649015329 - 2 * math.log(2) + sum(2 / (2 * k - 1) for k in range(1, 11))
    assert digamma(10.5) == pytest.approx(exact, abs=1e-9)


def test_training_inputs():
    counts = Counter({"▁the▁cat": 2, "▁the": 1})
    assert sentence_words(counts) == Counter({"▁the": 3, "▁cat": 2})
    # the pre-tokenization boundary U+001F is never kept; a tab is a character like any other
    assert required_chars(Counter({"▁a\x1fb\t": 10, "▁c": 1}), 1.0) == {
        "▁": 11,
        "a": 10,
        "b": 10,
        "\t": 10,
        "c": 1,
    }
    assert not is_valid_piece("a1", 16) and is_valid_piece("a", 16) and is_valid_piece("12")
    assert is_valid_piece("é", 16) and is_valid_piece("e\u0301", 16)  # a mark joins its letter
    assert not is_valid_piece("abcdefghijklmnopq", 16)
    assert not is_valid_piece("a\x1fb", 16) and not is_valid_piece("a\0", 16)


def test_e_step_matches_brute_force():
    pieces = list(SCORES.items())
    words = Counter({"▁hugs": 3, "▁hug": 2})
    expected, objective = e_step(pieces, words)
    want: Counter[str] = Counter()
    log_likelihood = 0.0
    for word, count in words.items():
        segmentations = brute_force(word)
        z = math.fsum(math.exp(score) for _, score in segmentations)
        log_likelihood += count * math.log(z)
        for seg, score in segmentations:
            for piece in seg:
                want[piece] += count * math.exp(score) / z
    assert dict(zip(PIECES, expected)) == pytest.approx({p: want.get(p, 0.0) for p in PIECES})
    assert objective == pytest.approx(-log_likelihood / 5)


@functools.cache
def shakespeare_unigram(vocab_size: int = 600, byte_fallback: bool = False) -> Unigram:
    """A Unigram model trained on the start of the training plays."""
    return Unigram.train(corpora.english("train")[:30_000], vocab_size, byte_fallback=byte_fallback)


def test_training_gives_the_vocabulary_size_asked_for():
    tok = shakespeare_unigram()
    assert tok.n_vocab == 600 and tok.pieces[0].piece == "<unk>"
    assert {"▁the", "▁and", "e"} <= set(tok.vocab)
    assert shakespeare_unigram(900, True).n_vocab == 900  # 256 of them bytes
    with pytest.raises(ValueError, match="vocab_size must be an int >= "):
        Unigram.train(corpora.english("train")[:30_000], 20)
    with pytest.raises(ValueError, match="no characters"):
        Unigram.train(" \n \n", 100)


def test_trained_pieces_are_sorted_log_probabilities():
    pieces = train_pieces(corpora.english("train")[:10_000], 300)
    scores = [p.score for p in pieces[1:]]
    assert scores == sorted(scores, reverse=True) and all(s <= 0 for s in scores)
    assert math.fsum(math.exp(s) for s in scores) <= 1.0


@given(
    st.text(
        alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\u2581"),
        max_size=80,
    )
)
def test_byte_fallback_round_trips_any_text(text):
    tok = shakespeare_unigram(900, True)
    assert tok.decode(tok.encode(text)) == " ".join(w for w in text.split(" ") if w)
    exact = Unigram(tok.pieces, byte_fallback=True, remove_extra_whitespaces=False)
    assert exact.decode(exact.encode(text)) == text


@given(st.text(max_size=40))
def test_every_segmentation_spells_the_normalized_text(text):
    tok = shakespeare_unigram()
    normalized = tok.normalize(text)
    assert "".join(tok.tokenize(text)) == normalized
    for pieces, _ in tok.nbest(text, 3):
        assert "".join(pieces) == normalized
    assert "".join(tok.sample(text, seed=0)) == normalized


def test_nbest_starts_with_the_best_and_is_sorted():
    tok = shakespeare_unigram()
    for word in ["unwholesome", "thereafter", "Prospero's"]:
        results = tok.nbest(word, 5)
        assert results[0][0] == tok.tokenize(word)
        assert [s for _, s in results] == sorted((s for _, s in results), reverse=True)
        assert len({tuple(p) for p, _ in results}) == len(results)
    # "▁P" or "▁" + "P", "er" or "e" + "r", and nothing else: 4 segmentations in all
    assert len(tok.nbest("Prospero's", 10)) == 4 and len(tok.nbest("unwholesome", 5)) == 5
    assert list(itertools.islice(tok.nbest("", 3), 3)) == [([], 0.0)]


def test_a_tiny_trained_model_keeps_its_readded_characters_and_round_trips():
    # Training drops and re-adds required characters at the lowest score (as SentencePiece
    # does), so the probabilities of this model add up to more than 1; it must still load.
    text = "hug hug pug pun bun hugs " * 20
    tok = Unigram.train(text, vocab_size=30)
    assert isinstance(tok, Tokenizer) and tok.n_vocab <= 30
    assert sum(math.exp(p.score) for p in tok.pieces if p.kind == "normal") > 1
    assert tok.decode(tok.encode("hugs bun pun")) == "hugs bun pun"


def test_from_gguf_reads_a_t5_vocabulary_and_refuses_another():
    pieces = [ModelPiece("<s>", 0.0, "control"), ModelPiece("</s>", 0.0, "control")]
    pieces += [ModelPiece("<unk>", 0.0, "unknown"), ModelPiece("▁a", -1.0)]
    vocabulary = fake_vocabulary("t5", pieces, special_ids={"bos": 0, "eos": 1, "unk": 2})
    tok = Unigram.from_gguf(vocabulary)
    assert (tok.add_bos_token, tok.add_eos_token) == (False, True)  # llama.cpp's defaults
    assert tok.encode("a", add_special_tokens=True) == [3, 1]
    assert tok.precompiled_charsmap is None
    with pytest.raises(ValueError, match="'llama' is not Unigram"):
        Unigram.from_gguf(fake_vocabulary("llama", pieces))
