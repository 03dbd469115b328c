"""Byte-level BPE (chapter 05): primitives, training (fast == naive), encode, decode, trace."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.tokenizers import Tokenizer
from book.tokenizers.bpe import core as bpe_core
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import (
    build_vocab,
    get_pair_counts,
    merge,
    merge_lowest_rank,
    replay_merges,
    train_naive,
)
from book.tokenizers.bpe.train import train_merges
from book.tokenizers.errors import BPEFileError, InvalidUTF8Error, UnknownIdError

COMMON_WORDS = (
    "the of and to a in is it you that he was for on are with as I his they be at one have "
    "this from or had by hot word but what some we can out other were all there when up use "
    "your how said an each she which do their time if will way about many then them write "
    "would like so these her long make thing see him two has look more day could go come did "
    "number sound no most people my over know water than call first who may down side been "
    "now find any new work part take get place made live where after back little only round "
    "man year came show every good me give our under name very through just form sentence "
    "great think say help low line differ turn cause much mean before move right boy old too "
    "same tell does set three want air well also play small end put home read hand port large "
    "spell add even land here must big high such follow act why ask men change went light"
).split()


def english_like(n_chars: int, seed: int = 0) -> str:
    """Deterministic English-looking text: common words with Zipf-like frequencies."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(COMMON_WORDS))]
    out: list[str] = []
    size = 0
    while size < n_chars:
        words = rng.choices(COMMON_WORDS, weights, k=rng.randint(5, 15))
        sentence = " ".join(words).capitalize() + rng.choice([".", ".", ".", "?", "!", ","])
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)


ENGLISH = english_like(6_000)
TOKENIZER = ByteTokenizer.train(ENGLISH, vocab_size=400)
any_text = st.text(st.characters(exclude_categories=("Cs",)))


def test_satisfies_the_tokenizer_interface():
    assert isinstance(TOKENIZER, Tokenizer)
    assert TOKENIZER.n_vocab == 400 == max(TOKENIZER.vocab) + 1
    assert [TOKENIZER.token_bytes(i) for i in TOKENIZER.encode("the")] == [b"the"]
    with pytest.raises(UnknownIdError):
        TOKENIZER.token_bytes(400)


# --- pair counts and merge ----------------------------------------------------------------------


