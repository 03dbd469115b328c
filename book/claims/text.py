"""Claims about text, bytes, characters and words (chapters 01-03), each computed here.

>>> [claim.id for claim in CLAIMS][:3]
['utf8-h-i', 'utf8-nihao-globe', 'utf8-ascii-european']
"""

from __future__ import annotations

import functools
import sys
import unicodedata

import numpy as np
import regex

from book import corpora, walkthroughs
from book.analysis import bytes_per_token, oov_rate, tokens_per_word
from book.claims.core import Claim, approx, between
from book.tokenizers import ByteTokenizer, CharTokenizer, WordTokenizer
from book.tokenizers.basic.words import split_words

SENTENCE = "the cat sat on the mat"  # the walkthrough's example, the start of CAT_TEXT
SURROGATES = range(0xD800, 0xE000)  # UTF-16's halves: code points, but never characters

# A word in the count of letters per word: letters and marks, apostrophes inside, no punctuation.
LETTERS = regex.compile(r"[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*")


def assigned(code_point: int) -> bool:
    """Whether Python's Unicode database gives ``code_point`` a character.

    Unassigned (Cn), private-use (Co) and surrogate (Cs) code points are not characters.

    >>> assigned(ord("é")), assigned(0xD800), assigned(0xE000)
    (True, False, False)
    """
    return unicodedata.category(chr(code_point)) not in ("Cn", "Co", "Cs")


@functools.cache
def assigned_code_points() -> tuple[int, ...]:
    """Every code point with a character in this Python's Unicode version (about a second)."""
    return tuple(cp for cp in range(sys.maxunicode + 1) if assigned(cp))


def utf8_lengths(pattern: str) -> dict[int, int]:
    """``{UTF-8 length: how many}`` over the assigned code points that match a regex class.

    >>> utf8_lengths(r"[\\x00-\\x7f]")
    {1: 128}
    """
    matches = regex.compile(pattern).match
    counts: dict[int, int] = {}
    for cp in assigned_code_points():
        if matches(chr(cp)):
            n = len(chr(cp).encode("utf-8"))
            counts[n] = counts.get(n, 0) + 1
    return dict(sorted(counts.items()))


def scalar_values_round_trip() -> tuple[int, int]:
    """(code points whose UTF-8 round-trips, code points UTF-8 cannot encode at all).

    Every code point but the 2,048 surrogates is a *scalar value*, and UTF-8 encodes exactly
    those (RFC 3629 forbids encoding a surrogate).
    """
    ok = failed = 0
    for cp in range(sys.maxunicode + 1):
        try:
            ok += chr(cp).encode("utf-8").decode("utf-8") == chr(cp)
        except UnicodeEncodeError:
            failed += 1
    return ok, failed


def family_emoji_parts() -> tuple[int, int, int]:
    """(emoji, zero-width joiners, UTF-8 bytes) of the ZWJ family emoji.

    >>> family_emoji_parts()
    (4, 3, 25)
    """
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
    joiners = family.count("\u200d")
    return len(family) - joiners, joiners, len(family.encode("utf-8"))


# -------------------------------------------------- chapter 02: characters ----------------


@functools.cache
def plays_char_tokenizer() -> CharTokenizer:
    """The character tokenizer of chapter 02: every character of the two training plays."""
    return CharTokenizer.train(corpora.english("train"))


def english_texts() -> dict[str, str]:
    """The book's English texts: the plays, the Python docs, the parallel passage."""
    return {
        "the plays": corpora.english("all"),
        "the Python docs": corpora.technical(),
        "the English passage": corpora.parallel()["English"],
    }


def outside_latin1() -> dict[str, str]:
    """{text: its distinct characters above U+00FF}, for each English text of the book."""
    return {
        name: "".join(sorted({ch for ch in text if ord(ch) > 0xFF}))
        for name, text in english_texts().items()
    }


def letters_per_word(text: str) -> float:
    """Mean letters per word, punctuation split off (``LETTERS``).

    >>> letters_per_word("Hi, Bob!")
    2.5
    """
    words = LETTERS.findall(text)
    return sum(map(len, words)) / len(words)


