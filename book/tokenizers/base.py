"""What every tokenizer of the book is: the one interface, and the one unknown token.

Five tokenizers are built in chapters 02-06 (characters, words, character-level BPE,
byte-level BPE, regex BPE) and two more in chapter 10 (WordPiece, Unigram). They differ in
what a token is, but every one of them turns text into ids and back the same way, and
``book.analysis`` and ``book.show`` accept any of them. A ``tiktoken.Encoding`` has the same
``encode``, ``decode`` and ``n_vocab``; it calls ``token_bytes`` ``decode_single_token_bytes``.

>>> from book.tokenizers import CharTokenizer, WordTokenizer
>>> all(isinstance(t.train("hi"), Tokenizer) for t in (CharTokenizer, WordTokenizer))
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

# The text an unknown character or word decodes to, in every tokenizer that has one.
# (WordPiece's ``[UNK]`` is the library convention it is compared with, a parameter there.)
UNK = "<unk>"


@runtime_checkable
class Tokenizer(Protocol):
    """Text in, ids out, and back: the methods every tokenizer of the book has.

    - ``encode(text)``: the ids of ``text``;
    - ``decode(ids)``: the text of ``ids`` (lossy where a tokenizer says so);
    - ``n_vocab``: one more than the largest id, so ids run from 0 to ``n_vocab - 1``;
    - ``token_bytes(token_id)``: the UTF-8 bytes of one vocabulary entry as stored
      (``b"er</w>"``, ``b" the"``, ``b"\\xe4"`` for half a character, ``b"<unk>"``).

    Each also trains the same way, ``Cls.train(text, vocab_size, **options)``, where
    ``vocab_size`` counts everything in the vocabulary (base symbols, merges, unknown and
    special tokens), as tiktoken, Hugging Face tokenizers and CS336 count it.
    """

    @property
    def n_vocab(self) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: Iterable[int]) -> str: ...

    def token_bytes(self, token_id: int) -> bytes: ...


def check_train_vocab_size(vocab_size: object, minimum: int, what: str) -> int:
    """``vocab_size`` if it is an int >= ``minimum``; else a ValueError that says why.

    >>> check_train_vocab_size(300, 257, "256 bytes and <unk>")
    300
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < minimum:
        raise ValueError(
            f"vocab_size must be an int >= {minimum} (it counts everything in the vocabulary: "
            f"{what}), got {vocab_size!r}"
        )
    return vocab_size
