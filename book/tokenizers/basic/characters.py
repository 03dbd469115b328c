"""Character tokenizer: one id per character of the training text (chapter 02).

A "character" here is a Python ``str`` element, i.e. one Unicode code point. So ``"é"`` typed as
``e`` + U+0301 (combining acute) is two tokens, and a ZWJ family emoji is several; the round
trip still holds because decode glues the same code points back together.

>>> tok = CharTokenizer.train("the cat sat on the mat")
>>> tok.n_vocab
10
>>> tok.encode("hat")
[4, 1, 9]
>>> tok.decode([4, 1, 9])
'hat'

Unknown input: by default ``encode`` raises :class:`UnknownTokenError` for a character the
vocabulary lacks. Train with ``unk=True`` to get one extra id, the last one
(``n_vocab - 1``), that every unknown character maps to; it decodes as ``"<unk>"``.
Nothing is ever dropped silently. ``vocab_size`` caps the vocabulary, ``<unk>`` included: the
most frequent characters are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from book.tokenizers.base import UNK_TOKEN, StrVocabulary, check_train_vocab_size


class CharTokenizer(StrVocabulary):
    """Maps each character of a fixed alphabet to its index in that alphabet.

    ``vocab`` is the alphabet, then ``<unk>`` if ``unk`` is on (last, so that turning it on
    never renumbers the characters).

    >>> tok = CharTokenizer(["a", "b"], unk=True)
    >>> tok.vocab, tok.encode("abc"), tok.unk_id
    (['a', 'b', '<unk>'], [0, 1, 2], 2)
    >>> tok.decode([0, 2, 1])
    'a<unk>b'
    """

    def __init__(self, alphabet: Iterable[str], *, unk: bool = False):
        self.alphabet = list(alphabet)
        for ch in self.alphabet:
            if not isinstance(ch, str) or len(ch) != 1:
                raise ValueError(f"the alphabet must hold single characters, got {ch!r}")
        if len(set(self.alphabet)) != len(self.alphabet):
            raise ValueError("the alphabet holds a character twice; ids must be unique")
        self.vocab = [*self.alphabet, UNK_TOKEN] if unk else list(self.alphabet)
        self.unk_id = len(self.alphabet) if unk else None

    @classmethod
    def train(cls, text: str, vocab_size: int | None = None, *, unk: bool = False) -> CharTokenizer:
        """The tokenizer whose alphabet is the sorted set of characters in ``text``.

        Sorting by code point makes the ids independent of where a character first appears.
        With ``vocab_size``, only the ``vocab_size`` most frequent characters are kept (one
        fewer if ``unk`` takes an id; equal counts: first occurrence wins); a text with fewer
        distinct characters gives a smaller vocabulary.

        >>> CharTokenizer.train("banana").alphabet
        ['a', 'b', 'n']
        >>> CharTokenizer.train("banana", vocab_size=3, unk=True).vocab
        ['a', 'n', '<unk>']
        """
        if vocab_size is None:
            return cls(sorted(set(text)), unk=unk)
        check_train_vocab_size(vocab_size, int(unk), "the characters, plus <unk> if unk=True")
        kept = [ch for ch, _count in Counter(text).most_common(vocab_size - unk)]
        return cls(sorted(kept), unk=unk)

    def encode(self, text: str) -> list[int]:
        """The id of each character of ``text``.

        >>> CharTokenizer.train("abc").encode("cab")
        [2, 0, 1]
        """
        if not isinstance(text, str):
            raise TypeError(f"encode expects a str, got {type(text).__name__}")
        ids = []
        for position, ch in enumerate(text):
            token_id = self.token_to_id.get(ch, self.unk_id)
            if token_id is None:
                raise self.unknown_token_error(ch, f"at position {position}", position)
            ids.append(token_id)
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """The text spelled by ``ids``; the ``<unk>`` id becomes ``"<unk>"``.

        >>> CharTokenizer.train("abc").decode([2, 0, 1])
        'cab'
        """
        return "".join(self.tokens_of(ids))

    def _describe(self) -> dict[str, object]:
        return {"unk": self.unk_id is not None}
