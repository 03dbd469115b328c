"""BPE at real scale (chapter 10): train_bpe on files, vocabularies from elsewhere, streaming,
and the hand-off to tiktoken and to Hugging Face ``tokenizers``.

Speed is measured by ``benchmarks/bench_bpe.py``, never here; memory is measured by allocation
(``tracemalloc``), which does not depend on the machine's load.
"""

from __future__ import annotations

import itertools
import json
import tracemalloc
from collections import Counter
from unittest import mock

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from parity_corpus import TEXTS
from tokenizers import Regex, decoders, pre_tokenizers
from tokenizers import Tokenizer as HFTokenizer
from tokenizers.models import BPE

from book.encodings import cache_key, default_cache_dir, expected_files, get_encoding
from book.tokenizers import RegexTokenizer, train_bpe
from book.tokenizers.bpe import blocks, streaming
from book.tokenizers.bpe.blocks import NotUTF8Error
from book.tokenizers.bpe.convert import recover_merges
from book.tokenizers.bpe.patterns import (
    CL100K_PATTERN,
    GPT2_ORIGINAL_PATTERN,
    GPT2_PATTERN,
    O200K_PATTERN,
    split,
)
from book.tokenizers.bpe.pretokenize import CUT_PATTERNS, is_cut, training_chunk_counts
from book.tokenizers.bpe.train import file_chunk_counts
from book.tokenizers.formats.gpt2_files import bytes_to_unicode

# Library parity and whole-corpus runs: make test runs them, make test-fast does not.
pytestmark = pytest.mark.slow

EOT = "<|endoftext|>"
PATTERNS = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}
# Varied text (English, code, numbers, whitespace runs, many scripts, emoji) as documents.
DOCUMENTS = [text for text in TEXTS if text]
CORPUS = EOT.join(DOCUMENTS[:-1])


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text(CORPUS, encoding="utf-8")
    return path


# --- an independent trainer, written as CS336's handout describes it -------------------------


def reference_train_bpe(text, vocab_size, special_tokens, pattern=GPT2_PATTERN):
    """Split at specials, count pre-tokens, merge the most frequent pair; ties: greater bytes."""
    splitter = "|".join(regex.escape(s) for s in sorted(special_tokens, key=len, reverse=True))
    words: Counter[tuple[bytes, ...]] = Counter()
    for part in regex.split(splitter, text) if special_tokens else [text]:
        for match in regex.finditer(pattern, part):
            words[tuple(bytes([b]) for b in match.group().encode("utf-8"))] += 1
    vocab = {i: bytes([i]) for i in range(256)}
    merges = []
    while len(vocab) + len(special_tokens) < vocab_size:
        pairs: Counter[tuple[bytes, bytes]] = Counter()
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += count
        if not pairs:
            break
        best = max(pairs, key=lambda pair: (pairs[pair], pair))
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        merged: Counter[tuple[bytes, ...]] = Counter()
        for word, count in words.items():
            out, i = [], 0
            while i < len(word):
                if word[i : i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] += count
        words = merged
    for name in special_tokens:
        vocab[len(vocab)] = name.encode("utf-8")
    return vocab, merges


def test_train_bpe_lexicographic_reproduces_an_independent_trainer(corpus_file):
    specials = [EOT, "<|pad|>"]
    expected = reference_train_bpe(CORPUS, 400, specials)
    got = train_bpe(corpus_file, 400, specials, tie_break="lexicographic", workers=1)
    assert got == expected
    assert len(got[0]) == 400 and got[0][398] == EOT.encode()
    assert not any(b"<|" in a + b for a, b in got[1])  # no merge enters a special token


def test_train_bpe_default_tie_break_is_the_books_and_equals_regex_training(corpus_file):
    vocab, merges = train_bpe(corpus_file, 500, [EOT], pattern=CL100K_PATTERN, workers=1)
    tok = RegexTokenizer.train(CORPUS, 500, pattern=CL100K_PATTERN, special_tokens=[EOT])
    assert (vocab, merges) == tok.vocab_and_merges()