def test_get_pair_counts_counts_in_order_of_first_occurrence():
    assert get_pair_counts([1, 2, 3, 1, 2]) == {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    assert list(get_pair_counts([5, 4, 3, 5, 4])) == [(5, 4), (4, 3), (3, 5)]


def test_get_pair_counts_counts_overlaps_and_accumulates():
    assert get_pair_counts([7, 7, 7]) == {(7, 7): 2}
    counts = get_pair_counts([1, 2])
    assert get_pair_counts([1, 2, 3], counts) is counts
    assert counts == {(1, 2): 2, (2, 3): 1}
    assert get_pair_counts([]) == {} and get_pair_counts([9]) == {}


def test_merge_replaces_left_to_right_without_overlap():
    assert merge([1, 2, 3, 1, 2], (1, 2), 256) == [256, 3, 256]
    assert merge([7, 7, 7, 7], (7, 7), 256) == [256, 256]
    assert merge([7, 7, 7], (7, 7), 256) == [256, 7]
    assert merge([1, 2, 1], (2, 2), 256) == [1, 2, 1]
    assert merge([], (1, 2), 256) == []
    assert merge([3, 1, 2], (1, 2), 256) == [3, 256]


# --- training -----------------------------------------------------------------------------------


def test_vocab_size_below_256_is_a_clear_error():
    for bad in (255, 0, -1, 300.0, "512", True, None):
        with pytest.raises(ValueError, match=r"vocab_size must be an int >= 256 .*256 byte tokens"):
            ByteTokenizer.train("hello", bad)


def test_unknown_tie_break_is_a_clear_error():
    with pytest.raises(ValueError, match="tie_break must be 'first'.* or 'lexicographic'"):
        ByteTokenizer.train("hello", 300, tie_break="last")


def test_vocab_size_256_learns_nothing_and_encodes_bytes():
    tok = ByteTokenizer.train("hello hello", 256)
    assert tok.merges == [] and tok.encode("héllo") == list("héllo".encode())


def test_training_stops_early_when_no_pair_is_left():
    tok = ByteTokenizer.train("abcd", 1000)
    assert tok.n_vocab == 259 and tok.vocab[258] == b"abcd"
    assert ByteTokenizer.train("", 300).merges == []


def test_tie_break_prefers_the_pair_that_occurs_first():
    # (x, y) and (a, b) both occur twice; whichever comes first in the text is merged first.
    assert ByteTokenizer.train("xyab ab xy", 257).merges == [((120, 121), 2)]
    assert ByteTokenizer.train("abxy xy ab", 257).merges == [((97, 98), 2)]


def test_lexicographic_tie_break_prefers_the_greater_pair_of_bytes():
    # ab, xy and "y " each occur twice; b"y" is the greatest first part.
    assert ByteTokenizer.train("abxy xy ab", 257, tie_break="lexicographic").merges == [
        ((121, 32), 2)
    ]
    # The first part decides before the second: (b"b", b"a") > (b"a", b"z").
    assert train_merges([b"az", b"ba"], 1, tie_break="lexicographic") == [((98, 97), 1)]


def test_merges_record_their_counts_and_counts_never_grow():
    merges = TOKENIZER.merges
    assert merges[0] == ((101, 32), max(get_pair_counts(list(ENGLISH.encode())).values()))
    counts = [count for _pair, count in merges]
    assert counts == sorted(counts, reverse=True)


def test_fast_training_equals_naive_training_on_english():
    data = ENGLISH[:3000].encode()
    assert train_merges({data: 1}, 150) == train_naive([data], 150)


TIE_BREAKS = st.sampled_from(["first", "lexicographic"])


@given(
    st.lists(st.lists(st.integers(0, 3), max_size=12), max_size=8), st.integers(0, 30), TIE_BREAKS
)
def test_fast_training_equals_naive_training_on_chunks(chunks, num_merges, tie_break):
    """Tiny alphabets force many ties and overlapping pairs such as (0, 0, 0)."""
    counts: dict[tuple[int, ...], int] = {}
    for chunk in chunks:
        counts[tuple(chunk)] = counts.get(tuple(chunk), 0) + 1
    fast = train_merges(counts, num_merges, tie_break=tie_break)
    assert fast == train_naive(chunks, num_merges, tie_break=tie_break)


@given(st.binary(max_size=200), st.integers(0, 40), TIE_BREAKS)
def test_fast_training_equals_naive_training_on_bytes(data, num_merges, tie_break):
    fast = train_merges({data: 1}, num_merges, tie_break=tie_break)
    assert fast == train_naive([data], num_merges, tie_break=tie_break)


def test_training_is_deterministic():
    assert ByteTokenizer.train(ENGLISH, 400).merges == TOKENIZER.merges


def test_training_reaches_a_few_thousand_tokens_on_the_chapter_sized_text():
    """Chapter 05 trains to a few thousand tokens on ~60 KB (speed is benchmarks/' business)."""
    tok = ByteTokenizer.train(english_like(60_000, seed=1), 3000)
    assert tok.n_vocab == 3000 and len(set(tok.vocab.values())) == 3000


# --- vocabulary ---------------------------------------------------------------------------------


def test_vocab_is_bytes_then_one_token_per_merge():
    vocab = TOKENIZER.vocab
    assert len(vocab) == TOKENIZER.n_vocab == 400
    assert all(vocab[b] == bytes([b]) for b in range(256))
    for rank, ((left, right), _count) in enumerate(TOKENIZER.merges):
        assert vocab[256 + rank] == vocab[left] + vocab[right]


def test_build_vocab_honours_a_byte_order():
    byte_ids = list(reversed(range(256)))
    vocab = build_vocab([((byte_ids[ord("a")], byte_ids[ord("b")]), None)], byte_ids)
    assert vocab[255] == b"\x00" and vocab[256] == b"ab"


def test_constructor_rejects_impossible_merges():
    with pytest.raises(ValueError, match="below 256"):
        ByteTokenizer([((1, 256), 3)])
    with pytest.raises(ValueError, match="repeats the pair"):
        ByteTokenizer([((1, 2), 3), ((1, 2), 2)])
    with pytest.raises(ValueError, match="byte_ids"):
        ByteTokenizer(byte_ids=[0] * 256)
    with pytest.raises(ValueError, match="already a token's id"):
        ByteTokenizer([((1, 2), 3)], new_ids=[7])
    with pytest.raises(ValueError, match="one id per merge"):
        ByteTokenizer([((1, 2), 3)], new_ids=[])


def test_a_vocabulary_numbered_otherwise_encodes_and_decodes():
    """Ids need not follow the book's numbering (CS336 puts a special token at id 0)."""
    byte_ids = [b + 1 for b in range(256)]
    tok = ByteTokenizer([((105, 106), None), ((1000, 34), None)], byte_ids, new_ids=[1000, 0])
    assert tok.encode("hi!") == [0] and tok.decode([0, 105]) == "hi!h"
    assert tok.n_vocab == 1001 and tok.token_bytes(1000) == b"hi"
    assert tok.encode_by_replay("hi hi!") == tok.encode("hi hi!") == [1000, 33, 0]


# --- encode -------------------------------------------------------------------------------------


def test_encode_examples():
    tok = ByteTokenizer([((104, 105), 2), ((256, 33), 1)])
    assert tok.encode("hi hi!") == [256, 32, 257]
    assert tok.encode("") == []
    assert tok.encode("é") == [195, 169]


@given(any_text)
def test_replay_and_lowest_rank_first_agree(text):
    assert TOKENIZER.encode(text) == TOKENIZER.encode_by_replay(text)


def test_replay_and_lowest_rank_first_agree_on_long_text():
    text = english_like(3000, seed=5)
    ids = TOKENIZER.encode(text)
    assert ids == TOKENIZER.encode_by_replay(text)
    assert len(ids) < len(text.encode()) / 2


@given(st.lists(st.integers(0, 5), max_size=300))
def test_list_and_heap_encoders_agree(ids):
    """The heap is used above LONG_SEQUENCE ids; both must give the same tokens."""
    ranks = {(0, 0): 0, (1, 2): 1, (256, 0): 2, (257, 3): 3, (4, 4): 4, (260, 260): 5, (5, 1): 6}
    expected = replay_merges(ids, list(ranks.items()))
    assert bpe_core._merge_lowest_rank_heap(ids, ranks) == expected
    assert merge_lowest_rank(ids, ranks) == expected


@given(st.lists(st.sampled_from("ab"), max_size=200))
def test_heap_encoder_works_on_strings_too(symbols):
    merges = [(("a", "b"), None), (("b", "a"), None), (("ab", "ab"), None), (("a", "a"), None)]
    new = [a + b for (a, b), _ in merges]
    ranks = {pair: rank for rank, (pair, _) in enumerate(merges)}
    expected = replay_merges(symbols, merges, new)
    assert bpe_core._merge_lowest_rank_heap(symbols, ranks, new) == expected


def test_a_64k_piece_is_not_quadratic():
    """One long piece (64K bytes, no split) takes n log n steps: counted, not timed."""
    calls = 0

    class CountingRanks(dict):
        def get(self, key, default=None):
            nonlocal calls
            calls += 1
            return super().get(key, default)

    ranks = CountingRanks({(97, 97): 0, (256, 256): 1, (257, 257): 2, (258, 258): 3})
    ids = [97] * 65_536
    merged = merge_lowest_rank(ids, ranks)
    assert merged == [259] * 4096
    assert calls < 10 * len(ids)  # about 3 lookups per merge; a quadratic scan makes billions


def test_encode_covers_text_never_seen_in_training():
    text = "Ωμέγα 你好 🦙 \x00"
    assert TOKENIZER.decode(TOKENIZER.encode(text)) == text


def test_lone_surrogates_are_a_clear_error():
    with pytest.raises(UnicodeEncodeError, match="lone surrogate U\\+D800 at position 2"):
        TOKENIZER.encode("ab\ud800")
    with pytest.raises(UnicodeEncodeError, match="surrogatepass"):
        ByteTokenizer.train("x\udfff", 300)


# --- decode -------------------------------------------------------------------------------------


@given(any_text)
def test_decode_round_trips_any_text(text):
    assert TOKENIZER.decode(TOKENIZER.encode(text)) == text
    assert TOKENIZER.decode(TOKENIZER.encode(text), errors="strict") == text


def test_decode_replaces_a_cut_character_by_default():
    ids = TOKENIZER.encode("hi 🦙")
    assert TOKENIZER.decode(ids[:-1]) == "hi \ufffd"
    assert TOKENIZER.decode_bytes(ids[:-1]) == "hi 🦙".encode()[:-1]


def test_strict_decode_explains_a_truncated_character():
    tok = ByteTokenizer()
    ids = tok.encode("ab€")  # € is three bytes: e2 82 ac
    with pytest.raises(InvalidUTF8Error) as info:
        tok.decode(ids[:-1], errors="strict")
    message = str(info.value)
    assert "tokens 2-3 hold bytes e2 82" in message
    assert "only 2 of the 3 bytes" in message and "errors='replace'" in message
    assert isinstance(info.value, UnicodeDecodeError) and isinstance(info.value, ValueError)
    assert info.value.token_span == (2, 4)


def test_strict_decode_explains_bytes_that_never_start_a_character():
    with pytest.raises(InvalidUTF8Error, match=r"token 1 holds bytes ff.*invalid start byte"):
        ByteTokenizer().decode([104, 255, 105], errors="strict")
    with pytest.raises(InvalidUTF8Error) as info:
        ByteTokenizer().decode([0x82, 0xE2, 0xAC], errors="strict")
    # No later id can repair a lone continuation byte: the message must not say to wait for one.
    message = str(info.value)
    assert "cannot become valid whatever ids follow" in message and "reordered" in message
    assert "once the ids of the rest" not in message


def test_only_a_truncated_character_is_worth_waiting_for():
    with pytest.raises(InvalidUTF8Error, match="once the ids of the rest of the character"):
        ByteTokenizer().decode([0xE2, 0x82], errors="strict")
    for invalid in ([0xC3, 0x28], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xFF]):
        with pytest.raises(InvalidUTF8Error) as info:
            ByteTokenizer().decode(invalid, errors="strict")
        assert "once the ids" not in str(info.value), invalid


