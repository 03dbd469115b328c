"""Measure any tokenizer on a text: tokens, bytes per token, OOV rate, round trip (chapters 02-11).

A tokenizer here is any :class:`book.tokenizers.Tokenizer` (the book's own tokenizers and
tiktoken's ``Encoding`` alike). Its unknown token, if any, is its ``unk_id`` attribute (or pass
``unk_id=`` explicitly). The book's one compression metric is UTF-8 **bytes per token**: it
compares tokenizers whatever their tokens are, and higher means shorter sequences.

>>> from book.tokenizers import CharTokenizer
>>> tok = CharTokenizer.train("the cat sat on the mat", unk=True)
>>> row = measure(tok, "the bat")
>>> row["n_vocab"], row["tokens"], row["bytes per token"], row["round trip"]
(11, 7, 1.0, False)
>>> round(row["OOV rate"], 3)  # 1 of 7 characters, the "b", is unknown
0.143
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from book.tokenizers.base import Tokenizer
from book.tokenizers.basic.words import WordTokenizer, vocab_from_counts

# The default of ``unk_id`` below: read the tokenizer's own ``unk_id`` attribute.
FROM_TOKENIZER: Any = object()


def unknown_id(tokenizer: Tokenizer, unk_id: int | None = FROM_TOKENIZER) -> int | None:
    """The id that stands for unknown input: ``unk_id`` if given, else ``tokenizer.unk_id``.

    A tokenizer without that attribute (byte-level BPE, tiktoken) has no unknown token.

    >>> from book.tokenizers import CharTokenizer
    >>> unknown_id(CharTokenizer(["a"], unk=True)), unknown_id(CharTokenizer(["a"]))
    (1, None)
    """
    if unk_id is not FROM_TOKENIZER:
        return unk_id
    return getattr(tokenizer, "unk_id", None)


def _encode_nonempty(tokenizer: Tokenizer, text: str, what: str) -> list[int]:
    """``tokenizer.encode(text)``; a text with no tokens is refused (ratios would divide by 0)."""
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

    >>> from book.tokenizers import CharTokenizer
    >>> bytes_per_token(CharTokenizer.train("hé"), "hé")
    1.5
    """
    ids = _encode_nonempty(tokenizer, text, "bytes_per_token")
    return len(text.encode("utf-8")) / len(ids)


def tokens_per_word(tokenizer: Tokenizer, text: str) -> float:
    """Tokens per whitespace-separated word of ``text``: the length cost a reader can picture.

    >>> from book.tokenizers import CharTokenizer
    >>> tokens_per_word(CharTokenizer.train("ab cd"), "ab cd")
    2.5
    """
    words = len(text.split())
    if words == 0:
        raise ValueError(f"tokens_per_word needs a text with at least one word; got {text!r}")
    return len(tokenizer.encode(text)) / words


def round_trips(tokenizer: Tokenizer, text: str) -> bool:
    """True when ``decode(encode(text))`` gives back exactly ``text``.

    >>> from book.tokenizers import WordTokenizer
    >>> tok = WordTokenizer.train("Hi, you")
    >>> round_trips(tok, "Hi you"), round_trips(tok, "Hi, you")
    (True, False)
    """
    return tokenizer.decode(tokenizer.encode(text)) == text


def measure(
    tokenizer: Tokenizer, text: str, *, unk_id: int | None = FROM_TOKENIZER
) -> dict[str, Any]:
    """One row for a comparison table: n_vocab, tokens, bytes per token, OOV rate, round trip.

    "OOV rate" is the fraction of tokens that are the unknown id. ``text`` is encoded and
    decoded once; an encoder that refuses unknown input raises as usual.

    >>> from book.tokenizers import WordTokenizer
    >>> measure(WordTokenizer.train("a b a", unk=True), "a c")
    {'n_vocab': 3, 'tokens': 2, 'bytes per token': 1.5, 'OOV rate': 0.5, 'round trip': False}
    """
    ids = _encode_nonempty(tokenizer, text, "measure")
    return {
        "n_vocab": tokenizer.n_vocab,
        "tokens": len(ids),
        "bytes per token": len(text.encode("utf-8")) / len(ids),
        "OOV rate": oov_share(ids, unknown_id(tokenizer, unk_id)),
        "round trip": tokenizer.decode(ids) == text,
    }


def oov_rate(vocab: WordTokenizer | Collection[str], words: Iterable[str]) -> float:
    """The fraction of running ``words`` (tokens, not types) missing from ``vocab``.

    With a tokenizer, ``words`` are lowercased first if it lowercases.

    >>> oov_rate({"the", "cat"}, ["the", "dog", "the", "cat"])
    0.25
    """
    if isinstance(vocab, WordTokenizer):
        known = {word for word, i in vocab.token_to_id.items() if i != vocab.unk_id}
        words = (word.lower() for word in words) if vocab.lowercase else words
    else:
        known = vocab if isinstance(vocab, (set, frozenset, dict)) else set(vocab)
    total = missing = 0
    for word in words:
        total += 1
        missing += word not in known
    if total == 0:
        raise ValueError("oov_rate needs at least one word to measure")
    return missing / total


def oov_curve(
    train_counts: Mapping[str, int], heldout_words: Iterable[str], sizes: Iterable[int]
) -> list[float]:
    """``oov_rate`` of held-out words for the top-``size`` vocabulary, for each size.

    One pass over the held-out counts instead of one per size: a held-out word is covered by
    the top-k vocabulary exactly when its training rank is below k.

    >>> from book.tokenizers.basic.words import word_counts
    >>> counts = word_counts("a a a b b c".split())
    >>> oov_curve(counts, "a b c d".split(), [0, 1, 2, 3, 10])
    [1.0, 0.75, 0.5, 0.25, 0.25]
    """
    rank = {word: r for r, word in enumerate(vocab_from_counts(train_counts))}
    heldout = Counter(heldout_words)
    total = heldout.total()
    if total == 0:
        raise ValueError("oov_curve needs at least one held-out word to measure")
    # covered_at[k] = held-out tokens whose word is among the top k training words
    by_rank = [0] * (len(rank) + 1)
    for word, count in heldout.items():
        if word in rank:
            by_rank[rank[word] + 1] += count
    covered_at = list(itertools.accumulate(by_rank))
    curve = []
    for size in sizes:
        if size < 0:
            raise ValueError(f"vocabulary sizes must be at least 0, got {size}")
        curve.append((total - covered_at[min(size, len(rank))]) / total)
    return curve