def test_without_cutting_at_specials_their_bytes_would_be_learned(corpus_file):
    _vocab, merges = train_bpe(corpus_file, 400, [], workers=1)
    assert any(b"<|" in a + b for a, b in merges)


@pytest.mark.parametrize("tie_break", ["first", "lexicographic"])
def test_train_bpe_in_parallel_blocks_learns_the_same(corpus_file, monkeypatch, tie_break):
    serial = train_bpe(corpus_file, 450, [EOT], tie_break=tie_break, workers=1)
    monkeypatch.setattr(blocks, "MIN_BLOCK", 2048)  # many small blocks, cut at spaces
    cuts = blocks.file_blocks(corpus_file, GPT2_PATTERN, [EOT], 2048)
    assert len(cuts) > 5
    assert train_bpe(corpus_file, 450, [EOT], tie_break=tie_break, workers=2) == serial


def test_blocks_cover_the_file_and_count_like_the_whole(corpus_file):
    for pattern in (*CUT_PATTERNS, r"\S+|\s+"):
        cuts = blocks.file_blocks(corpus_file, pattern, [EOT], 1000)
        assert cuts[0][0] == 0 and cuts[-1][1] == corpus_file.stat().st_size
        assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))
        counts: dict[bytes, int] = {}
        for block in cuts:
            training_chunk_counts(blocks.read_block(corpus_file, block), pattern, [EOT], counts)
        whole = training_chunk_counts(CORPUS, pattern, [EOT])
        assert list(counts.items()) == list(whole.items())  # same counts, same order


def test_an_unknown_pattern_is_cut_only_at_special_tokens(tmp_path, monkeypatch):
    path = tmp_path / "docs.txt"
    text = "ab cd" * 300 + EOT + "ef gh" * 300
    path.write_text(text, encoding="utf-8")
    cuts = blocks.file_blocks(path, r"\S+|\s+", [EOT], 100)
    assert [blocks.read_block(path, c)[-len(EOT) :] for c in cuts[:-1]] == [EOT]
    monkeypatch.setattr(blocks, "MIN_BLOCK", 100)
    counts = file_chunk_counts(path, r"\S+|\s+", [EOT], workers=2)
    assert counts == training_chunk_counts(text, r"\S+|\s+", [EOT])
    assert counts[b" "] == 600 and counts[b"cdab"] == 299


@given(
    st.lists(
        st.sampled_from(
            [
                " ",
                "  ",
                "\n",
                "\t",
                "\r\n",
                "\u00a0",
                "\u3000",
                "a",
                "Bc",
                "é",
                "中",
                "1",
                "234",
                "'",
                "'s",
                "'LL",
                "!",
                ".",
                "/",
                "\u0301",
                "🙂",
                "<|endoftext|>",
                "图书馆",
                "，",
                "。",
                "“",
                "-",
                "$",
                "HTML",
                "Parser",
                "\u200d",
                "’",
            ]
        ),
        max_size=30,
    ).map("".join)
)
def test_a_cut_never_changes_the_chunks(text):
    for pattern in (*CUT_PATTERNS, GPT2_ORIGINAL_PATTERN):
        whole = split(text, pattern)
        for position in range(len(text)):
            if is_cut(text, position, pattern, [EOT]):
                assert split(text[:position], pattern) + split(text[position:], pattern) == whole


# --- clear errors ------------------------------------------------------------------------------


def test_train_bpe_errors(tmp_path, corpus_file):
    with pytest.raises(ValueError, match=r"vocab_size must be an int >= 258 .*2 special tokens"):
        train_bpe(corpus_file, 257, [EOT, "<|pad|>"])
    with pytest.raises(ValueError, match="non-empty str"):
        train_bpe(corpus_file, 300, [""])
    with pytest.raises(ValueError, match="given more than once"):
        train_bpe(corpus_file, 300, [EOT, EOT])
    for workers in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="workers must be an int >= 1"):
            train_bpe(corpus_file, 300, [EOT], workers=workers)
    with pytest.raises(ValueError, match="tie_break must be"):
        train_bpe(corpus_file, 300, [EOT], tie_break="alphabetical")


