"""Word tokenizer: one id per word of a vocabulary built from counts (chapter 03).

>>> tok = WordTokenizer.train("the cat sat on the mat")
>>> tok.vocab, tok.encode("the mat")
(['the', 'cat', 'sat', 'on', 'mat'], [0, 4])
>>> tok.decode([4, 0])
'mat the'

Ids follow frequency: the most frequent word gets id 0, and equally frequent words keep the
order of their first occurrence in the training text.

Unknown input: by default ``encode`` raises :class:`UnknownTokenError` for a word the
vocabulary lacks. Train with ``unk=True`` to get one extra id, the last one
(``n_vocab - 1``), that every unknown word maps to; it decodes as ``"<unk>"``.

``decode`` joins the words with single spaces, so it loses: the original spacing (no space
before punctuation, runs of spaces, tabs and line breaks all become one space); with
``unk=True``, which words were unknown; with ``lowercase=True``, the original case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

import regex

from book.tokenizers.base import UNK_TOKEN, StrVocabulary, check_train_vocab_size

# Applied inside each whitespace-separated chunk: a run of letters (with their combining marks,
# which Devanagari vowel signs and decomposed accents need), optionally joined by apostrophes
# as in "don't" or "I’m"; or a run of digits; or any other single character (punctuation,
# signs such as $ and +, emoji). The three alternatives cover every character, so nothing is lost.
WORD_PATTERN = regex.compile(r"[\p{L}\p{M}]+(?:['’][\p{L}\p{M}]+)*|\p{N}+|[^\p{L}\p{M}\p{N}]")


def split_whitespace(text: str) -> list[str]:
    """The words between runs of whitespace (``str.split``); punctuation stays attached.

    >>> split_whitespace("Hello,  world!\\n")
    ['Hello,', 'world!']
    """
    return text.split()


def split_words(text: str) -> list[str]:
    """The words of ``text`` with punctuation split off (see ``WORD_PATTERN``).

    Splitting on whitespace first guarantees the same notion of whitespace as ``str.split``.

    >>> split_words("Don't panic, it's 42!")
    ["Don't", 'panic', ',', "it's", '42', '!']
    """
    return [word for chunk in text.split() for word in WORD_PATTERN.findall(chunk)]


SPLITTERS: dict[str, Callable[[str], list[str]]] = {
    "regex": split_words,
    "whitespace": split_whitespace,
}


def get_splitter(name: str) -> Callable[[str], list[str]]:
    """The splitter called ``name`` in :data:`SPLITTERS`.

    >>> get_splitter("whitespace")("a, b")
    ['a,', 'b']
    """
    if name not in SPLITTERS:
        raise ValueError(f"split must be one of {sorted(SPLITTERS)}, got {name!r}")
    return SPLITTERS[name]


def word_counts(words: Iterable[str]) -> Counter[str]:
    """How often each word occurs, in order of first occurrence.

    >>> word_counts(["the", "cat", "the"])
    Counter({'the': 2, 'cat': 1})
    """
    return Counter(words)


def vocab_from_counts(
    counts: Mapping[str, int], *, min_freq: int = 1, max_size: int | None = None
) -> list[str]:
    """The words seen at least ``min_freq`` times, most frequent first, at most ``max_size``.

    Ties keep the order of ``counts``, which for :func:`word_counts` is first occurrence.

    >>> vocab_from_counts(word_counts("b a c a c d".split()), min_freq=1, max_size=3)
    ['a', 'c', 'b']
    """
    if min_freq < 1:
        raise ValueError(f"min_freq must be at least 1, got {min_freq}")
    if max_size is not None and max_size < 0:
        raise ValueError(f"max_size must be None or at least 0, got {max_size}")
    # sorted() is stable, so equal counts stay in their original (first-occurrence) order.
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    return [word for word, count in ranked if count >= min_freq][:max_size]


class WordTokenizer(StrVocabulary):
    """Maps each word of a fixed list to its index in that list.

    ``vocab`` is the words, then ``<unk>`` if ``unk`` is on (last, so that turning it on never
    renumbers the words). ``split`` names the splitter ("regex" or "whitespace");
    ``lowercase`` lowercases text before splitting, both when training and when encoding.

    >>> tok = WordTokenizer(["hello", "world"], unk=True)
    >>> tok.encode("hello there, world"), tok.unk_id
    ([0, 2, 2, 1], 2)
    >>> tok.decode([0, 2, 1])
    'hello <unk> world'
    """

    def __init__(
        self,
        words: Iterable[str],
        *,
        split: str = "regex",
        unk: bool = False,
        lowercase: bool = False,
    ):
        self._splitter = get_splitter(split)
        words = list(words)
        if len(set(words)) != len(words):
            raise ValueError("the word list holds a word twice; ids must be unique")
        self.split_name = split
        self.lowercase = lowercase
        self.vocab = [*words, UNK_TOKEN] if unk else words
        self.unk_id = len(words) if unk else None

    @classmethod
    def train(
        cls,
        text: str,
        vocab_size: int | None = None,
        *,
        min_freq: int = 1,
        split: str = "regex",
        unk: bool = False,
        lowercase: bool = False,
    ) -> WordTokenizer:
        """The tokenizer whose words are :func:`vocab_from_counts` of the words of ``text``.

        ``vocab_size`` caps the number of ids, ``<unk>`` included (None: every word seen at
        least ``min_freq`` times).

        >>> WordTokenizer.train("a b b c c c", vocab_size=3, unk=True).vocab
        ['c', 'b', '<unk>']
        """
        if vocab_size is not None:
            check_train_vocab_size(vocab_size, int(unk), "the words, plus <unk> if unk=True")
        max_size = None if vocab_size is None else vocab_size - unk
        words = get_splitter(split)(text.lower() if lowercase else text)
        kept = vocab_from_counts(word_counts(words), min_freq=min_freq, max_size=max_size)
        return cls(kept, split=split, unk=unk, lowercase=lowercase)

    def split(self, text: str) -> list[str]:
        """The words ``encode`` looks up: lowercased if ``lowercase``, then split.

        >>> WordTokenizer([], lowercase=True).split("Hi, Bob")
        ['hi', ',', 'bob']
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        return self._splitter(text.lower() if self.lowercase else text)

    def encode(self, text: str) -> list[int]:
        """The id of each word of ``text``.

        >>> WordTokenizer(["cat", "the"]).encode("the cat")
        [1, 0]
        """
        ids = []
        for index, word in enumerate(self.split(text)):
            token_id = self.token_to_id.get(word, self.unk_id)
            if token_id is None:
                where, keep = f"(word {index} of the text)", " (with min_freq and vocab_size)"
                raise self.unknown_token_error(word, where, index, keep)
            ids.append(token_id)
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """The words named by ``ids``, joined by single spaces.

        >>> WordTokenizer(["world", "hello", "!"]).decode([1, 0, 2])
        'hello world !'
        """
        return " ".join(self.tokens_of(ids))

    def _describe(self) -> dict[str, object]:
        unk = self.unk_id is not None
        return {"split": self.split_name, "unk": unk, "lowercase": self.lowercase}
