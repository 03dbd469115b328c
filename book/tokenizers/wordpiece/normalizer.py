"""BERT's normalizer: clean the text, pad Chinese characters, strip accents, lower-case.

WordPiece never sees raw text. BERT first *normalizes* it: it drops control characters, makes
every whitespace character a plain space, puts spaces around Chinese characters and, for the
uncased models, strips accents and lower-cases [Devlin 2019]. This is Hugging Face
``tokenizers``' ``normalizers.BertNormalizer``, with its options and its defaults (uncased);
the pre-tokenizer (:mod:`book.tokenizers.wordpiece.pre_tokenizer`) splits the result into words.

>>> BertNormalizer().normalize_str("Héllo, WORLD!  naïve\\tcafé")
'hello, world!  naive cafe'
>>> BertNormalizer(lowercase=False).normalize_str("Héllo, 東京")
'Héllo,  東  京 '

Characters are classified with Python's ``unicodedata`` (Unicode 14 in Python 3.11). The Rust
crate behind ``tokenizers`` uses older tables for punctuation, marks and format characters,
so the two differ on a few hundred characters that Unicode added or re-classified since; the
parity tests list them.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# Unicode's White_Space property (what Rust's char::is_whitespace tests); str.isspace differs.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# The CJK Unified Ideographs blocks: BERT writes Chinese without spaces, so each character
# becomes a word (Japanese kana and Korean Hangul are not in these blocks).
CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def is_whitespace(ch: str) -> bool:
    """Whether ``ch`` is white space (Unicode's White_Space property).

    >>> is_whitespace("\\u3000"), is_whitespace("\\u200b")
    (True, False)
    """
    return ch in WHITE_SPACE


def is_control(ch: str) -> bool:
    """Whether cleaning drops ``ch``: a control, format or private-use character (not \\t \\n \\r).

    >>> is_control("\\x00"), is_control("\\u200b"), is_control("\\n")
    (True, True, False)
    """
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs")


def is_chinese_char(ch: str) -> bool:
    """Whether ``ch`` is a CJK ideograph (see ``CJK_RANGES``).

    >>> is_chinese_char("中"), is_chinese_char("の")
    (True, False)
    """
    code = ord(ch)
    return any(low <= code <= high for low, high in CJK_RANGES)


def clean_text(text: str) -> str:
    """Drop NUL, U+FFFD and control characters; turn every whitespace character into a space.

    >>> clean_text("a\\tb\\x00c\\u200bd")
    'a bcd'
    """
    return "".join(
        " " if is_whitespace(ch) else ch
        for ch in text
        if ch not in "\x00\ufffd" and not is_control(ch)
    )


def pad_chinese_chars(text: str) -> str:
    """Put a space on each side of every CJK ideograph.

    >>> pad_chinese_chars("中文ok")
    ' 中  文 ok'
    """
    return "".join(f" {ch} " if is_chinese_char(ch) else ch for ch in text)


def strip_accents(text: str) -> str:
    """Decompose (NFD) and drop the non-spacing marks: é becomes e, and ñ becomes n.

    >>> strip_accents("naïve café, Ñandú")
    'naive cafe, Nandu'
    """
    return "".join(
        ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn"
    )


def lowercase(text: str) -> str:
    """Lower-case character by character, as ``tokenizers`` does.

    ``str.lower`` would write a word-final Greek sigma as ς; one character at a time it stays σ.

    >>> lowercase("ΟΔΟΣ"), "ΟΔΟΣ".lower()
    ('οδοσ', 'οδος')
    """
    return "".join(ch.lower() for ch in text)


@dataclass(frozen=True)
class BertNormalizer:
    """BERT's normalizer, ``tokenizers``' ``normalizers.BertNormalizer``: same options, same
    defaults (BERT uncased). ``strip_accents=None`` follows ``lowercase``: uncased strips
    accents, cased keeps them.

    >>> BertNormalizer(lowercase=True, strip_accents=False).normalize_str("Éa"), \\
    ... BertNormalizer(lowercase=False, strip_accents=True).normalize_str("Éa")
    ('éa', 'Ea')
    """

    clean_text: bool = True
    handle_chinese_chars: bool = True
    strip_accents: bool | None = None
    lowercase: bool = True

    def normalize_str(self, text: str) -> str:
        """The text after cleaning, CJK padding, accent stripping and lower-casing (that order).

        >>> BertNormalizer().normalize_str("Ça\\u00a0va?")
        'ca va?'
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        if self.clean_text:
            text = clean_text(text)
        if self.handle_chinese_chars:
            text = pad_chinese_chars(text)
        if self.lowercase if self.strip_accents is None else self.strip_accents:
            text = strip_accents(text)
        if self.lowercase:
            text = lowercase(text)
        return text
