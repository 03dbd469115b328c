"""Claims about text, bytes, characters and words (chapters 01-03), each computed here.

Each record cites the primary source of its claim: CS336's handout and first lecture, RFC 3629,
Unicode's emoji standard, nanoGPT, Zipf. A claim that circulates widely says so in its text and
cites what settles it.

>>> [claim.id for claim in CLAIMS][:3]
['cs336-code-points', 'utf8-bytes-0', 'utf8-bytes-1']
"""

from __future__ import annotations

import functools
import sys
import unicodedata
from collections import Counter

import regex

from book import corpora, walkthroughs
from book.analysis import bytes_per_token, oov_rate, tokens_per_word
from book.analysis.zipf import zipf_least_squares, zipf_max_likelihood
from book.claims.core import Claim, approx, approx_each
from book.tokenizers import ByteTokenizer, CharTokenizer, WordTokenizer
from book.tokenizers.basic.words import split_words

SURROGATES = range(0xD800, 0xE000)  # UTF-16's halves: code points, but never characters
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # man, woman, girl, boy

# A word in the count of letters per word: letters and marks, apostrophes inside, no punctuation.
LETTERS = regex.compile(r"[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*")

# Ordinary English sentences (written for this book) that name people and places or use common
# symbols: each has a character that neither 256-character set of chapter 02 holds.
NAMES_AND_SYMBOLS = (
    "Dvořák's New World Symphony premiered in 1893.",
    "Łódź is the third-largest city in Poland.",
    "İstanbul was once called Constantinople.",
    "Keep the ratio ≥ 2 → fewer retries.",
    "The area of a circle is π r².",
    "Thanks, see you at 5! 🙂",
)


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


def never_in_utf8() -> list[int]:
    """The byte values that occur in the UTF-8 of no scalar value, in order (about a second)."""
    seen: set[int] = set()
    for cp in range(sys.maxunicode + 1):
        if cp not in SURROGATES:
            seen.update(chr(cp).encode("utf-8"))
    return sorted(set(range(256)) - seen)


def _controls() -> int:
    """How many assigned code points are control codes (Cc): Unicode's totals leave them out."""
    return sum(unicodedata.category(chr(cp)) == "Cc" for cp in assigned_code_points())


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


# -------------------------------------------------- chapter 02: characters ----------------


@functools.cache
def plays_char_tokenizer() -> CharTokenizer:
    """The character tokenizer of chapter 02: every character of the two training plays."""
    return CharTokenizer.train(corpora.english("train"))


def windows_1252() -> frozenset[str]:
    """The 256 characters of windows-1252 as the web's Encoding Standard defines it.

    Python's ``cp1252`` codec leaves five bytes undefined; the Encoding Standard maps them to
    the control characters of the same number, as Latin-1 does.

    >>> chars = windows_1252()
    >>> len(chars), "\u2019" in chars, "\u0081" in chars, "\u0142" in chars
    (256, True, True, False)
    """
    chars = set()
    for byte in range(256):
        try:
            chars.add(bytes([byte]).decode("cp1252"))
        except UnicodeDecodeError:
            chars.add(chr(byte))
    return frozenset(chars)


def letters_per_word(text: str) -> float:
    """Mean letters per word, punctuation split off (``LETTERS``).

    >>> letters_per_word("Hi, Bob!")
    2.5
    """
    words = LETTERS.findall(text)
    return sum(map(len, words)) / len(words)


def heldout_chars_per_word() -> float:
    """Character tokens per whitespace word of The Tempest, spaces and punctuation included."""
    return tokens_per_word(plays_char_tokenizer(), corpora.english("heldout"))


def char_bytes_per_token() -> dict[str, float]:
    """Bytes per token of a character tokenizer of all the passages, on each passage."""
    passages = corpora.parallel()
    tok = CharTokenizer.train("".join(passages.values()))
    return {name: bytes_per_token(tok, passage) for name, passage in passages.items()}


