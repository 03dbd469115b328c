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
(``n_vocab - 1``), that every unknown character maps to; ``decode`` renders it as ``"<unk>"``.
Nothing is ever dropped silently. ``vocab_size`` caps the vocabulary, ``<unk>`` included: the
most frequent characters are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from book.tokenizers.base import UNK, check_train_vocab_size
from book.tokenizers.errors import UnknownTokenError, tokens_for_ids


def describe_char(ch: str) -> str:
    r"""A character as a reader can identify it, even when invisible: repr and code point.

    >>> print(describe_char("é"), describe_char("\n"))
    'é' (U+00E9) '\n' (U+000A)
    """
    return f"{ch!r} (U+{ord(ch):04X})"


class CharTokenizer:
    """Maps each character of a fixed alphabet to its index in that alphabet.

    >>> tok = CharTokenizer(["a", "b"], unk=True)
    >>> tok.encode("abc"), tok.unk_id
    ([0, 1, 2], 2)
    >>> tok.decode([0, 2, 1])
    'a<unk>b'
    """

    def __init__(self, chars: Iterable[str], *, unk: bool = False):
        self.chars = list(chars)
        for ch in self.chars:
            if not isinstance(ch, str) or len(ch) != 1:
                raise ValueError(f"the alphabet must hold single characters, got {ch!r}")
        if len(set(self.chars)) != len(self.chars):
            raise ValueError("the alphabet holds a character twice; ids must be unique")
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}
        self.itos = dict(enumerate(self.chars))
        # <unk> goes last so that turning it on never renumbers the characters.
        self.unk_id = len(self.chars) if unk else None
        if unk:
            self.itos[self.unk_id] = UNK

    @classmethod
    def train(cls, text: str, vocab_size: int | None = None, *, unk: bool = False) -> CharTokenizer:
        """The tokenizer whose alphabet is the sorted set of characters in ``text``.

        Sorting by code point makes the ids independent of where a character first appears.
        With ``vocab_size``, only the ``vocab_size`` most frequent characters are kept (one
        fewer if ``unk`` takes an id; equal counts: first occurrence wins); a text with fewer
        distinct characters gives a smaller vocabulary.

        >>> CharTokenizer.train("banana").chars
        ['a', 'b', 'n']
        >>> CharTokenizer.train("banana", vocab_size=3, unk=True).chars
        ['a', 'n']
        """
        if vocab_size is None:
            return cls(sorted(set(text)), unk=unk)
        check_train_vocab_size(vocab_size, int(unk), "the characters, plus <unk> if unk=True")
        kept = [ch for ch, _count in Counter(text).most_common(vocab_size - unk)]
        return cls(sorted(kept), unk=unk)

    @property
    def n_vocab(self) -> int:
        """Number of ids: the characters, plus one if ``<unk>`` is on."""
        return len(self.itos)

    def token_bytes(self, token_id: int) -> bytes:
        """The UTF-8 bytes of token ``token_id`` (``b"<unk>"`` for the unknown token).

        >>> CharTokenizer.train("hé").token_bytes(1)
        b'\\xc3\\xa9'
        """
        return tokens_for_ids(self.itos, [token_id], self.n_vocab)[0].encode("utf-8")

    def encode(self, text: str) -> list[int]:
        """The id of each character of ``text``.

        >>> CharTokenizer.train("abc").encode("cab")
        [2, 0, 1]
        """
        if not isinstance(text, str):
            raise TypeError(f"encode expects a str, got {type(text).__name__}")
        ids = []
        for position, ch in enumerate(text):
            token_id = self.stoi.get(ch, self.unk_id)
            if token_id is None:
                raise self._unknown(ch, position)
            ids.append(token_id)
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """The text spelled by ``ids``; the ``<unk>`` id becomes ``"<unk>"``.

        >>> CharTokenizer.train("abc").decode([2, 0, 1])
        'cab'
        """
        return "".join(tokens_for_ids(self.itos, ids, self.n_vocab))

    def _unknown(self, ch: str, position: int) -> UnknownTokenError:
        """The error for a character outside the alphabet, with what to do about it."""
        return UnknownTokenError(
            f"character {describe_char(ch)} at position {position} is not in the vocabulary "
            f"({len(self.chars)} characters). Train on text that contains it, or pass "
            f"unk=True to CharTokenizer.train to encode unknown characters as {UNK}.",
            token=ch,
            position=position,
        )

    def __repr__(self) -> str:
        return f"CharTokenizer(n_vocab={self.n_vocab}, unk={self.unk_id is not None})"
