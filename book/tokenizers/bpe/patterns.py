"""The split patterns of OpenAI's tokenizers, for the ``regex`` module (chapter 06).

Copied character for character from ``tiktoken_ext/openai_public.py`` (tiktoken 0.14.0); a
test checks them against the loaded encodings. They need the third-party ``regex`` module:
``\\p{L}`` (any letter), ``\\p{N}`` (any number) and possessive quantifiers (``++``, ``?+``,
which never give back what they matched) are not in the standard library's ``re`` before
Python 3.11, and ``re`` has no ``\\p{...}`` at all.

>>> split("Hello world's 2024!!", GPT2_PATTERN)
['Hello', ' world', "'s", ' 2024', '!!']
>>> split("Hello world's 2024!!", CL100K_PATTERN)
['Hello', ' world', "'s", ' ', '202', '4', '!!']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

import regex

# GPT-2's pattern as released in 2019 (encoder.py of openai/gpt-2):
GPT2_ORIGINAL_PATTERN = (
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""  # noqa: E501
)

# tiktoken's equivalent that "executes faster"; used by gpt2, r50k_base and p50k_base.
GPT2_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)

# cl100k_base (GPT-4, GPT-3.5-turbo): case-insensitive contractions, numbers in groups of at
# most three digits, newlines kept apart from other whitespace.
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""  # noqa: E501

# o200k_base (GPT-4o): words split at case changes (CamelCase -> Camel|Case), contractions
# stay attached to their word.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "r50k_base": GPT2_PATTERN,
    "cl100k_base": CL100K_PATTERN,
    "o200k_base": O200K_PATTERN,
}


@lru_cache(maxsize=32)
def compile_pattern(pattern: str) -> regex.Pattern:
    """``regex.compile(pattern)``, compiled once per pattern."""
    return regex.compile(pattern)


def split(text: str, pattern: str) -> list[str]:
    """The chunks of ``text`` under a split pattern; joined, they give back ``text``.

    Every character lands in some chunk, because each pattern ends with a catch-all
    alternative for whitespace and the others cover letters, numbers and everything else.

    >>> split("I'LL   go\\n\\n", GPT2_PATTERN)
    ['I', "'", 'LL', '  ', ' go', '\\n\\n']
    """
    return compile_pattern(pattern).findall(text)


@lru_cache(maxsize=64)
def special_token_regex(names: frozenset[str]) -> regex.Pattern:
    """A regex matching any of ``names`` literally, as one capturing group.

    Longest name first: where one special token's text begins another's, the longer wins
    (the regex engine takes the first alternative that matches at the leftmost position).

    >>> special_token_regex(frozenset({"<a>", "<a><b>"})).split("x<a><b><a>")
    ['x', '<a><b>', '', '<a>', '']
    """
    alternatives = sorted(names, key=lambda name: (-len(name), name))
    return regex.compile("(" + "|".join(regex.escape(name) for name in alternatives) + ")")


def check_special_names(names: Iterable[str]) -> list[str]:
    """``names`` as a list, refusing an empty or non-str name and a name given twice.

    >>> check_special_names(["<|endoftext|>"])
    ['<|endoftext|>']
    """
    if isinstance(names, str):
        raise TypeError(f"special_tokens must be a collection of names, not one str: {names!r}")
    names = list(names)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a special token must be a non-empty str, got {name!r}")
    repeated = sorted(name for name, n in Counter(names).items() if n > 1)
    if repeated:
        raise ValueError(f"special tokens must be distinct; {repeated} given more than once")
    return names
