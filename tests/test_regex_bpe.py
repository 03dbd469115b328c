"""Regex BPE (chapter 06): split patterns, chunked training, specials, tiktoken import, files."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.encodings import get_encoding
from book.tokenizers import Tokenizer
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.convert import recover_merges
from book.tokenizers.bpe.core import train_naive
from book.tokenizers.bpe.patterns import (
    CL100K_PATTERN,
    GPT2_ORIGINAL_PATTERN,
    GPT2_PATTERN,
    O200K_PATTERN,
    PATTERNS,
    split,
)
from book.tokenizers.bpe.pretokenize import chunk_counts
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.errors import BPEFileError, DisallowedSpecialTokenError, UnknownIdError

TRAINING_TEXT = (
    "The dog ran. The dog sat. A dog's life is a good life, isn't it? "
    "Dogs and cats: 12 dogs, 345 cats, 6789 birds.\n\n"
    "def dog(name):\n    return f'{name} says woof'\n"
) * 3
SPECIALS = {"<|endoftext|>": 400, "<|end|>": 401}
TOKENIZER = RegexTokenizer.train(TRAINING_TEXT, 300)
TOKENIZER.register_special_tokens(SPECIALS)


@pytest.fixture(scope="module")
def gpt2():
    """GPT-2 in tiktoken and in our tokenizer (built from the name), once for this module."""
    return get_encoding("gpt2"), RegexTokenizer.from_tiktoken("gpt2")


any_text = st.text(st.characters(exclude_categories=("Cs",)))


def test_satisfies_the_tokenizer_interface():
    assert isinstance(TOKENIZER, Tokenizer)
    assert TOKENIZER.n_vocab == 402 and len(TOKENIZER.vocab) == 300
    assert TOKENIZER.token_bytes(400) == b"<|endoftext|>"
    assert b"".join(map(TOKENIZER.token_bytes, TOKENIZER.encode("The dog"))) == b"The dog"


# --- patterns -----------------------------------------------------------------------------------


def test_patterns_are_tiktokens_own():
    for name, pattern in PATTERNS.items():
        assert get_encoding(name)._pat_str == pattern


def test_gpt2_pattern_splits_words_numbers_punctuation_and_space():
    assert split("Hello world's 2024!!  ok\n", GPT2_PATTERN) == [
        "Hello",
        " world",
        "'s",
        " 2024",
        "!!",
        " ",
        " ok",
        "\n",
    ]
    assert split("I'LL", GPT2_PATTERN) == ["I", "'", "LL"]  # GPT-2's contractions are lowercase


def test_cl100k_pattern_groups_digits_by_three_and_any_case_contractions():
    assert split("I'LL pay 1234567", CL100K_PATTERN) == ["I", "'LL", " pay", " ", "123", "456", "7"]
    assert split("x\n\n  y", CL100K_PATTERN) == ["x", "\n\n", " ", " y"]


def test_o200k_pattern_splits_camel_case_and_keeps_contractions():
    assert split("CamelCase don't", O200K_PATTERN) == ["Camel", "Case", " don't"]
    assert split("path/to\n", O200K_PATTERN) == ["path", "/to", "\n"]


@given(any_text)
def test_chunks_join_back_to_the_text(text):
    for pattern in (GPT2_ORIGINAL_PATTERN, GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN):
        assert "".join(split(text, pattern)) == text


@given(st.text(st.sampled_from(" \t\n\r\u00a0ab1'!é")))
def test_tiktokens_faster_gpt2_pattern_equals_the_original(text):
    assert split(text, GPT2_PATTERN) == split(text, GPT2_ORIGINAL_PATTERN)


# --- training -----------------------------------------------------------------------------------


def test_chunk_counts_are_in_order_of_first_occurrence():
    counts = chunk_counts("b a b a c", GPT2_PATTERN)
    assert counts == {b"b": 1, b" a": 2, b" b": 1, b" c": 1}


def test_training_equals_naive_training_on_the_chunks():
    chunks = [chunk.encode() for chunk in split(TRAINING_TEXT, CL100K_PATTERN)]
    assert TOKENIZER.merges == train_naive(chunks, 300 - 256)


def test_training_is_deterministic():
    again = RegexTokenizer.train(TRAINING_TEXT, 300)
    assert again.merges == TOKENIZER.merges


def test_vocab_size_counts_the_special_tokens_which_come_after_the_merges():
    tok = RegexTokenizer.train(TRAINING_TEXT, 302, special_tokens=["<|endoftext|>", "<|end|>"])
    assert tok.merges == TOKENIZER.merges
    assert tok.special_tokens == {"<|endoftext|>": 300, "<|end|>": 301} and tok.n_vocab == 302


def test_training_text_is_cut_at_special_tokens():
    """Without the cut, b'<|' and 'endoftext' would be learned from the special token's text."""
    text = "hello<|endoftext|>world<|endoftext|>" * 20
    tok = RegexTokenizer.train(text, 300, special_tokens=["<|endoftext|>"])
    learned = [tok.vocab[i] for i in range(256, 256 + len(tok.merges))]
    assert learned and not any(b"<" in t or b"|" in t or b"endof" in t for t in learned)
    assert set(learned) >= {b"hello", b"world"}
    plain = RegexTokenizer.train(text, 300)
    assert any(b"endof" in token for token in plain.vocab.values())