def test_a_file_that_is_not_utf8_is_reported_with_offset_and_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("first line\nsecond line, café\nthird".encode("latin-1"))
    offset = len(b"first line\nsecond line, caf")
    for workers in (1, 2):
        with pytest.raises(NotUTF8Error, match=rf"byte {offset} \(line 2\) is not UTF-8.*e9"):
            train_bpe(path, 300, [], workers=workers)
    tok = RegexTokenizer.train("cafe", 257)
    with pytest.raises(NotUTF8Error, match=rf"byte {offset} \(line 2\)"):
        list(tok.encode_file(path))


# --- a vocabulary and merges from elsewhere ----------------------------------------------------


@pytest.fixture(scope="module")
def gpt2():
    return get_encoding("gpt2")


@pytest.fixture(scope="module")
def gpt2_from_vocab_merges(gpt2):
    """GPT-2 built from ``{id: bytes}`` and merges of bytes, as CS336's tests give it."""
    ranks = gpt2._mergeable_ranks
    vocab = {token_id: token for token, token_id in ranks.items()} | {50256: EOT.encode()}
    byte_ids, merges = recover_merges(ranks)
    pairs = [(vocab[a], vocab[b]) for (a, b), _ in merges]
    return RegexTokenizer.from_vocab_merges(vocab, pairs, [EOT])


def test_from_vocab_merges_encodes_like_tiktoken_on_the_parity_corpus(gpt2, gpt2_from_vocab_merges):
    tok = gpt2_from_vocab_merges
    assert tok.byte_ids[ord("!")] == 0 and tok.n_vocab == gpt2.n_vocab
    for text in TEXTS + [CORPUS]:
        expected = gpt2.encode(text, allowed_special="all")
        assert tok.encode(text, allowed_special="all") == expected
        assert tok.decode(expected) == text


def test_from_vocab_merges_keeps_ids_in_any_order():
    """CS336's reference vocabulary puts <|endoftext|> at 0 and the bytes at 1-256."""
    vocab = {0: EOT.encode(), **{1 + b: bytes([b]) for b in range(256)}}
    vocab |= {400: b"th", 257: b"the", 3000: b" the"}
    merges = [(b"t", b"h"), (b"th", b"e"), (b" ", b"the")]
    tok = RegexTokenizer.from_vocab_merges(vocab, merges, [EOT])
    assert tok.encode("the the" + EOT, allowed_special="all") == [257, 3000, 0]
    assert tok.n_vocab == 3001 and tok.token_bytes(400) == b"th"
    assert tok.vocab_and_merges() == (dict(sorted(vocab.items())), merges)
    # specials missing from the vocabulary are added after it, as CS336's tokenizer does
    assert RegexTokenizer.from_vocab_merges(vocab, merges, [EOT, "<|x|>"]).special_tokens == {
        EOT: 0,
        "<|x|>": 3001,
    }


BYTES = {i: bytes([i]) for i in range(256)}


@pytest.mark.parametrize(
    "vocab, merges, specials, message",
    [
        (BYTES | {256: b"ab"}, [(b"a", b"x!")], None, r"b'x!' is not in the vocabulary"),
        (
            BYTES | {256: b"ab", 257: b"abc"},
            [(b"ab", b"c"), (b"a", b"b")],
            None,
            "no byte or earlier merge makes b'ab'",
        ),
        (BYTES, [(b"a", b"b")], None, r"makes b'ab', which is not in the vocabulary"),
        ({i: bytes([i]) for i in range(255)}, [], None, "no token for byte 0xff"),
        (BYTES | {256: b"a"}, [], None, r"lists b'a' twice \(ids 97 and 256\)"),
        (BYTES | {256: b"<|x|>"}, [], [], "not one of the special tokens"),
        (BYTES | {256: b"\xff\xfe"}, [], None, "not UTF-8 text"),
        (BYTES, [], [EOT, EOT], "given more than once"),
        (BYTES, [], [""], "non-empty str"),
        (BYTES | {256: b"ab"}, [(b"a", b"b")], ["ab"], "also a learned token"),
    ],
)
def test_from_vocab_merges_says_what_does_not_fit(vocab, merges, specials, message):
    with pytest.raises(ValueError, match=message):
        RegexTokenizer.from_vocab_merges(vocab, merges, specials)


