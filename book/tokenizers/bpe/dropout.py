"""BPE-dropout (Provilkov et al., ACL 2020): encode with some merges skipped at random.

Encoding applies, again and again, the lowest-ranked merge present (:func:`merge_lowest_rank
<book.tokenizers.bpe.core.merge_lowest_rank>`). BPE-dropout drops each candidate merge of a
step with probability ``dropout`` and applies the best one left; when every candidate of a
step is dropped, encoding stops. The same text thus gets many segmentations, all made of the
vocabulary's tokens, so a model trained on them learns how words are built ("subword
regularization"; the paper reports up to +2.3 BLEU over BPE on translation). ``dropout=0`` is
BPE itself, ``dropout=1`` leaves the bytes; the paper uses 0.1 while training and plain BPE
for test text. Hugging Face tokenizers' ``BPE(dropout=...)`` is the same option, tried in
the same order: candidates by rank, then leftmost first, each skipped with probability
``dropout``. (Its heap also holds entries that earlier merges made stale, and popping one
gives the skipped candidates another draw; here each step draws once per candidate, as the
paper's algorithm does, so the two agree at 0 and 1 and differ a little in between.)

>>> import random
>>> ranks = {(104, 105): 0, (256, 33): 1}
>>> merge_with_dropout(list(b"hi!"), ranks, 0.0, random.Random(0))
[257]
>>> merge_with_dropout(list(b"hi!"), ranks, 1.0, random.Random(0))
[104, 105, 33]
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from book.tokenizers.bpe.core import NEXT_IDS, Pair, S


def check_dropout(dropout: object) -> float:
    """``dropout`` if it is a probability, 0 to 1; else a ValueError saying so."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
        raise ValueError(
            f"dropout must be a probability from 0 (plain BPE) to 1 (no merges), got "
            f"{dropout!r}; the paper trains with 0.1 (None: no dropout)"
        )
    return float(dropout)


def merge_with_dropout(
    symbols: Sequence[S],
    ranks: Mapping[Pair[S], int],
    dropout: float,
    rng: random.Random,
    new_symbols: Sequence[S] = NEXT_IDS,
) -> list[S]:
    """Merge as BPE encodes, but skip each candidate merge with probability ``dropout``.

    At each step the adjacent pairs that are merges are tried by rank, leftmost first; each
    is skipped with probability ``dropout``, and the first one kept is merged. A step that
    keeps none ends the encoding. Each step rescans the sequence: fine for a chunk, slow for a
    whole text without a split pattern.
    """
    symbols = list(symbols)
    while True:
        candidates = sorted(
            (rank, i)
            for i, pair in enumerate(zip(symbols, symbols[1:]))
            if (rank := ranks.get(pair)) is not None
        )
        kept = next(((rank, i) for rank, i in candidates if rng.random() >= dropout), None)
        if kept is None:
            return symbols
        rank, i = kept
        symbols[i : i + 2] = [new_symbols[rank]]
