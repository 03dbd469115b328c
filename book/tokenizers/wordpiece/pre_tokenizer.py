"""BERT's pre-tokenizer: split text into words on whitespace and around punctuation.

Whitespace separates words and disappears; every punctuation character becomes a word of its
own [Devlin 2019]. This is Hugging Face ``tokenizers``' ``pre_tokenizers.BertPreTokenizer``: it
changes no character (lower-casing and the like are the normalizer's job,
:mod:`book.tokenizers.wordpiece.normalizer`), and reports each word with its offsets.

>>> BertPreTokenizer().pre_tokenize_str("Hey friend!  Naïve?")
[('Hey', (0, 3)), ('friend', (4, 10)), ('!', (10, 11)), ('Naïve', (13, 18)), ('?', (18, 19))]
"""

from __future__ import annotations

import string
import unicodedata
from dataclasses import dataclass

from book.tokenizers.wordpiece.normalizer import is_whitespace

ASCII_PUNCTUATION = frozenset(string.punctuation)  # !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~


def is_punctuation(ch: str) -> bool:
    """Whether ``ch`` becomes a word of its own: ASCII punctuation or Unicode punctuation (P*).

    ASCII's symbols count too, so ``$`` and ``+`` split off like commas.

    >>> [is_punctuation(c) for c in ",$+«a"]
    [True, True, True, True, False]
    """
    return ch in ASCII_PUNCTUATION or unicodedata.category(ch).startswith("P")


@dataclass(frozen=True)
class BertPreTokenizer:
    """BERT's pre-tokenizer, ``tokenizers``' ``pre_tokenizers.BertPreTokenizer`` (no options)."""

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The words of ``text``, each with its (start, end) character offsets, as in tokenizers.

        >>> BertPreTokenizer().pre_tokenize_str("a,b")
        [('a', (0, 1)), (',', (1, 2)), ('b', (2, 3))]
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        words: list[tuple[str, tuple[int, int]]] = []
        start = 0  # where the current word began
        for i, ch in enumerate(text):
            if is_whitespace(ch) or is_punctuation(ch):
                if start < i:
                    words.append((text[start:i], (start, i)))
                if not is_whitespace(ch):
                    words.append((ch, (i, i + 1)))
                start = i + 1
        if start < len(text):
            words.append((text[start:], (start, len(text))))
        return words
