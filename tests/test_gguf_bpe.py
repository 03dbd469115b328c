"""Real models' byte-level BPE vocabularies (GGUF, ``tokenizer.ggml.model == "gpt2"``) read by
the book's code and matched id for id with llama.cpp's test vectors (the ids Hugging Face's
tokenizer of each model gives)."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book import corpora, vocabularies
from book.tokenizers.bpe.core import NO_RANK, merge_lowest_rank
from book.tokenizers.bpe.gguf_bpe import IGNORE_MERGES, byte_level_bpe
from book.tokenizers.bpe.patterns import GGUF_PRE_PATTERNS, split
from book.tokenizers.formats.gguf import GgufError, GgufVocabulary, read_gguf_vocabulary
from book.tokenizers.gguf import from_gguf, load_gguf

BYTE_LEVEL = [
    "aquila",
    "command-r",
    "deepseek-coder",
    "deepseek-llm",
    "falcon",
    "gpt-2",
    "gpt-neox",
    "llama-bpe",
    "mpt",
    "qwen2",
    "qwen35",
    "refact",
    "starcoder",
]
WITH_VECTORS = [name for name in BYTE_LEVEL if vocabularies.has_test_vectors(name)]

# Texts on which the book's ids differ from the .out file, with the cause found. Every text of
# every vocabulary matches, so the list is empty; a new difference fails the test until it is
# explained here.
EXPECTED_DIFFERENCES: dict[tuple[str, str], str] = {}


@pytest.fixture(scope="module", autouse=True)
def provisioned():
    vocabularies.provision()


@cache
def tokenizer(name: str):
    return load_gguf(vocabularies.vocabulary_path(name))


def test_every_byte_level_vocabulary_is_listed():
    models = {
        name: read_gguf_vocabulary(vocabularies.vocabulary_path(name)).model
        for name in vocabularies.VOCABULARIES
    }
    assert sorted(name for name, model in models.items() if model == "gpt2") == BYTE_LEVEL


@pytest.mark.parametrize("name", WITH_VECTORS)
def test_ids_match_the_models_own_tokenizer_on_every_test_text(name):
    tok = tokenizer(name)
    vectors = vocabularies.test_vectors(name)
    differing = {}
    for text, ids in vectors:
        # allowed_special="all": Hugging Face matches every added token in the text.
        got = tok.encode(text, allowed_special="all")
        if got != ids:
            differing[(name, text)] = (ids, got)
    expected = {key for key in EXPECTED_DIFFERENCES if key[0] == name}
    assert set(differing) == expected, differing
    assert len(vectors) >= 46


@pytest.mark.parametrize("name", WITH_VECTORS)
def test_decode_gives_every_test_text_back(name):
    tok = tokenizer(name)
    for text, ids in vocabularies.test_vectors(name):
        assert tok.decode(ids, errors="strict") == text


@pytest.mark.parametrize("name", ["gpt-2", "deepseek-llm", "falcon", "llama-bpe", "aquila"])
@given(text=st.text(max_size=80))
def test_any_text_round_trips(name, text):
    tok = tokenizer(name)
    assert tok.decode(tok.encode(text, allowed_special="all"), errors="strict") == text


def hugging_face_tokenizer(vocab: GgufVocabulary):
    """Hugging Face's tokenizers library given the same file: its BPE (merges by rank,
    ignore_merges), the same split patterns as isolated Splits, then ByteLevel."""
    from tokenizers import AddedToken, Regex, Tokenizer, models, pre_tokenizers

    pre = vocab.pre or "default"
    kinds = list(zip(vocab.tokens, vocab.token_types))
    learned = {token: i for i, (token, kind) in enumerate(kinds) if kind not in (3, 4)}
    bpe = models.BPE(learned, list(vocab.merges), ignore_merges=pre in IGNORE_MERGES)
    hf = Tokenizer(bpe)
    patterns = GGUF_PRE_PATTERNS[pre]
    steps = [
        pre_tokenizers.Split(Regex(pattern), behavior="isolated")
        for pattern in ((patterns,) if isinstance(patterns, str) else patterns)
    ]
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    hf.pre_tokenizer = pre_tokenizers.Sequence([*steps, byte_level])
    hf.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for t, k in kinds if k == 3]
    )
    hf.add_tokens([AddedToken(t, special=False, normalized=False) for t, k in kinds if k == 4])
    return hf


def corpus_chunks() -> list[str]:
    texts = [corpora.sample(name) for name in ("english", "technical", "code", "code-c")]
    texts += corpora.parallel().values()
    return [chunk for text in texts for chunk in text.split("\n\n")]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["llama-bpe", "deepseek-llm", "falcon", "aquila", "gpt-neox"])
def test_bpe_matches_hugging_face_on_the_corpora(name):
    """Beyond the vectors: the same merges, added tokens and patterns in Hugging Face's
    tokenizers give the same ids on every paragraph of the book's corpora (21 languages,
    code): Llama 3's merges that make one token several ways, ignore_merges, Falcon's
    missing bytes, GPT-NeoX's added runs of spaces."""
    tok = tokenizer(name)
    hf = hugging_face_tokenizer(read_gguf_vocabulary(vocabularies.vocabulary_path(name)))
    chunks = corpus_chunks()
    differing = [
        chunk
        for chunk in chunks
        if tok.encode(chunk, allowed_special="all")
        != hf.encode(chunk, add_special_tokens=False).ids
    ]
    assert differing == [] and len(chunks) > 2000