# The string CS336's first lecture encodes with each of its tokenizers.
LECTURE_STRING = "Hello, \U0001f30d! 你好!"


def lecture_char_compression() -> float:
    """Bytes per token of a character tokenizer (one token a character) on the lecture's
    string: what its code-point tokenizer gives, since it too spends one id a character."""
    return bytes_per_token(CharTokenizer.train(LECTURE_STRING), LECTURE_STRING)


def _show_compression(ratio: float) -> str:
    """The lecture's ratio, then the lowest and highest of the book's passages."""
    ratios = char_bytes_per_token()
    low, high = min(ratios, key=ratios.get), max(ratios, key=ratios.get)
    return (
        f"{ratio:.2f} on the lecture's string; on the book's passages from {ratios[low]:.2f} "
        f"({low}) to {ratios[high]:.2f} ({high}): it depends on the script"
    )


def unknown_shares() -> tuple[float, float]:
    """The share of The Tempest's tokens that are unknown: characters under the training
    plays' characters, words under the training plays' words."""
    heldout = corpora.english("heldout")
    return oov_rate(plays_char_tokenizer().vocab, heldout), heldout_oov_all_training_words()


def _show_unknowns(shares: tuple[float, float]) -> str:
    """Both shares, and the passages whose characters the plays do not all know."""
    known = set(plays_char_tokenizer().vocab)
    unknown = {name: oov_rate(known, passage) for name, passage in corpora.parallel().items()}
    return (
        f"The Tempest: {shares[0]:.1%} of character tokens unknown, {shares[1]:.1%} of word "
        f"tokens; under the plays' characters, {unknown['French']:.0%} of the French passage's "
        f"characters and {unknown['Chinese']:.0%} of the Chinese"
    )


# -------------------------------------------------- chapter 03: words ---------------------


def heldout_oov_all_training_words() -> float:
    """OOV rate of The Tempest's words under every word of the two training plays."""
    vocab = WordTokenizer.train(corpora.english("train"))
    return oov_rate(vocab, split_words(corpora.english("heldout")))


def training_words() -> list[str]:
    """The words of the two training plays, punctuation left out (chapter 03's Zipf plot)."""
    return [word for word in split_words(corpora.english("train")) if word[0].isalpha()]


def zipf_fits() -> dict[str, float]:
    """Zipf's exponent of the training plays, fitted over all ranks in the two ways."""
    counts = Counter(training_words()).values()
    return {
        "least squares": zipf_least_squares(counts),
        "maximum likelihood": zipf_max_likelihood(counts),
    }


UTF8_BYTES_CLAIMS = [
    Claim(
        f"utf8-bytes-{i}",
        1,
        walkthroughs.UTF8_BYTES_SOURCES[text],
        f"the UTF-8 bytes of {text!r} are {claimed}",
        claimed,
        lambda text=text: list(text.encode("utf-8")),
        uses=("CLAIMED_UTF8_BYTES",),
    )
    for i, (text, claimed) in enumerate(walkthroughs.CLAIMED_UTF8_BYTES.items())
]