@pytest.mark.parametrize(
    "specials, error, message",
    [
        (["<|a|>", "<|a|>"], ValueError, "given more than once"),
        ([""], ValueError, "non-empty str"),
        ("<|a|>", TypeError, "not one str"),
        ({"<|a|>": 500}, TypeError, "register_special_tokens"),
    ],
)
def test_bad_special_tokens_for_training_are_clear_errors(specials, error, message):
    with pytest.raises(error, match=message):
        RegexTokenizer.train("hello", 300, special_tokens=specials)


def test_vocab_size_below_the_bytes_and_specials_names_the_minimum():
    with pytest.raises(ValueError, match=r"vocab_size must be an int >= 258 .*2 special tokens"):
        RegexTokenizer.train("hello", 257, special_tokens=["<|a|>", "<|b|>"])


def test_merges_never_cross_a_chunk_boundary():
    """Plain byte BPE learns junk like b'g.' (the end of a word glued to a full stop)."""
    text = "the dog. a dog. my dog. big dog. "
    glued = ByteTokenizer.train(text * 5, 270).vocab.values()
    chunked = RegexTokenizer.train(text * 5, 270, pattern=GPT2_PATTERN).vocab.values()
    assert any(b"g." in token for token in glued)
    assert not any(b"g." in token or token.endswith(b". ") for token in chunked)


def test_bad_vocab_size_is_a_clear_error():
    with pytest.raises(ValueError, match="vocab_size must be an int >= 256"):
        RegexTokenizer.train("hello", 100)


# --- encode and decode --------------------------------------------------------------------------


@given(any_text)
def test_round_trip_and_replay_agree_on_any_text(text):
    ids = TOKENIZER.encode_ordinary(text)
    assert TOKENIZER.decode(ids) == text
    assert ids == TOKENIZER.encode_by_replay(text)


def test_lone_surrogates_are_reported_at_their_place_in_the_text():
    with pytest.raises(UnicodeEncodeError, match="U\\+DC00 at position 8"):
        TOKENIZER.encode("hello ab\udc00 there")
    with pytest.raises(UnicodeEncodeError, match="U\\+D800 at position 4"):
        RegexTokenizer.train("dog \ud800", 300)


def test_encode_uses_learned_chunks():
    pieces = [TOKENIZER.vocab[i] for i in TOKENIZER.encode("The dog ran.")]
    assert pieces == [b"The", b" dog", b" ran", b"."]


def test_cached_chunks_are_not_shared_with_callers():
    first = TOKENIZER.encode("dog dog")
    first.append(-1)
    assert TOKENIZER.encode("dog dog") == first[:-1]


def test_decode_strict_and_unknown_ids():
    ids = TOKENIZER.encode("🦙")
    assert TOKENIZER.decode(ids[:2]) == "\ufffd"
    with pytest.raises(UnicodeDecodeError, match="errors='replace'"):
        TOKENIZER.decode(ids[:2], errors="strict")
    with pytest.raises(UnknownIdError, match="cannot decode id 350"):
        TOKENIZER.decode([350])


def test_trace_never_merges_across_chunks():
    text = "The dog ran. The dog sat."
    steps = TOKENIZER.trace(text)
    assert list(steps[-1].pieces) == [TOKENIZER.vocab[i] for i in TOKENIZER.encode(text)]
    assert steps[0].pieces == tuple(bytes([b]) for b in text.encode())
    assert all(b"." not in piece or piece == b"." for step in steps for piece in step.pieces)


# --- special tokens -----------------------------------------------------------------------------


def test_special_tokens_are_refused_by_default_and_used_when_allowed():
    text = "dog<|end|> cat<|endoftext|>"
    with pytest.raises(DisallowedSpecialTokenError, match="'<\\|end\\|>' at position 3"):
        TOKENIZER.encode(text)
    ids = TOKENIZER.encode(text, allowed_special="all")
    assert ids[-1] == 400 and 401 in ids and TOKENIZER.decode(ids) == text
    only_end = TOKENIZER.encode(text, allowed_special={"<|end|>"}, disallowed_special=())
    assert 401 in only_end and 400 not in only_end
    assert TOKENIZER.decode(only_end) == text