def test_decode_rejects_unknown_ids():
    for bad in (400, -1, "3", 1.0):
        with pytest.raises(UnknownIdError, match="valid ids are 0 to 399"):
            TOKENIZER.decode([104, bad])
    with pytest.raises(UnknownIdError):
        TOKENIZER.decode(iter([104, 400]))


# --- trace --------------------------------------------------------------------------------------


def test_trace_starts_with_bytes_and_ends_with_the_encoding():
    text = "the other day, the man"
    steps = TOKENIZER.trace(text)
    assert steps[0].rank is None and steps[0].pieces == tuple(bytes([b]) for b in text.encode())
    assert list(steps[-1].pieces) == [TOKENIZER.vocab[i] for i in TOKENIZER.encode(text)]
    ranks = [step.rank for step in steps[1:]]
    assert ranks == sorted(set(ranks))
    for before, after in zip(steps, steps[1:]):
        assert b"".join(after.pieces) == text.encode()
        assert after.n_tokens < before.n_tokens  # one step per merge that changed something
        pair, count = TOKENIZER.merges[after.rank]
        assert after.pair == (TOKENIZER.vocab[pair[0]], TOKENIZER.vocab[pair[1]])
        assert after.new == TOKENIZER.vocab[256 + after.rank] and after.count == count