CLAIMS: list[Claim] = [
    Claim(
        "cs336-code-points",
        1,
        "cs336_2025_lecture1",
        'ord("a") is 97 and ord("🌍") is 127757',
        (97, 127757),
        lambda: (ord("a"), ord("\U0001f30d")),
    ),
    *UTF8_BYTES_CLAIMS,
    Claim(
        "utf8-never-bytes",
        1,
        "rfc3629",
        "\u201cThe octet values C0, C1, F5 to FF never appear\u201d",
        [0xC0, 0xC1, *range(0xF5, 0x100)],
        never_in_utf8,
        show=lambda v: f"{len(v)} byte values never occur: {' '.join(f'{b:02X}' for b in v)}",
    ),
    Claim(
        "utf8-family-emoji",
        1,
        "unicode_uts51",
        "“family: man, woman, girl, boy” is the sequence 1F468 200D 1F469 200D 1F467 200D 1F466",
        [0x1F468, 0x200D, 0x1F469, 0x200D, 0x1F467, 0x200D, 0x1F466],
        lambda: [ord(ch) for ch in FAMILY],
        show=lambda v: (
            f"{sum(cp != 0x200D for cp in v)} emoji + {v.count(0x200D)} zero-width joiners, "
            f"{len(FAMILY.encode('utf-8'))} bytes in UTF-8"
        ),
    ),
    Claim(
        "bytes-represent-anything",
        1,
        "cs336_2025",
        "\u201cany input text can be expressed as a sequence of integers from 0 to 255\u201d",
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
        "cs336_2025_lecture1",
        "\u201cThere are approximately 150K Unicode characters\u201d",
        150_000,
        lambda: len(assigned_code_points()),
        agrees=approx(0.05),
        show=lambda v: (
            f"{v:,} assigned characters in Unicode {unicodedata.unidata_version}; "
            f"{v - _controls():,} without the {_controls()} control codes, as Unicode "
            "counts its total"
        ),
    ),
    Claim(
        "char-vocab-65",
        2,
        "karpathy2022nanogpt",
        "nanoGPT's character-level Shakespeare, on its own tiny Shakespeare text: "
        "\u201cvocab size: 65\u201d",
        65,
        lambda: plays_char_tokenizer().n_vocab,
        # Another text of Shakespeare's: a count of the same order, not a check of nanoGPT's.
        agrees=lambda claimed, computed: None,
        show=lambda v: (
            f"{v} characters in the book's two training plays, a different text (not one "
            "digit); nanoGPT's text is not in the book"
        ),
    ),
    Claim(
        "char-fewer-unknowns",
        2,
        "hf_course_ch2",
        "characters give \u201cmuch fewer out-of-vocabulary (unknown) tokens, since every "
        "word can be built from characters\u201d",
        True,
        unknown_shares,
        agrees=lambda claimed, computed: (computed[0] < computed[1]) == claimed,
        show=_show_unknowns,
    ),
    Claim(
        "char-ten-words-50-tokens",
        2,
        "cs336_2025",
        "\u201ca sentence with 10 words [\u2026] could be 50 or more tokens long in a "
        "character-level model\u201d",
        50,
        lambda: round(10 * heldout_chars_per_word()),
        agrees=lambda claimed, computed: computed >= claimed,
        show=lambda v: (
            f"{v} character tokens per 10 words of The Tempest, spaces and punctuation "
            f"included ({letters_per_word(corpora.english('heldout')):.2f} letters a word; "
            f"the Python docs: {letters_per_word(corpora.technical()):.2f})"
        ),
    ),
    Claim(
        "char-compression-cs336",
        2,
        "cs336_2025_lecture1",
        "CS336's character tokenizer (a character's code point is its id) compresses "
        "\u201cHello, \U0001f30d! 你好!\u201d to 20 UTF-8 bytes in 13 tokens, 1.54 bytes per token",
        20 / 13,
        lecture_char_compression,
        agrees=approx(0.001),
        show=_show_compression,
    ),
    Claim(
        "byte-compression-1",
        2,
        "cs336_2025_lecture1",
        "a byte tokenizer's compression ratio (UTF-8 bytes per token) is exactly 1",
        1.0,
        lambda: bytes_per_token(ByteTokenizer(), "".join(corpora.parallel().values())),
        show=lambda v: f"{v:.2f} on all the passages, every script included",
    ),
    Claim(
        "word-still-unknowns",
        3,
        "cs336_2025_lecture1",
        "\u201cNew words we haven't seen during training get a special UNK token\u201d",
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
        zipf_fits,
        agrees=approx_each(0.05),
        show=lambda v: (
            "depends on the fit: "
            + ", ".join(f"{method} {a:.2f}" for method, a in v.items())
            + " over all ranks of the two training plays"
        ),
    ),
]