# --- hand-off: tiktoken and GPT-2 / Hugging Face files ------------------------------------------


@pytest.fixture(scope="module", params=list(PATTERNS))
def trained(request):
    """A tokenizer trained on the varied documents, with two special tokens."""
    pattern = PATTERNS[request.param]
    return RegexTokenizer.train(CORPUS, 1200, pattern=pattern, special_tokens=[EOT, "<|pad|>"])


def test_to_tiktoken_gives_the_same_ids(trained):
    encoding = trained.to_tiktoken("book_trained")
    assert encoding.n_vocab == trained.n_vocab == 1200
    for text in TEXTS + [CORPUS]:
        assert encoding.encode(text, allowed_special="all") == trained.encode(
            text, allowed_special="all"
        )
        assert encoding.encode_ordinary(text) == trained.encode_ordinary(text)
    back = RegexTokenizer.from_tiktoken(encoding)
    assert [pair for pair, _ in back.merges] == [pair for pair, _ in trained.merges]
    assert back.special_tokens == trained.special_tokens and back.pattern == trained.pattern


def test_to_tiktoken_refuses_ids_that_do_not_grow_with_rank():
    tok = RegexTokenizer([((104, 105), None), ((300, 33), None)], new_ids=[300, 299])
    with pytest.raises(ValueError, match="grow with their rank"):
        tok.to_tiktoken("x")


def hugging_face(vocab_path, merges_path, pattern) -> HFTokenizer:
    """Hugging Face's BPE on our files, with the split pattern as its pre-tokenizer."""
    hf = HFTokenizer(BPE.from_file(str(vocab_path), str(merges_path)))
    # Oniguruma (Hugging Face's regex engine) reads `{1,3}+` as "{1,3}, repeated", not as a
    # possessive {1,3}; the plain {1,3} splits the same way here (checked below).
    hf_pattern = pattern.replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
    assert all(split(t, hf_pattern) == split(t, pattern) for t in TEXTS)
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(hf_pattern), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    hf.decoder = decoders.ByteLevel()
    return hf


def test_gpt2_files_round_trip_and_hugging_face_encodes_identically(trained, tmp_path):
    vocab_path, merges_path = trained.save_gpt2_files(tmp_path)
    assert merges_path.read_text().splitlines()[0] == "#version: 0.2"
    table = bytes_to_unicode()
    entries = json.loads(vocab_path.read_text())
    assert entries["".join(table[b] for b in b" the")] == trained.encode_ordinary(" the")[0]
    loaded = RegexTokenizer.from_gpt2_files(vocab_path, merges_path, pattern=trained.pattern)
    assert loaded.vocab_and_merges() == trained.vocab_and_merges()
    assert loaded.special_tokens == trained.special_tokens
    hf = hugging_face(vocab_path, merges_path, trained.pattern)
    for text in TEXTS + [CORPUS.replace(EOT, "\n")]:
        ids = trained.encode_ordinary(text)
        assert hf.encode(text).ids == ids
        assert hf.decode(ids) == text


