"""Pre-tokenization: cut text into chunks with a split pattern and count them (chapter 06).

Training needs each distinct chunk once, with how often it occurs: far less work than the
text. Special tokens are cut out first, so that no merge crosses or enters one (the text
between two ``<|endoftext|>`` is trained on as its own document).

A big text is handled in parts (streamed, or counted by several processes). A part may
end only where the chunks of each side, taken alone, are the chunks of the whole:
:func:`is_cut` says where (for OpenAI's patterns: before a space that follows a non-space,
and between a letter and the punctuation after it).

>>> from book.tokenizers.bpe.patterns import CL100K_PATTERN
>>> chunk_counts("the cat, the hat", CL100K_PATTERN)
{b'the': 1, b' cat': 1, b',': 1, b' the': 1, b' hat': 1}
>>> split_at_specials("a<|eot|>b", ["<|eot|>"])
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

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


# The patterns for which the book knows places to cut (OpenAI's). In each of them:
# - no chunk holds a non-space character followed by a space (a space may only open a chunk),
#   and a chunk that ends in a non-space character ends the same way whether a space or the
#   end of the text follows;
# - a run of letters ends its chunk where punctuation or a symbol follows ("," "。" "-" "$"),
#   and ends the same way at the end of the text. Not before an apostrophe, which may open a
#   contraction ("'s"), nor before a mark, a digit or whitespace, which o200k's letter chunks,
#   cl100k's digit groups or the whitespace rules treat otherwise.
# A test checks both on generated text, for every pattern here.
CUT_PATTERNS = frozenset({GPT2_PATTERN, GPT2_ORIGINAL_PATTERN, CL100K_PATTERN, O200K_PATTERN})
# Where a cut may fall: before a space after a non-space; after a letter, before punctuation
# or a symbol (a lone surrogate, which stands for bytes that are not UTF-8, is neither).
_CUT = regex.compile(r"(?<=\S)(?= )|(?<=\p{L})(?=[^\s\p{L}\p{M}\p{N}'\p{Cs}])")


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

    For the patterns of :data:`CUT_PATTERNS`: before a space that follows a non-space
    character, and between a letter and the punctuation or symbol after it, unless a special
    token's text (``names``) spans the place. Never for other patterns.

    >>> [i for i in range(1, 9) if is_cut("ab  cd e", i, GPT2_PATTERN)]
    [2, 6]
    >>> [i for i in range(1, 6) if is_cut("图书馆，信。", i, GPT2_PATTERN)]
    [3, 5]
    """
    return (
        pattern in CUT_PATTERNS
        and 0 < position < len(text)
        and _CUT.match(text, position) is not None
        and not spans(text, position, names)
    )


def cuts(
    text: str, pattern: str, names: Iterable[str] = (), start: int = 1, end: int | None = None
) -> Iterator[int]:
    """The places in ``[start, end]`` where :func:`is_cut` allows cutting ``text``, in order.

    >>> list(cuts("one two, three", GPT2_PATTERN))
    [3, 7, 8]
    """
    if pattern not in CUT_PATTERNS:
        return
    names = list(names)
    last = len(text) - 1 if end is None else min(end, len(text) - 1)
    for match in _CUT.finditer(text, max(start, 1), last + 1):
        if not spans(text, match.start(), names):
            yield match.start()


def last_cut(
    text: str, end: int, pattern: str, names: Iterable[str] = (), start: int = 1
) -> int | None:
    """The last position in ``[start, end]`` where :func:`is_cut` allows cutting, or None.

    >>> last_cut("one two three", 13, GPT2_PATTERN), last_cut("one two", 3, GPT2_PATTERN)
    (7, 3)
    """
    found = None
    for position in cuts(text, pattern, names, start, end):
        found = position
    return found


def first_cut(text: str, start: int, pattern: str, names: Iterable[str] = ()) -> int | None:
    """The first position ``>= start`` where :func:`is_cut` allows cutting ``text``, or None.

    >>> first_cut("one two three", 4, GPT2_PATTERN)
    7
    """
    return next(cuts(text, pattern, names, start), None)