def test_encode_ordinary_never_produces_special_ids():
    ids = TOKENIZER.encode_ordinary("<|endoftext|>")
    assert 400 not in ids and TOKENIZER.decode(ids) == "<|endoftext|>"
    assert TOKENIZER.encode("<|endoftext|>", disallowed_special=()) == ids


def test_longest_special_token_wins():
    tok = RegexTokenizer(special_tokens={"<a>": 300, "<a><b>": 301})
    assert tok.encode("<a><b><a>", allowed_special="all") == [301, 300]


def test_special_token_arguments_are_checked():
    with pytest.raises(ValueError, match="not special tokens of this tokenizer"):
        TOKENIZER.encode("x", allowed_special={"<|nope|>"})
    with pytest.raises(TypeError, match="'all' or a collection"):
        TOKENIZER.encode("x", allowed_special="<|end|>")


def test_register_special_tokens_validates_ids():
    tok = RegexTokenizer.train("hello hello", 260)
    with pytest.raises(ValueError, match="not a learned token's .*0-259.*got 259"):
        tok.register_special_tokens({"<|x|>": 259})
    with pytest.raises(ValueError, match="non-empty str"):
        tok.register_special_tokens({"": 300})
    tok.register_special_tokens({"<|x|>": 300})
    with pytest.raises(ValueError, match="already the special token"):
        tok.register_special_tokens({"<|y|>": 300})
    tok.register_special_tokens({"<|x|>": 301})  # moving a token to a new id is fine
    assert tok.special_tokens == {"<|x|>": 301} and tok.n_vocab == 302
    assert tok.decode([301]) == "<|x|>"


# --- tiktoken -----------------------------------------------------------------------------------


def test_recover_merges():
    ranks = {bytes([b]): b for b in range(256)} | {b"bc": 256, b"abc": 257, b"ab": 258}
    byte_ids, merges = recover_merges(ranks)
    assert byte_ids == list(range(256))
    assert merges == [((98, 99), None), ((97, 256), None), ((97, 98), None)]


def test_recover_merges_rejects_encodings_that_are_not_bpe():
    base = {bytes([b]): b for b in range(256)}
    with pytest.raises(ValueError, match="cannot be built"):
        recover_merges(base | {b"abc": 256})
    with pytest.raises(ValueError, match="without gaps"):
        recover_merges(base | {b"ab": 300})
    with pytest.raises(ValueError, match="single bytes"):
        recover_merges({b"ab": 0})


def test_from_tiktoken_keeps_byte_order_pattern_and_specials(gpt2):
    enc, tok = gpt2
    assert tok.byte_ids[ord("!")] == 0  # GPT-2 numbers printable bytes first
    assert tok.pattern == enc._pat_str and tok.special_tokens == {"<|endoftext|>": 50256}
    assert tok.n_vocab == enc.n_vocab == 50257
    assert all(tok.vocab[i] == enc.decode_single_token_bytes(i) for i in range(0, 50256, 97))
    assert tok.encode("hello world") == enc.encode("hello world") == [31373, 995]
    assert tok.merges[0] == ((220, 83), None)  # " t", GPT-2's first merge


# --- save and load ------------------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "tok.bpe"
    TOKENIZER.save(path)
    loaded = RegexTokenizer.load(path)
    assert loaded.merges == TOKENIZER.merges and loaded.pattern == TOKENIZER.pattern
    assert loaded.special_tokens == SPECIALS
    text = "A dog's <|end|> life"
    expected = TOKENIZER.encode(text, allowed_special="all")
    assert loaded.encode(text, allowed_special="all") == expected


def test_special_tokens_with_line_breaks_survive_saving(tmp_path):
    path = tmp_path / "odd.bpe"
    odd = {"<|a\u2028b|>": 300, "<|\n|>": 301, "<|é|>": 302}
    RegexTokenizer(special_tokens=odd).save(path)
    assert RegexTokenizer.load(path).special_tokens == odd


def test_save_and_load_keeps_a_tiktoken_byte_order(tmp_path, gpt2):
    path = tmp_path / "gpt2.bpe"
    tok = gpt2[1]
    tok.save(path)
    assert path.read_text().splitlines()[3].startswith("byte_ids: 188 189 190")
    loaded = RegexTokenizer.load(path)
    assert loaded.byte_ids == tok.byte_ids and loaded.encode("héllo ✓") == tok.encode("héllo ✓")


@pytest.fixture()
def saved(tmp_path):
    """A small saved tokenizer: (path, its lines)."""
    path = tmp_path / "tok.bpe"
    tok = RegexTokenizer.train("aaab abab baba", 262)
    tok.register_special_tokens({"<|x|>": 500})
    tok.save(path)
    return path, path.read_text().splitlines()