def test_gpt2s_own_files_load_and_encode_like_tiktoken(gpt2, gpt2_from_vocab_merges):
    files = {
        url.rsplit("/", 1)[1]: default_cache_dir() / cache_key(url)
        for url in expected_files("gpt2")
    }
    tok = RegexTokenizer.from_gpt2_files(files["encoder.json"], files["vocab.bpe"])
    assert tok.special_tokens == {EOT: 50256}  # the one entry no merge makes
    assert tok.vocab_and_merges() == gpt2_from_vocab_merges.vocab_and_merges()
    for text in TEXTS:
        assert tok.encode_ordinary(text) == gpt2.encode_ordinary(text)


def test_gpt2_files_errors(tmp_path):
    vocab_path, merges_path = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab_path.write_text(json.dumps({"a": 0}))
    merges_path.write_text("#version: 0.2\na b c\n")
    with pytest.raises(ValueError, match="line 2: expected two tokens"):
        RegexTokenizer.from_gpt2_files(vocab_path, merges_path)
    vocab_path.write_text(json.dumps({"a\n": 0}))
    with pytest.raises(ValueError, match=r"not in GPT-2's byte table"):
        RegexTokenizer.from_gpt2_files(vocab_path, merges_path)
    vocab_path.write_text("{oops")
    with pytest.raises(ValueError, match="not valid JSON"):
        RegexTokenizer.from_gpt2_files(vocab_path, merges_path)


# --- streaming ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tokenizer():
    return RegexTokenizer.train(CORPUS, 800, pattern=GPT2_PATTERN, special_tokens=[EOT, "<|a|>\n"])


@pytest.mark.parametrize("batch", [1, 100, streaming.BATCH])
def test_encode_iterable_over_a_file_equals_encode_of_the_whole(tokenizer, corpus_file, batch):
    whole = tokenizer.encode(CORPUS, allowed_special="all")
    with mock.patch.object(streaming, "BATCH", batch):
        with open(corpus_file, encoding="utf-8", newline="") as lines:  # keep "\r\n" as it is
            assert list(tokenizer.encode_iterable(lines, allowed_special="all")) == whole
        assert list(tokenizer.encode_iterable([])) == []


def test_encode_iterable_is_lazy(tokenizer):
    line, read = "the first line of many\n", 0

    def endless():
        nonlocal read
        while True:
            read += 1
            yield line

    first = list(itertools.islice(tokenizer.encode_iterable(endless()), 5))
    assert first == tokenizer.encode(line)[:5]
    assert read * len(line) < 2 * streaming.BATCH  # a batch was read, not the endless rest


def allocated_while_streaming(tokenizer, path, piece: int | None = None) -> int:
    """Peak bytes allocated while streaming ``path`` through ``encode_iterable``.

    The file is read by lines, or with ``piece`` in pieces of that many characters.
    """
    tokenizer.encode_ordinary("warm the cache " * 3)
    tracemalloc.start()
    try:
        with open(path, encoding="utf-8") as file:
            parts = file if piece is None else iter(lambda: file.read(piece), "")
            count = sum(1 for _ in tokenizer.encode_iterable(parts))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count > 0
    return peak


def test_streaming_memory_is_bounded_without_spaces_or_lines(tokenizer, tmp_path):
    # One line of Chinese, read in pieces: no space, no line break; its cuts fall after
    # letters, before "，" and "。".
    text = "那座古老的图书馆坐落在一条宽阔的河边。1887年，一位名叫玛丽亚的女教师写了一封信，"
    small, big = tmp_path / "small.txt", tmp_path / "big.txt"
    small.write_text(text * 2_000, encoding="utf-8")  # ~250 KB
    big.write_text(text * 20_000, encoding="utf-8")  # ~2.5 MB
    tokenizer.encode_ordinary(text)
    peak_small = allocated_while_streaming(tokenizer, small, 1 << 14)
    peak_big = allocated_while_streaming(tokenizer, big, 1 << 14)
    assert peak_big < 1_000_000, peak_big  # the whole text would take 1.7 MB as str alone
    assert peak_big < 1.5 * peak_small + 50_000


