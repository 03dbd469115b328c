"""Entropy patching, as in the Byte Latent Transformer (Pagnoni et al., 2024).

BLT has no vocabulary: it groups a text's bytes into *patches*, and a small byte-level model
decides where they end. Where the next byte is hard to predict (its entropy is high: the
start of a word, of a name), a new patch begins; a run of predictable bytes (the rest of a
word) stays in one patch. The paper's two rules for a patch starting at byte ``t``, with
``H(t)`` the entropy of the model's distribution for byte ``t`` given the bytes before it:

- the global threshold: ``H(t) > threshold``;
- the approximate monotonic rule: ``H(t) - H(t - 1) > threshold`` (entropy jumps).

The entropy model here is the book's :class:`~book.analysis.ngram.NGramModel` on byte values
(``n_vocab=256``), trained on the training text's bytes.

>>> model = byte_model("abcabc " * 5 + "abd", order=2)
>>> entropies = next_byte_entropies(model, b"abc abd")
>>> [round(bits, 1) for bits in entropies]
[3.0, 0.4, 0.9, 1.6, 0.8, 0.4, 0.9]
>>> patches(b"abc abd", patch_starts(entropies, 1.0))  # after "c", " " or "a" may come
[b'abc', b' abd']
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from book.analysis.ngram import NGramModel
from book.tokenizers.base import N_BYTES
from book.tokenizers.bpe.core import utf8_bytes


def byte_model(text: str, order: int = 3) -> NGramModel:
    """An order-``order`` n-gram model of the UTF-8 bytes of ``text`` (ids = byte values)."""
    return NGramModel.train([utf8_bytes(text)], n_vocab=N_BYTES, order=order)


def next_byte_entropies(model: NGramModel, data: bytes) -> list[float]:
    """For each byte of ``data``, the entropy in bits of ``model``'s prediction of it from the
    bytes before it (at most ``order - 1`` of them, none for the first).

    0 bits: the model is sure; 8 bits: all 256 bytes equally likely.

    >>> next_byte_entropies(NGramModel(n_vocab=256, order=2), b"hi")
    [8.0, 8.0]
    """
    if model.n_vocab != N_BYTES:
        raise ValueError(
            f"the entropy model must predict bytes (n_vocab={N_BYTES}), this one has "
            f"n_vocab={model.n_vocab}; train one with byte_model(text)"
        )
    keep = model.order - 1
    entropies = []
    for i in range(len(data)):
        p = model.probs(data[max(0, i - keep) : i])
        entropies.append(float(-(p * np.log2(p)).sum()))
    return entropies


def patch_starts(
    entropies: Sequence[float], threshold: float, *, monotonic: bool = False
) -> list[int]:
    """Where patches start: byte 0, and each byte whose entropy is above ``threshold``
    (``monotonic``: whose entropy exceeds the previous byte's by more than ``threshold``).

    >>> entropies = [8.0, 1.0, 3.0, 0.5]
    >>> patch_starts(entropies, 2.0), patch_starts(entropies, 1.5, monotonic=True)
    ([0, 2], [0, 2])
    """
    if not isinstance(threshold, (int, float)) or math.isnan(threshold):
        raise ValueError(f"threshold must be a number of bits, got {threshold!r}")
    if monotonic:
        rises = (entropies[t] - entropies[t - 1] for t in range(1, len(entropies)))
        later = [t for t, rise in enumerate(rises, start=1) if rise > threshold]
    else:
        later = [t for t in range(1, len(entropies)) if entropies[t] > threshold]
    return [0, *later] if len(entropies) else []


def patches(data: bytes, starts: Sequence[int]) -> list[bytes]:
    """``data`` cut at ``starts`` (0 first, increasing): the patches, which join to ``data``.

    >>> patches(b"the cat", [0, 3, 4])
    [b'the', b' ', b'cat']
    """
    if list(starts[:1]) != ([0] if data else []) or any(a >= b for a, b in zip(starts, starts[1:])):
        raise ValueError(f"starts must begin at 0 and increase, got {list(starts)[:10]}")
    if starts and starts[-1] >= len(data):
        raise ValueError(f"a patch starts at {starts[-1]}, past the {len(data)} bytes")
    return [data[a:b] for a, b in zip(starts, [*starts[1:], len(data)])]


def bytes_per_patch(
    model: NGramModel, text: str, threshold: float, *, monotonic: bool = False
) -> float:
    """The mean patch length of ``text`` in bytes: BLT's counterpart of bytes per token.

    >>> bytes_per_patch(byte_model("abc" * 10, order=2), "abcabc", 1.0)
    6.0
    """
    data = utf8_bytes(text)
    if not data:
        raise ValueError("bytes per patch needs a non-empty text")
    entropies = next_byte_entropies(model, data)
    return len(data) / len(patch_starts(entropies, threshold, monotonic=monotonic))
