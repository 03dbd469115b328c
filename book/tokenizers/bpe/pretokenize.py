"""Pre-tokenization: cut text into chunks with a split pattern and count them (chapter 06).

Training needs each distinct chunk once, with how often it occurs: far less work than the
text. Special tokens are cut out first, so that no merge crosses or enters one (the text
between two ``<|endoftext|>`` is trained on as its own document).

A big text is handled in parts (streamed, or counted by several processes). A part may
end only where the chunks of each side, taken alone, are the chunks of the whole:
:func:`is_cut` says where (before a space that follows a non-space, for OpenAI's patterns).

>>> from book.tokenizers.bpe.patterns import CL100K_PATTERN
>>> chunk_counts("the cat, the hat", CL100K_PATTERN)
{b'the': 1, b' cat': 1, b',': 1, b' the': 1, b' hat': 1}
>>> split_at_specials("a<|eot|>b", ["<|eot|>"])
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Iterable

import regex

from book.tokenizers.bpe.core import surrogate_error, utf8_bytes
from book.tokenizers.bpe.patterns import (
    CL100K_PATTERN,
    GPT2_ORIGINAL_PATTERN,
    GPT2_PATTERN,
    O200K_PATTERN,
    compile_pattern,
    special_token_regex,
)


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


# The patterns for which a space after a non-space is a safe cut. In each of them no chunk
# holds a non-space character followed by whitespace other than line breaks (a space may only
# open a chunk), and a chunk that ends in a non-space character ends the same way whether a
# space or the end of the text follows; a test checks the claim on generated text.
SPACE_CUT_PATTERNS = frozenset({GPT2_PATTERN, GPT2_ORIGINAL_PATTERN, CL100K_PATTERN, O200K_PATTERN})
_NON_SPACE = regex.compile(r"\S")


def spans(text: str, position: int, names: Iterable[str]) -> bool:
    """Whether one of ``names`` occurs in ``text`` across ``position`` (starts before, ends after).

    >>> spans("ab<|x|>cd", 4, ["<|x|>"]), spans("ab<|x|>cd", 2, ["<|x|>"])
    (True, False)
    """
    for name in names:
        start = text.find(name, max(0, position - len(name) + 1), position + len(name) - 1)
        while 0 <= start < position:
            if start + len(name) > position:
                return True
            start = text.find(name, start + 1, position + len(name) - 1)
    return False


def is_cut(text: str, position: int, pattern: str, names: Iterable[str] = ()) -> bool:
    """Whether ``text`` can be cut at ``position``: each side pre-tokenized alone, as a whole.

    True before a space that follows a non-space character, for the patterns of
    :data:`SPACE_CUT_PATTERNS`, unless a special token's text (``names``) spans the place.

    >>> [i for i in range(1, 9) if is_cut("ab  cd e", i, GPT2_PATTERN)]
    [2, 6]
    """
    return (
        pattern in SPACE_CUT_PATTERNS
        and 0 < position < len(text)
        and text[position] == " "
        and _NON_SPACE.match(text, position - 1) is not None
        and not spans(text, position, names)
    )


def last_cut(
    text: str, end: int, pattern: str, names: Iterable[str] = (), start: int = 1
) -> int | None:
    """The last position in ``[start, end]`` where :func:`is_cut` allows cutting, or None.

    >>> last_cut("one two three", 13, GPT2_PATTERN), last_cut("one two", 3, GPT2_PATTERN)
    (7, 3)
    """
    if pattern not in SPACE_CUT_PATTERNS:
        return None
    names = list(names)
    position = text.rfind(" ", max(start, 1), end + 1)
    while position > 0:
        if is_cut(text, position, pattern, names):
            return position
        position = text.rfind(" ", max(start, 1), position)
    return None


def first_cut(text: str, start: int, pattern: str, names: Iterable[str] = ()) -> int | None:
    """The first position ``>= start`` where :func:`is_cut` allows cutting ``text``, or None.

    >>> first_cut("one two three", 4, GPT2_PATTERN)
    7
    """
    if pattern not in SPACE_CUT_PATTERNS:
        return None
    names = list(names)
    position = text.find(" ", max(start, 1))
    while position >= 0:
        if is_cut(text, position, pattern, names):
            return position
        position = text.find(" ", position + 1)
    return None