def test_streaming_holds_the_whole_text_for_a_pattern_without_known_cuts(tmp_path):
    tokenizer = RegexTokenizer.train("ab cd ef " * 50, 270, pattern=r"\S+|\s+")
    path = tmp_path / "words.txt"
    path.write_text("ab cd ef\n" * 100_000, encoding="utf-8")  # 900 KB
    assert allocated_while_streaming(tokenizer, path, 1 << 14) > 900_000


def test_streaming_memory_is_bounded_by_the_line_not_the_file(tokenizer, tmp_path):
    line = "Twelve tokens of plain English text, said the streaming test. 12345\n"
    small, big = tmp_path / "small.txt", tmp_path / "big.txt"
    small.write_text(line * 2_000, encoding="utf-8")  # ~140 KB
    big.write_text(line * 40_000, encoding="utf-8")  # ~2.8 MB
    tokenizer.encode_ordinary(line)  # its chunks are cached before measuring
    peak_small = allocated_while_streaming(tokenizer, small)
    peak_big = allocated_while_streaming(tokenizer, big)
    assert peak_big < 1_000_000, peak_big  # the whole text would take 2.8 MB as str alone
    assert peak_big < 1.5 * peak_small + 50_000  # flat: 20 times the text, not the memory


def test_encode_file_in_parallel_blocks_equals_encode(tokenizer, corpus_file, monkeypatch):
    whole = tokenizer.encode(CORPUS, allowed_special="all")
    assert list(tokenizer.encode_file(corpus_file, workers=1, allowed_special="all")) == whole
    monkeypatch.setattr(blocks, "MIN_BLOCK", 1024)
    assert list(tokenizer.encode_file(corpus_file, workers=2, allowed_special="all")) == whole


def test_streaming_refuses_a_disallowed_special_token_at_its_place(tokenizer):
    text = "plain text " * 50 + EOT + " more"
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    position = text.index(EOT)
    with mock.patch.object(streaming, "BATCH", 10), pytest.raises(ValueError, match=f"{position}"):
        list(tokenizer.encode_iterable(pieces))


piece_texts = st.lists(
    st.sampled_from(
        [
            " ",
            "  ",
            "\n",
            "\n\n",
            "\t",
            "\r\n",
            "a",
            "Ab",
            "word",
            "é",
            "中文",
            "12",
            "3456",
            "'",
            "'s",
            "!",
            "...",
            "🙂",
            EOT,
            "<|a|>\n",
            "<|a|>",
            "<|",
            "|>",
        ]
    ),
    max_size=40,
).map("".join)


@given(piece_texts, st.lists(st.integers(0, 200), max_size=8))
def test_any_split_into_pieces_encodes_like_the_whole(tokenizer, text, cuts):
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    expected = tokenizer.encode(text, allowed_special="all")
    with mock.patch.object(streaming, "BATCH", 1):  # look for a cut after every piece
        assert list(tokenizer.encode_iterable(pieces, allowed_special="all")) == expected
    assert tokenizer.decode(expected) == text


@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_fast_encoder_round_trips_any_text(tokenizer, text):
    ids = tokenizer.encode_ordinary(text)
    assert tokenizer.decode(ids) == text
    assert ids == tokenizer.encode_by_replay(text)
    assert (
        list(tokenizer.encode_iterable(text.splitlines(keepends=True), disallowed_special=()))
        == ids
    )


@given(
    st.text("aab c\n", max_size=80),
    st.integers(0, 40),
    st.lists(st.text("ab c\n", max_size=30), max_size=4),
    st.sampled_from(["first", "lexicographic"]),
)
def test_to_tiktoken_matches_any_trained_tokenizer(train_text, merges, texts, tie_break):
    """tiktoken merges by the rank of the merged token; on trained merges that is BPE's rule."""
    tok = RegexTokenizer.train(train_text, 256 + merges, pattern=GPT2_PATTERN, tie_break=tie_break)
    encoding = tok.to_tiktoken("tiny")
    for text in [*texts, train_text]:
        assert encoding.encode_ordinary(text) == tok.encode_ordinary(text)