@pytest.mark.slow
@pytest.mark.parametrize("name", ["aquila", "gpt-neox"])
def test_vocabularies_without_vectors_round_trip_the_corpora(name):
    tok = tokenizer(name)
    text = corpora.sample("english")[:5000] + corpora.sample("code")[:5000]
    ids = tok.encode(text, allowed_special="all")
    assert tok.decode(ids) == text and len(ids) < len(text.encode()) / 2


@pytest.mark.parametrize("pre", sorted(GGUF_PRE_PATTERNS))
@given(text=st.text(max_size=60))
def test_every_split_pattern_keeps_every_character(pre, text):
    assert "".join(split(text, GGUF_PRE_PATTERNS[pre])) == text


def test_the_split_patterns_cut_numbers_as_each_model_does():
    def numbers(pre):
        return [
            piece
            for piece in split("In 2024, 12345 apples", GGUF_PRE_PATTERNS[pre])
            if piece.strip(" ,").isdigit()
        ]

    assert numbers("gpt-2") == [" 2024", " 12345"]  # with the space before
    assert numbers("llama-bpe") == numbers("falcon") == ["202", "4", "123", "45"]  # threes
    assert numbers("qwen2") == numbers("starcoder") == list("202412345")  # single digits
    assert numbers("deepseek-llm") == ["2024", "12345"]  # runs of digits, apart from the space


def test_specials_and_added_tokens_keep_their_attributes():
    tok = tokenizer("qwen2")
    assert tok.special_tokens["<|im_start|>"] == 151644
    assert "<|im_start|>" not in tok.added_tokens  # control: only when allowed
    with pytest.raises(ValueError, match="special token '<\\|im_start\\|>'"):
        tok.encode("<|im_start|>user")
    neox = tokenizer("gpt-neox")
    spaces = " " * 24
    assert spaces in neox.added_tokens  # user-defined: matched in any text, as Hugging Face does
    assert neox.encode("a" + spaces + "b") == [*neox.encode("a"), 50254, *neox.encode("b")]


def test_llama3_takes_a_whole_token_whatever_the_merges_make():
    # ignore_merges: a chunk that is a token is that token (Hugging Face's BPE option, which
    # Llama 3's tokenizer.json sets and llama.cpp follows).
    tok = tokenizer("llama-bpe")
    assert all(len(tok.encode(tok.decode([i]))) == 1 for i in range(1000, 128000, 997))


@pytest.mark.parametrize("text", ["a" * 70, "ab" * 40, ".:" * 40, "  " * 40 + "x", "é" * 50])
def test_long_chunks_merge_as_the_lowest_rank_rule_says(text):
    """Chunks of more than 32 symbols take the heap encoder; where several merges make one
    token (Llama 3), it must still merge the lowest-ranked pair first, leftmost first."""
    tok = tokenizer("llama-bpe")
    symbols = lowest_rank_rule(tok.text_to_byte_ids(text), tok.ranks, tok.new_ids)
    whole, tok._whole = tok._whole, {}  # merges only: the whole-token shortcut would hide them
    try:
        assert tok._encode_chunk(text) == symbols
    finally:
        tok._whole = whole
        tok._cache.clear()


@pytest.mark.parametrize("name", ["deepseek-llm", "gpt-neox"])
def test_saving_what_the_books_file_cannot_hold_is_refused(name, tmp_path):
    with pytest.raises(ValueError, match="several patterns or added tokens"):
        tokenizer(name).save(tmp_path / "tok.bpe")
    assert not (tmp_path / "tok.bpe").exists()


def lowest_rank_rule(symbols, ranks, new):
    """Merge the lowest-ranked pair present, leftmost first, one merge at a time."""
    symbols = list(symbols)
    while True:
        pairs = [ranks.get(pair, NO_RANK) for pair in zip(symbols, symbols[1:])]
        if not pairs or min(pairs) == NO_RANK:
            return symbols
        i = pairs.index(min(pairs))
        symbols[i : i + 2] = [new[min(pairs)]]


def test_the_heap_encoder_merges_a_lower_rank_pair_it_creates_first():
    # "bc" (rank 2) makes the pair ("bc", "b"), whose merge "bcb" ranks before it (1), as
    # in merges converted from tiktoken: "bcb" must be merged before the next "bc".
    ranks, new = {(1, 1): 0, (10, 2): 1, (2, 3): 2}, [9, 11, 10]
    symbols = [2, 3] * 20  # more than 32 symbols: the heap encoder
    expected = lowest_rank_rule(symbols, ranks, new)
    assert expected[:4] == [11, 3, 11, 3]
    assert merge_lowest_rank(symbols, ranks, new) == expected


def small_vocabulary(model="gpt2", pre="gpt-2") -> GgufVocabulary:
    from book.tokenizers.formats.gpt2_files import bytes_to_unicode

    tokens = tuple(bytes_to_unicode()[byte] for byte in range(256)) + ("hi",)
    return GgufVocabulary(
        path="small.gguf",
        version=3,
        model=model,
        pre=pre,
        tokens=tokens,
        scores=None,
        token_types=(1,) * len(tokens),
        merges=(("h", "i"),),
        special_ids={},
        add_bos=None,
        add_eos=None,
        add_space_prefix=None,
        chat_template=None,
        metadata={},
    )


def test_a_small_vocabulary_builds():
    assert from_gguf(small_vocabulary()).encode("hi!") == [256, 33]


def test_an_unknown_model_type_is_refused_by_name():
    with pytest.raises(GgufError, match="cannot read the tokenizer model 'rwkv'"):
        from_gguf(small_vocabulary(model="rwkv"))


def test_an_unknown_pre_tokenizer_is_refused_by_name():
    with pytest.raises(GgufError, match="no split pattern for the pre-tokenizer 'tekken-9'"):
        byte_level_bpe(small_vocabulary(pre="tekken-9"))