def corrupt(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "edit, line, message",
    [
        (lambda ls: ["not a tokenizer"] + ls[1:], 1, "expected the header"),
        (lambda ls: ["tokenization-from-scratch bpe v2"] + ls[1:], 1, "expected the header"),
        (lambda ls: [], 1, "the file is empty"),
        (lambda ls: ls[:1] + ["patern: null"] + ls[2:], 2, "expected 'pattern: ...'"),
        (lambda ls: ls[:1] + ['pattern: "(unclosed"'] + ls[2:], 2, "does not compile"),
        (lambda ls: ls[:1] + ["pattern: 12"] + ls[2:], 2, "a JSON string or null"),
        (lambda ls: ls[:2] + ["special_tokens: {oops}"] + ls[3:], 3, "JSON object"),
        (lambda ls: ls[:2] + ['special_tokens: {"<|x|>": 257}'] + ls[3:], 3, "from 262"),
        (lambda ls: ls[:3] + ["byte_ids: 1 2 3"] + ls[4:], 4, "each once"),
        (lambda ls: ls[:4] + ["merges: many"] + ls[5:], 5, "non-negative integer"),
        (lambda ls: ls[:3], 4, "ends before the 'byte_ids: ...' line"),
        (lambda ls: ls[:-2], 9, "ends after 4 of 6 merges"),
        (lambda ls: ls + ["999 1 2 3"], 12, "unexpected text after the 6 merges"),
        (lambda ls: ls[:5] + ["256 97 97"] + ls[6:], 6, "expected 'new_id left_id right_id count'"),
        (lambda ls: ls[:5] + ["256 97 x 3"] + ls[6:], 6, "an id must be a non-negative integer"),
        (lambda ls: ls[:5] + ["256 97 97 -3"] + ls[6:], 6, "the count must be"),
        (lambda ls: ls[:5] + [ls[6], ls[5]] + ls[7:], 7, "expected an id above 257 here"),
        (lambda ls: ls[:5] + ["256 97 300 3"] + ls[6:], 6, "id 300 does not exist"),
        (lambda ls: ls[:5] + ["97 97 98 3"] + ls[6:], 6, "already a byte's id"),
        (lambda ls: ls[:6] + ["257 " + ls[5].split(" ", 1)[1]] + ls[7:], 7, "merged twice"),
    ],
)
def test_corrupt_files_raise_clear_errors(saved, edit, line, message):
    path, lines = saved
    corrupt(path, edit(lines))
    with pytest.raises(BPEFileError, match=message) as info:
        RegexTokenizer.load(path)
    assert str(info.value).startswith(f"{path}, line {line}: ")
    assert info.value.line == line


def test_binary_file_and_byte_tokenizer_file_are_refused(saved, tmp_path):
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\x80\x81\xff\x00")
    with pytest.raises(BPEFileError, match="not a text file"):
        RegexTokenizer.load(binary)
    plain = tmp_path / "plain.bpe"
    ByteTokenizer.train("hello", 258).save(plain)
    with pytest.raises(BPEFileError, match="ByteTokenizer.load"):
        RegexTokenizer.load(plain)


def test_saved_file_is_readable_text(saved):
    path, lines = saved
    assert lines[0] == "tokenization-from-scratch bpe v1"
    assert lines[1] == "pattern: " + __import__("json").dumps(CL100K_PATTERN)
    assert lines[2] == 'special_tokens: {"<|x|>": 500}'
    assert lines[4] == "merges: 6" and len(lines) == 11
    assert lines[5] == "256 97 98 4"  # new id, left, right, count: "a" "b" seen 4 times


def test_a_token_that_bpe_does_not_rebuild_is_not_taken_whole():
    """Merges ab, bc, a+bc make abc, yet BPE turns "abc" into ab, c: no whole-token shortcut."""
    tok = RegexTokenizer([((97, 98), None), ((98, 99), None), ((97, 257), None)], r"\S+|\s+")
    assert tok.encode("abc abc") == [256, 99, 32, 256, 99] == tok.encode_by_replay("abc abc")
    assert tok.encode("xbc") == [120, 257]
    with pytest.raises(ValueError, match="does not turn the bytes of token b'abc' back"):
        tok.to_tiktoken("inconsistent")


def test_the_whole_token_shortcut_gives_what_merging_gives():
    tok = RegexTokenizer.train(TRAINING_TEXT, 400)
    for token in tok.vocab.values():
        text = token.decode("utf-8", "replace")
        if text.encode() == token and tok.split(text) == [text]:
            tok._cache.clear()
            assert tok.encode_ordinary(text) == tok.encode_by_replay(text)