def test_trace_of_a_tokenizer_numbered_otherwise():
    tok = ByteTokenizer([((104, 105), 1)], new_ids=[300])
    assert [step.pieces for step in tok.trace("hi")] == [(b"h", b"i"), (b"hi",)]


def test_trace_keeps_partial_characters_as_bytes():
    steps = ByteTokenizer().trace("é")
    assert len(steps) == 1 and steps[0].pieces == (b"\xc3", b"\xa9")


def test_trace_of_empty_text_is_one_empty_step():
    assert [step.pieces for step in TOKENIZER.trace("")] == [()]


# --- save and load ------------------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "tok.bpe"
    TOKENIZER.save(path)
    loaded = ByteTokenizer.load(path)
    assert loaded.merges == TOKENIZER.merges and loaded.vocab == TOKENIZER.vocab
    lines = path.read_text().splitlines()
    assert lines[:5] == [
        "tokenization-from-scratch bpe v1",
        "pattern: null",
        "special_tokens: {}",
        "byte_ids: identity",
        "merges: 144",
    ]
    (left, right), count = TOKENIZER.merges[0]
    assert lines[5] == f"256 {left} {right} {count}"


def test_loading_a_regex_tokenizer_file_as_byte_tokenizer_says_what_to_use(tmp_path):
    from book.tokenizers.bpe.regex_bpe import RegexTokenizer

    path = tmp_path / "regex.bpe"
    RegexTokenizer.train("hello world", 260).save(path)
    with pytest.raises(BPEFileError, match="RegexTokenizer.load"):
        ByteTokenizer.load(path)
