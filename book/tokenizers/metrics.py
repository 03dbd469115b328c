"""Measure any tokenizer on a text: tokens, bytes per token, OOV rate, round trip (chapters 02-08).

A tokenizer here is anything with ``encode(text) -> list[int]`` and ``decode(ids) -> str``:
the book's own tokenizers and tiktoken's ``Encoding`` alike. Its unknown token, if any, is the
``unk_id`` attribute (or pass ``unk_id=`` explicitly).

>>> from book.tokenizers.characters import CharTokenizer
>>> tok = CharTokenizer.train("the cat sat on the mat", unk=True)
>>> measure(tok, "the bat")
{'vocab size': 11, 'tokens': 7, 'bytes per token': 1.0, 'OOV rate': 0.14285714285714285, 'round trip': False}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class Tokenizer(Protocol):
    """What every function here needs: a pair of encode and decode."""

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: list[int]) -> str: ...


# The default of ``unk_id`` below: read the tokenizer's own ``unk_id`` attribute.
FROM_TOKENIZER: Any = object()


def vocab_size(tokenizer: Tokenizer) -> int | None:
    """The number of ids: ``vocab_size``, else tiktoken's ``n_vocab``, else None if neither exists.

    >>> from book.tokenizers.words import WordTokenizer
    >>> vocab_size(WordTokenizer(["a", "b"], unk=True))
    3
    """
    for attribute in ("vocab_size", "n_vocab"):
        size = getattr(tokenizer, attribute, None)
        if size is not None:
            return size
    return None


def unknown_id(tokenizer: Tokenizer, unk_id: int | None = FROM_TOKENIZER) -> int | None:
    """The id that stands for unknown input: ``unk_id`` if given, else ``tokenizer.unk_id``.

    >>> from book.tokenizers.characters import CharTokenizer
    >>> unknown_id(CharTokenizer(["a"], unk=True)), unknown_id(CharTokenizer(["a"]))
    (1, None)
    """
    if unk_id is not FROM_TOKENIZER:
        return unk_id
    found = getattr(tokenizer, "unk_id", None)
    # A tokenizer that says it has an unknown token but not which id it is would otherwise
    # be measured as never meeting unknown input.
    if found is None and getattr(tokenizer, "unk", False) is True:
        raise TypeError(
            f"{type(tokenizer).__name__} has unk=True but no unk_id attribute, so its unknown "
            "tokens cannot be counted; pass unk_id=<the id of its unknown token>."
        )
    return found


def _encode_nonempty(tokenizer: Tokenizer, text: str, what: str) -> list[int]:
    """``tokenizer.encode(text)``, refusing a text with no tokens (every ratio would divide by 0)."""
    ids = tokenizer.encode(text)
    if len(ids) == 0:
        raise ValueError(f"{what} needs a text that encodes to at least one token; got {text!r}")
    return ids


def oov_share(ids: Sequence[int], unk_id: int | None) -> float:
    """The fraction of ``ids`` that are ``unk_id`` (0.0 when there is no unknown token).

    >>> oov_share([0, 3, 1, 3], unk_id=3)
    0.5
    """
    if len(ids) == 0:
        raise ValueError("oov_share needs at least one id")
    if unk_id is None:
        return 0.0
    return sum(token_id == unk_id for token_id in ids) / len(ids)


def bytes_per_token(tokenizer: Tokenizer, text: str) -> float:
    """UTF-8 bytes of ``text`` per token: how much text one id carries (higher is shorter).

    >>> from book.tokenizers.characters import CharTokenizer
    >>> bytes_per_token(CharTokenizer.train("hé"), "hé")
    1.5
    """
    ids = _encode_nonempty(tokenizer, text, "bytes_per_token")
    return len(text.encode("utf-8")) / len(ids)


def tokens_per_word(tokenizer: Tokenizer, text: str) -> float:
    """Tokens per whitespace-separated word of ``text``: the length cost a reader can picture.

    >>> from book.tokenizers.characters import CharTokenizer
    >>> tokens_per_word(CharTokenizer.train("ab cd"), "ab cd")
    2.5
    """
    words = len(text.split())
    if words == 0:
        raise ValueError(f"tokens_per_word needs a text with at least one word; got {text!r}")
    return len(tokenizer.encode(text)) / words


def round_trips(tokenizer: Tokenizer, text: str) -> bool:
    """True when ``decode(encode(text))`` gives back exactly ``text``.

    >>> from book.tokenizers.words import WordTokenizer
    >>> tok = WordTokenizer.train("Hi, you")
    >>> round_trips(tok, "Hi you"), round_trips(tok, "Hi, you")
    (True, False)
    """
    return tokenizer.decode(tokenizer.encode(text)) == text


def measure(tokenizer: Tokenizer, text: str, *, unk_id: int | None = FROM_TOKENIZER) -> dict[str, Any]:
    """One row for a comparison table: vocab size, tokens, bytes per token, OOV rate, round trip.

    "OOV rate" is the fraction of tokens that are the unknown id. ``text`` is encoded and
    decoded once; an encoder that refuses unknown input raises as usual.

    >>> from book.tokenizers.words import WordTokenizer
    >>> measure(WordTokenizer.train("a b a", unk=True), "a c")
    {'vocab size': 3, 'tokens': 2, 'bytes per token': 1.5, 'OOV rate': 0.5, 'round trip': False}
    """
    ids = _encode_nonempty(tokenizer, text, "measure")
    return {
        "vocab size": vocab_size(tokenizer),
        "tokens": len(ids),
        "bytes per token": len(text.encode("utf-8")) / len(ids),
        "OOV rate": oov_share(ids, unknown_id(tokenizer, unk_id)),
        "round trip": tokenizer.decode(ids) == text,
    }