def char_bytes_per_token() -> dict[str, float]:
    """Bytes per token of a character tokenizer of all the passages, on a few of them."""
    passages = corpora.parallel()
    tok = CharTokenizer.train("".join(passages.values()))
    return {
        name: bytes_per_token(tok, passages[name]) for name in ("English", "Russian", "Chinese")
    }


# -------------------------------------------------- chapter 03: words ---------------------


def heldout_oov_all_training_words() -> float:
    """OOV rate of The Tempest's words under every word of the two training plays."""
    vocab = WordTokenizer.train(corpora.english("train"))
    return oov_rate(vocab, split_words(corpora.english("heldout")))


def zipf_exponent(words: list[str], top: int | None = None) -> float:
    """The ``a`` of frequency ~ rank ** -a: least squares on log frequency vs log rank.

    Only the ``top`` most frequent words when given (the fit depends on the range fitted).

    >>> round(zipf_exponent(["a"] * 6 + ["b"] * 3 + ["c"] * 2), 2)
    1.0
    """
    counts: dict[str, int] = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    frequencies = np.array(sorted(counts.values(), reverse=True)[:top], dtype=float)
    ranks = np.arange(1, len(frequencies) + 1)
    slope, _intercept = np.polyfit(np.log(ranks), np.log(frequencies), 1)
    return float(-slope)


def training_words() -> list[str]:
    """The words of the two training plays, punctuation left out (chapter 03's Zipf plot)."""
    return [word for word in split_words(corpora.english("train")) if word[0].isalpha()]


def embedding_gigabytes(vocab_size: int, width: int, bytes_per_number: int = 2) -> float:
    """Size in GB (10**9 bytes) of a ``vocab_size`` x ``width`` table of 16-bit numbers.

    >>> round(embedding_gigabytes(202_048, 5_120), 2)
    2.07
    """
    return vocab_size * width * bytes_per_number / 1e9


def _show_lengths(lengths: dict[int, int]) -> str:
    """``{3: 28400, 4: 65815}`` -> '3 bytes: 28,400; 4 bytes: 65,815'."""
    return "; ".join(f"{n} byte{'s' * (n > 1)}: {count:,}" for n, count in lengths.items())


def _sources_bytes(text: str) -> str:
    """The source that lists the UTF-8 bytes of ``text`` (the comments of walkthroughs.py)."""
    return {
        "caf\u00e9 \U0001f680": "walkthrough_llms_read_text",
        "Hello": "walkthrough_how_bpe_works",
    }.get(text, "walkthrough_text_becomes_numbers")


UTF8_BYTES_CLAIMS = [
    Claim(
        f"utf8-bytes-{i}",
        1,
        _sources_bytes(text),
        f"the UTF-8 bytes of {text!r} are {claimed}",
        claimed,
        lambda text=text: list(text.encode("utf-8")),
        uses=("CLAIMED_UTF8_BYTES",),
    )
    for i, (text, claimed) in enumerate(walkthroughs.CLAIMED_UTF8_BYTES.items())
]

