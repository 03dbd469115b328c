"""How many tokens a byte-level BPE needs for a text after its first k merges, for many k.

Chapter 05 plots bytes per token against vocabulary size; chapter 06 compares BPE with and
without a split pattern. Encoding the text from scratch for every k repeats work. Instead we
use a property of the lowest-rank-first encoder: it applies merges in rank order (a merge
only creates pairs of higher rank), so the encoding with the first k merges is the encoding
with the first j < k merges, continued with ranks j to k - 1. Each checkpoint continues from
the previous one, and each distinct chunk (for a tokenizer with a split pattern) is encoded
once, weighted by how often it occurs. For character-level BPE, see
:mod:`book.analysis.curves`.

>>> from book.tokenizers.bpe.byte_bpe import ByteTokenizer
>>> tok = ByteTokenizer.train("hi hi hi!", vocab_size=259)
>>> token_count_curve(tok, "hi hi!", [0, 1, 3])
[6, 4, 3]
>>> [len(ByteTokenizer(tok.merges[:k]).encode("hi hi!")) for k in (0, 1, 3)]
[6, 4, 3]
>>> bytes_per_token_curve(tok, "hi hi!", [0, 3])
[1.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Iterable

from book.analysis.curves import checked_checkpoints
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import merge_lowest_rank, utf8_bytes


def distinct_chunks(tokenizer: ByteTokenizer, text: str) -> dict[str, int]:
    """``{chunk: count}`` for a tokenizer with a ``split`` method, else ``{text: 1}``.

    >>> distinct_chunks(ByteTokenizer(), "a a")
    {'a a': 1}
    """
    split = getattr(tokenizer, "split", None)
    if split is None:
        return {text: 1}
    counts: dict[str, int] = {}
    for chunk in split(text):
        counts[chunk] = counts.get(chunk, 0) + 1
    return counts


def token_count_curve(tokenizer: ByteTokenizer, text: str, checkpoints: Iterable[int]) -> list[int]:
    """Tokens for ``text`` using only the tokenizer's first ``k`` merges, for each ``k``.

    Equal to ``len(type(tokenizer)(tokenizer.merges[:k], ...).encode(text))``; a regex
    tokenizer (one with ``split``) encodes chunk by chunk. Special tokens are not looked for.
    """
    checkpoints = checked_checkpoints(checkpoints, len(tokenizer.merges))
    utf8_bytes(text)  # a lone surrogate fails here, with its position in the whole text
    chunks = distinct_chunks(tokenizer, text)
    weights = list(chunks.values())
    states = [tokenizer.text_to_byte_ids(chunk) for chunk in chunks]
    pairs = [pair for pair, _count in tokenizer.merges]
    at: dict[int, int] = {}
    for k in sorted(set(checkpoints)):
        ranks = dict(zip(pairs[:k], range(k)))
        states = [merge_lowest_rank(ids, ranks) for ids in states]
        at[k] = sum(len(ids) * weight for ids, weight in zip(states, weights))
    return [at[k] for k in checkpoints]


def bytes_per_token_curve(
    tokenizer: ByteTokenizer, text: str, checkpoints: Iterable[int]
) -> list[float]:
    """UTF-8 bytes of ``text`` per token after the first ``k`` merges, for each ``k``.

    The single-tokenizer measure is :func:`book.analysis.metrics.bytes_per_token`.

    1.0 before any merge; higher means shorter sequences. An empty text gives 0.0.

    >>> bytes_per_token_curve(ByteTokenizer(), "", [0])
    [0.0]
    """
    n_bytes = len(utf8_bytes(text))
    return [n_bytes / n if n else 0.0 for n in token_count_curve(tokenizer, text, checkpoints)]
