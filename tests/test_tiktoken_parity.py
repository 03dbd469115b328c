"""Our regex BPE, loaded from tiktoken's files, gives exactly tiktoken's ids (chapter 08).

Compared on a fixed corpus of varied texts (``parity_corpus.py``) and on generated text, for
GPT-2's, GPT-4's and GPT-4o's encodings. Also: our own training is deterministic, and what it
trains round-trips any text, even characters it never saw.

Generated text excludes unassigned code points (category ``Cn`` in Python's Unicode database)
as well as surrogates. On those the two regex engines may disagree about the split: the
``regex`` module knows newer Unicode versions than the Rust regex inside tiktoken, so a code
point assigned as a letter only recently is a letter to one engine and unassigned to the
other. Checked over every code point: all disagreements (about 17,500 code points with
regex 2026.11 and tiktoken 0.14) are ``Cn`` in Python 3.11's Unicode 14.0 database.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from parity_corpus import GROUPS, TEXTS

from book.encodings import get_encoding
from book.tokenizers.bpe.regex_bpe import RegexTokenizer

# Library parity and whole-corpus runs: make test runs them, make test-fast does not.
pytestmark = pytest.mark.slow

ENCODINGS = ("gpt2", "cl100k_base", "o200k_base")


@pytest.fixture(scope="module", params=ENCODINGS)
def pair(request):
    """(tiktoken's encoding, our tokenizer built from it), built once per module."""
    encoding = get_encoding(request.param)
    return encoding, RegexTokenizer.from_tiktoken(encoding)


assigned_text = st.text(st.characters(exclude_categories=("Cs", "Cn")))
# Text made of the pieces where split patterns and merges are most intricate.
tricky_text = st.lists(
    st.sampled_from(
        [
            " ",
            "  ",
            "\n",
            "\n\n",
            "\t",
            "\r\n",
            "\r",
            "\u00a0",
            "\u3000",
            "'",
            "'s",
            "'S",
            "'ll",
            "'LL",
            "'Re",
            "'ve",
            "'d",
            "'M",
            "'t",
            "0",
            "1",
            "7",
            "42",
            "123",
            "9999",
            "a",
            "A",
            "ab",
            "Hello",
            "world",
            "é",
            "ß",
            "Ω",
            "я",
            "中",
            "日本",
            "한",
            "ก",
            "🙂",
            "👍🏽",
            "\u200d",
            "\u0301",
            ".",
            ",",
            "!",
            "?",
            "/",
            "-",
            "_",
            "#",
            "(",
            ")",
            "{",
            "}",
            "<|endoftext|>",
        ]
    ),
    max_size=40,
).map("".join)


def check_parity(encoding, ours: RegexTokenizer, text: str) -> None:
    expected = encoding.encode_ordinary(text)
    got = ours.encode_ordinary(text)
    assert got == expected, f"{encoding.name} on {text[:80]!r}"
    assert ours.decode(got) == text


def test_corpus_is_large_and_varied():
    assert len(TEXTS) >= 200
    assert "" in TEXTS and len(TEXTS[-1]) >= 20_000
    assert all(len(group) >= 10 for group in GROUPS.values())


def test_corpus_parity(pair):
    encoding, ours = pair
    mismatches = [
        i
        for i, text in enumerate(TEXTS)
        if ours.encode_ordinary(text) != encoding.encode_ordinary(text)
    ]
    assert not mismatches, (
        f"{encoding.name}: texts {mismatches[:10]} differ, e.g. {TEXTS[mismatches[0]][:80]!r}"
    )
    assert all(ours.decode(ours.encode_ordinary(text)) == text for text in TEXTS)


def test_tokens_are_tiktokens(pair):
    encoding, ours = pair
    assert ours.n_vocab == encoding.n_vocab
    assert ours.special_tokens == encoding._special_tokens
    step = 997  # a sample across the whole vocabulary, each byte token included
    learned = len(ours.vocab)
    for token_id in [*range(256), *range(256, learned, step), learned - 1]:
        assert ours.vocab[token_id] == encoding.decode_single_token_bytes(token_id)


def test_every_assigned_character_matches(pair):
    """Each assigned code point alone, after a letter and between digits.

    Other letters (``Lo``: CJK ideographs, syllables, ...) and private-use characters number
    about 270,000 and behave alike, so one in seven of them is enough; all others are tested.
    """
    encoding, ours = pair
    chars = [chr(c) for c in range(0x110000) if _assigned(chr(c), c)]
    text = "".join(f"{c} x{c}1{c}\n" for c in chars)
    assert ours.encode_ordinary(text) == encoding.encode_ordinary(text)


def _assigned(char: str, code: int) -> bool:
    category = unicodedata.category(char)
    if category in ("Lo", "Co"):
        return code % 7 == 0
    return category not in ("Cn", "Cs")


@given(text=assigned_text)
def test_generated_text_parity(pair, text):
    check_parity(*pair, text)


@given(text=tricky_text)
def test_generated_tricky_text_parity(pair, text):
    check_parity(*pair, text)


@given(text=tricky_text, cut=st.integers(0, 60))
def test_decoding_a_cut_id_list_matches_tiktoken(pair, text, cut):
    """tiktoken also decodes with errors="replace", so half characters look the same."""
    encoding, ours = pair
    ids = encoding.encode_ordinary(text)[:cut]
    assert ours.decode(ids) == encoding.decode(ids)


def test_special_tokens_match_tiktoken(pair):
    encoding, ours = pair
    text = "Hello<|endoftext|> world <|endoftext|><|endoftext|>!"
    assert ours.encode(text, allowed_special="all") == encoding.encode(text, allowed_special="all")
    assert ours.encode(text, disallowed_special=()) == encoding.encode(text, disallowed_special=())
    with pytest.raises(ValueError):
        encoding.encode(text)
    with pytest.raises(ValueError, match="allowed_special"):
        ours.encode(text)


def test_trace_ends_in_tiktokens_tokens_and_is_fast(pair):
    """Lowest rank first: tracing is quick even through 200,000 merges."""
    encoding, ours = pair
    text = "Tokenization from scratch, with 12345 numbers and 日本語."
    steps = ours.trace(text)
    tokens = [encoding.decode_single_token_bytes(i) for i in encoding.encode_ordinary(text)]
    assert list(steps[-1].pieces) == tokens
    assert all(step.count is None for step in steps)  # tiktoken does not keep counts


def test_surrogate_repair_suggested_in_the_error_is_what_tiktoken_does(pair):
    encoding, ours = pair
    broken = "emoji half \ud83d here"
    with pytest.raises(UnicodeEncodeError, match="surrogatepass"):
        ours.encode_ordinary(broken)
    repaired = broken.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    assert ours.encode_ordinary(repaired) == encoding.encode_ordinary(broken)


# --- our own training ---------------------------------------------------------------------------

TRAINING = "\n".join(TEXTS[:-1])


@pytest.fixture(scope="module")
def trained():
    return RegexTokenizer.train(TRAINING, 600)


def test_training_is_deterministic(trained):
    """Same corpus, same merges: the tie-break leaves nothing to chance (or to hash order)."""
    again = RegexTokenizer.train(TRAINING, 600)
    assert again.merges == trained.merges
    assert trained.n_vocab == 600


@given(text=assigned_text)
def test_trained_tokenizer_round_trips_unseen_text(trained, text):
    ids = trained.encode_ordinary(text)
    assert trained.decode(ids) == text
    assert ids == trained.encode_by_replay(text)