CLAIMS: list[Claim] = [
    Claim(
        "utf8-h-i",
        1,
        "gaurav2026",
        "'h' → 104, 'i' → 105, and \"hi\" encodes to [104, 105]",
        ([104, 105], [104, 105]),
        lambda: ([ord("h"), ord("i")], list(b"hi")),
    ),
    Claim(
        "utf8-nihao-globe",
        1,
        "gaurav2026",
        "'你好' is 6 bytes and '🌍' is 4 bytes in UTF-8",
        (6, 4),
        lambda: (len("你好".encode()), len("🌍".encode())),
    ),
    Claim(
        "utf8-ascii-european",
        1,
        "gaurav2026",
        "UTF-8: ASCII characters 1 byte; European accents, Greek, Cyrillic 2 bytes",
        ({1: 128}, {2: 583}),
        lambda: (
            utf8_lengths(r"[\x00-\x7f]"),
            utf8_lengths(r"[\u00c0-\u017f\u0370-\u04ff]"),
        ),
        show=lambda v: (
            f"ASCII: {_show_lengths(v[0])}; Latin-1 letters, Latin Extended-A, "
            f"Greek, Cyrillic: {_show_lengths(v[1])}"
        ),
    ),
    Claim(
        "utf8-cjk-three-bytes",
        1,
        "gaurav2026",
        "UTF-8: Chinese, Japanese, Korean 3 bytes",
        {3},
        lambda: utf8_lengths(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]"),
        agrees=lambda claimed, computed: set(computed) == claimed,
        show=lambda v: (
            f"{_show_lengths(v)} (the rare Han characters above U+FFFF take 4; "
            "every one in the book's Chinese and Japanese passages takes 3)"
        ),
    ),
    Claim(
        "utf8-emoji-four-bytes",
        1,
        "gaurav2026",
        "UTF-8: emojis 4 bytes",
        {4},
        lambda: utf8_lengths(r"\p{Emoji_Presentation}"),
        agrees=lambda claimed, computed: set(computed) == claimed,
        show=lambda v: f"{_show_lengths(v)} (emoji below U+FFFF, such as ☕ and ⌚, take 3)",
    ),
    *UTF8_BYTES_CLAIMS,
    Claim(
        "utf8-family-emoji",
        1,
        "walkthrough_text_becomes_numbers",
        "the family emoji is four emoji joined by zero-width joiners, 25 bytes in all",
        (4, 3, 25),
        family_emoji_parts,
        show=lambda v: f"{v[0]} emoji + {v[1]} joiners = {v[2]} bytes",
    ),
    Claim(
        "bytes-represent-anything",
        1,
        "walkthrough_text_to_numbers",
        "a byte-level base vocabulary of 256 \u201ccan represent literally anything\u201d",
        0x110000 - len(SURROGATES),
        lambda: scalar_values_round_trip()[0],
        show=lambda v: (
            f"all {v:,} scalar values round-trip through UTF-8; the "
            f"{len(SURROGATES):,} surrogates cannot be encoded (they are not characters)"
        ),
    ),
    Claim(
        "unicode-150k-characters",
        1,
        "gaurav2026",
        "a character vocabulary would have \u201c~150K Unicode chars\u201d",
        150_000,
        lambda: len(assigned_code_points()),
        agrees=approx(0.05),
        show=lambda v: f"{v:,} assigned characters in Unicode {unicodedata.unidata_version}",
    ),
    Claim(
        "char-cat-ids",
        2,
        walkthroughs.CAT_SOURCE,
        "a character tokenizer of \u201cthe cat sat on the mat\u201d has 10 characters and "
        "gives [9, 4, 3, 0, 2, 1, 9, 0, 8, 1, 9, 0, 7, 6, 0, 9, 4, 3, 0, 5, 1, 9]",
        (10, [9, 4, 3, 0, 2, 1, 9, 0, 8, 1, 9, 0, 7, 6, 0, 9, 4, 3, 0, 5, 1, 9]),
        lambda: (
            CharTokenizer.train(SENTENCE).n_vocab,
            CharTokenizer.train(SENTENCE).encode(SENTENCE),
        ),
        show=lambda v: f"{v[0]} characters, {len(v[1])} ids: {v[1]}",
    ),
    Claim(
        "char-vocab-60-100",
        2,
        "walkthrough_text_to_numbers",
        "a character vocabulary of English prose has \u201cprobably 60–100\u201d characters",
        (60, 100),
        lambda: plays_char_tokenizer().n_vocab,
        agrees=between,
        show=lambda v: f"{v} characters in the two training plays",
    ),
    Claim(
        "char-256-covers-english",
        2,
        "walkthrough_llms_read_text",
        "\u201ca vocabulary of about 256 characters covers every possible English text\u201d",
        "",
        lambda: "".join(sorted(set("".join(outside_latin1().values())))),
        show=lambda v: (
            f"the first 256 code points miss {len(v)} characters of the book's "
            f"English texts: {' '.join(v)}"
        ),
    ),
    Claim(
        "char-word-5-characters",
        2,
        "walkthrough_text_becomes_numbers",
        "\u201cA typical English word is 5 characters\u201d",
        5.0,
        lambda: letters_per_word(corpora.technical()),
        agrees=approx(0.1),
        show=lambda v: (
            f"{v:.2f} letters per word in the Python docs; "
            f"{letters_per_word(corpora.english('heldout')):.2f} in The Tempest"
        ),
    ),
    Claim(
        "char-1000-words-5000",
        2,
        "walkthrough_text_becomes_numbers",
        "a 1,000-word document is \u201croughly 5,000 characters\u201d",
        5_000,
        lambda: round(1_000 * tokens_per_word(plays_char_tokenizer(), corpora.english("heldout"))),
        agrees=approx(0.1),
        show=lambda v: (
            f"{v:,} characters (spaces and punctuation included) per 1,000 words of The Tempest"
        ),
    ),
    Claim(
        "char-context-50-words",
        2,
        "walkthrough_text_to_numbers",
        "\u201cA 256-character context is only ~50 English words\u201d",
        50,
        lambda: round(256 / tokens_per_word(plays_char_tokenizer(), corpora.english("heldout"))),
        agrees=approx(0.1),
        show=lambda v: f"{v} words of The Tempest",
    ),
    Claim(
        "char-compression-1",
        2,
        "gaurav2026",
        "characters compress \u201c~1.0\u201d (UTF-8 bytes per token)",
        1.0,
        char_bytes_per_token,
        agrees=lambda claimed, computed: all(abs(v - claimed) < 0.05 for v in computed.values()),
        show=lambda v: (
            ", ".join(f"{name} {ratio:.2f}" for name, ratio in v.items())
            + " (1.0 only where every character is ASCII)"
        ),
    ),
    Claim(
        "byte-compression-1",
        2,
        "gaurav2026",
        "bytes, 256 ids, compress \u201c1.0\u201d (UTF-8 bytes per token)",
        1.0,
        lambda: bytes_per_token(ByteTokenizer(), "".join(corpora.parallel().values())),
        show=lambda v: f"{v:.2f} on all the passages, every script included",
    ),
    Claim(
        "word-cat-ids",
        3,
        walkthroughs.CAT_SOURCE,
        "a word tokenizer of \u201cthe cat sat on the mat\u201d (alphabetical vocabulary of 5) "
        "gives [4, 0, 3, 2, 4, 1]",
        (5, [4, 0, 3, 2, 4, 1]),
        lambda: (
            len(sorted(set(SENTENCE.split()))),
            WordTokenizer(sorted(set(SENTENCE.split()))).encode(SENTENCE),
        ),
        show=lambda v: f"{v[0]} words, ids {v[1]}",
    ),
    Claim(
        "word-still-unknowns",
        3,
        walkthroughs.CAT_SOURCE,
        "with a word vocabulary \u201cyou’d still hit unknowns on novel words, typos, names\u201d",
        True,
        lambda: heldout_oov_all_training_words(),
        agrees=lambda claimed, computed: (computed > 0) == claimed,
        show=lambda v: (
            f"every word of the two training plays leaves {v:.1%} of The Tempest's tokens unknown"
        ),
    ),
    Claim(
        "zipf-exponent",
        3,
        "zipf1949",
        "the word of rank r occurs about 1/r as often as the most frequent one (exponent 1)",
        1.0,
        lambda: zipf_exponent(training_words()),
        agrees=approx(0.1),
        show=lambda v: (
            f"{v:.2f} fitted over all ranks of the two training plays; "
            f"{zipf_exponent(training_words(), top=100):.2f} over the top 100"
        ),
    ),
    Claim(
        "embedding-million-words",
        3,
        "walkthrough_text_becomes_numbers",
        "1 million words × an embedding width of 5,120 = 5.12 billion numbers",
        5_120_000_000,
        lambda: 1_000_000 * 5_120,
    ),
    Claim(
        "embedding-maverick",
        3,
        "walkthrough_text_becomes_numbers",
        "202,048 × 5,120 = 1.03 billion numbers, about 2 GB in 16-bit floating point",
        (1.03e9, 2.0),
        lambda: (202_048 * 5_120, embedding_gigabytes(202_048, 5_120)),
        agrees=lambda claimed, computed: (
            approx(0.01)(claimed[0], computed[0]) and approx(0.05)(claimed[1], computed[1])
        ),
        show=lambda v: f"{v[0]:,} numbers, {v[1]:.2f} GB",
    ),
]
