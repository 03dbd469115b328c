"""Pre-tokenization: cut text into chunks with a split pattern and count them (chapter 06).

Training needs each distinct chunk once, with how often it occurs: far less work than the
text. Special tokens are cut out first, so that no merge crosses or enters one (the text
between two ``<|endoftext|>`` is trained on as its own document).

>>> from book.tokenizers.patterns import CL100K_PATTERN
>>> chunk_counts("the cat, the hat", CL100K_PATTERN)
{b'the': 1, b' cat': 1, b',': 1, b' the': 1, b' hat': 1}
>>> split_at_specials("a<|eot|>b", ["<|eot|>"])
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Iterable

from book.tokenizers.bpe_core import surrogate_error, utf8_bytes
from book.tokenizers.patterns import compile_pattern, special_token_regex


def chunk_counts(
    text: str, pattern: str, counts: dict[bytes, int] | None = None
) -> dict[bytes, int]:
    r"""How often each chunk of ``text`` occurs, as UTF-8 bytes, in order of first occurrence.

    With ``counts``, the chunks are added to it (so several texts count into one dict).

    >>> chunk_counts("hi hi", r"\S+|\s+", {b"hi": 5})
    {b'hi': 7, b' ': 1}
    """
    counts = {} if counts is None else counts
    get = counts.get
    try:
        for chunk in compile_pattern(pattern).findall(text):
            key = chunk.encode("utf-8")
            counts[key] = get(key, 0) + 1
    except UnicodeEncodeError:  # say where the surrogate is in the text, not in its chunk
        raise surrogate_error(text) from None
    return counts


def split_at_specials(text: str, special_tokens: Iterable[str]) -> list[str]:
    """The parts of ``text`` between occurrences of the special tokens (which are left out).

    Where one special token's text begins another's, the longer wins, as when encoding.

    >>> split_at_specials("x<a><b>y<a>", ["<a>", "<a><b>"])
    ['x', 'y', '']
    """
    names = frozenset(special_tokens)
    if not names:
        return [text]
    return special_token_regex(names).split(text)[::2]  # the odd items are the specials


def training_chunk_counts(
    text: str, pattern: str, special_tokens: Iterable[str] = (), counts: dict | None = None
) -> dict[bytes, int]:
    r""":func:`chunk_counts` of the text between special tokens: what training learns from.

    >>> training_chunk_counts("ab<|eot|>ab", r"\S+", ["<|eot|>"])
    {b'ab': 2}
    """
    utf8_bytes(text)  # a lone surrogate fails here, with its position in the whole text
    counts = {} if counts is None else counts
    for part in split_at_specials(text, special_tokens):
        chunk_counts(part, pattern, counts)
    return counts
