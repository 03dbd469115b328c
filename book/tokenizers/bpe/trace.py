"""The trace of a segmentation, merge by merge: what the merge stepper displays.

Every BPE tokenizer in the book can replay its merges on a text and report each merge that
changed the segmentation. The stepper only needs this shape, so it works with any of them.
"""

from __future__ import annotations

from dataclasses import dataclass

Piece = str | bytes  # a token as text (character-level BPE) or as bytes (byte-level BPE)


@dataclass(frozen=True)
class Step:
    """One state of the segmentation.

    ``rank`` is the merge's position in training order (0 = first merge learned), or ``None``
    for the initial segmentation; ``pair`` -> ``new`` is the merge applied to reach this state,
    ``count`` the pair's frequency when it was chosen in training (``None`` where unknown, e.g.
    for merges recovered from a tiktoken encoding), and ``pieces`` the segmentation after it.

    >>> Step(rank=None, pair=None, new=None, count=None, pieces=("h", "i")).n_tokens
    2
    """

    rank: int | None
    pair: tuple[Piece, Piece] | None
    new: Piece | None
    count: int | None
    pieces: tuple[Piece, ...]

    @property
    def n_tokens(self) -> int:
        """Number of tokens in this segmentation."""
        return len(self.pieces)


def initial_step(pieces: tuple[Piece, ...]) -> Step:
    """The state before any merge: ``Step(rank=None, ...)`` holding ``pieces``."""
    return Step(rank=None, pair=None, new=None, count=None, pieces=tuple(pieces))
