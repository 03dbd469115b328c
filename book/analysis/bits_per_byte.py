"""Bits per byte: how well a model trained on a tokenizer's ids predicts held-out *text*.

A model's loss per token does not compare across tokenizers: a tokenizer with longer tokens
has fewer of them to predict, each carrying more text, so its loss per token is higher even
when it predicts the text better. Dividing the total loss of a text by its UTF-8 bytes puts
every tokenizer on one scale, the text's (Gao et al., *The Pile*, 2020, report language
models so; Pagnoni et al., 2024, compare the Byte Latent Transformer with token models so)::

    bits per byte = sum over the held-out ids of -log2 P(id | the ids before it)
                    / the number of UTF-8 bytes of the held-out text

The model here is the book's :class:`~book.analysis.ngram.NGramModel`, trained on the
training text's ids. :func:`sweep` measures it for several vocabulary sizes and split
patterns, beside the tokenizer's bytes per token.

>>> from book.tokenizers import ByteTokenizer
>>> tok = ByteTokenizer.train("abab abab", 258)
>>> round(model_bits_per_byte(tok, "abab abab", "abab", order=2), 3)
0.314
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from book.analysis.ngram import NGramModel
from book.tokenizers.base import N_BYTES, Tokenizer
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import utf8_bytes
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN
from book.tokenizers.bpe.regex_bpe import RegexTokenizer

# The pre-tokenizations a sweep compares: none (byte-level BPE on the whole text), GPT-2's
# split pattern and cl100k's (GPT-4's).
SPLITS: dict[str, str | None] = {"none": None, "gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN}


def bits_per_byte(model: NGramModel, ids: Sequence[int], text: str) -> float:
    """Total surprisal of ``ids`` under ``model`` (bits) per UTF-8 byte of ``text``.

    ``ids`` must be the encoding of ``text`` (one document: its first id has no context).

    >>> model = NGramModel.train([[0, 1] * 4], n_vocab=2, order=1)
    >>> bits_per_byte(model, [0, 1], "ab")  # each id has probability 1/2: 1 bit per byte
    1.0
    """
    size = len(utf8_bytes(text))
    if size == 0:
        raise ValueError("bits per byte needs a non-empty held-out text (it divides by bytes)")
    return sum(model.surprisal(ids)) / size


def model_bits_per_byte(
    tokenizer: Tokenizer,
    train_text: str,
    heldout_text: str,
    order: int = 3,
    *,
    train_ids: Sequence[int] | None = None,
) -> float:
    """Bits per byte of ``heldout_text`` under an order-``order`` n-gram model trained on the
    tokenizer's ids of ``train_text`` (or on ``train_ids``, e.g. an encoding with dropout).

    The held-out text is encoded the ordinary way, as a model meets text after training.
    """
    if train_ids is None:
        train_ids = tokenizer.encode(train_text)
    model = NGramModel.train([train_ids], tokenizer.n_vocab, order)
    return bits_per_byte(model, tokenizer.encode(heldout_text), heldout_text)


class SweepPoint(NamedTuple):
    """One tokenizer of a sweep and what it gives on the held-out text."""

    split: str  # a name of SPLITS
    vocab_size: int
    bytes_per_token: float
    bits_per_byte: float
    tokenizer: Tokenizer  # kept, so that a reader can look at what it learned


def sweep(
    train_text: str,
    heldout_text: str,
    vocab_sizes: Iterable[int],
    splits: Iterable[str] = tuple(SPLITS),
    order: int = 3,
) -> list[SweepPoint]:
    """Bytes per token and bits per byte of the held-out text, for each split and vocab size.

    BPE's merges for a smaller vocabulary are the first ones of a larger vocabulary's, so each
    split is trained once, at the largest size, and cut down to each size.

    >>> points = sweep("to be or not to be", "not to be", [256, 260], ["gpt2"], order=2)
    >>> [(p.vocab_size, round(p.bytes_per_token, 2)) for p in points]
    [(256, 1.0), (260, 1.5)]
    """
    sizes = sorted(set(vocab_sizes))
    if not sizes or sizes[0] < N_BYTES:
        raise ValueError(f"vocab_sizes must be sizes >= {N_BYTES} (the bytes), got {sizes}")
    points = []
    size = len(utf8_bytes(heldout_text))
    for split in splits:
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; choose from {list(SPLITS)}")
        pattern = SPLITS[split]
        if pattern is None:
            largest: ByteTokenizer = ByteTokenizer.train(train_text, sizes[-1])
        else:
            largest = RegexTokenizer.train(train_text, sizes[-1], pattern=pattern)
        for vocab_size in sizes:
            merges = largest.merges[: vocab_size - N_BYTES]
            tok = ByteTokenizer(merges) if pattern is None else RegexTokenizer(merges, pattern)
            tokens = len(tok.encode(heldout_text))
            bits = model_bits_per_byte(tok, train_text, heldout_text, order)
            points.append(SweepPoint(split, vocab_size, size / tokens, bits, tok))
    return points
