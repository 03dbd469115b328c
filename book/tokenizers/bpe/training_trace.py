"""The trace of BPE training, merge by merge: what the training stepper displays (chapters 04-05).

Training looks at every adjacent pair of the corpus, counts it, and merges the most frequent.
A :class:`TrainingStep` records one round of that: the pair counts the choice was made from,
the pairs tied for the top count, the pair chosen by the book's tie-break (first in the
training data among the tied), the new token, and the corpus re-segmented after the merge.

Character level (Sennrich's recipe): words with their frequencies, spelled as characters and
``</w>``. Byte level (chapter 05): the whole text as one sequence of bytes.

>>> steps = char_training_trace("hug hug pug", num_merges=2)
>>> [(step.chosen, step.count, step.new) for step in steps[1:]]
[(('u', 'g'), 3, 'ug'), (('ug', '</w>'), 3, 'ug</w>')]
>>> steps[1].tied  # both occur 3 times; ('u', 'g') comes first in the data
(('u', 'g'), ('g', '</w>'))
>>> steps[-1].segmentation
((('h', 'ug</w>'), 2), (('p', 'ug</w>'), 1))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice

from book.tokenizers.bpe.char_bpe import initial_splits, word_freqs
from book.tokenizers.bpe.core import check_num_merges, joined, training_rounds
from book.tokenizers.bpe.trace import Piece

TIE_BREAK_RULE = "the most frequent pair wins; among equally frequent pairs, the first in the data"

Segmentation = tuple[tuple[tuple[Piece, ...], int], ...]  # (pieces of a word, its frequency)


@dataclass(frozen=True)
class TrainingStep:
    """One round of training: the counts it chose from, the merge, the corpus after it.

    The initial state (``rank`` None) has no merge: ``chosen``, ``count`` and ``new`` are None,
    ``counts`` are those the first merge will be chosen from, ``segmentation`` the corpus as
    characters (or bytes).
    """

    rank: int | None  # the merge's rank (0 = learned first); None before any merge
    counts: tuple[tuple[tuple[Piece, Piece], int], ...]  # every pair, most frequent first
    tied: tuple[tuple[Piece, Piece], ...]  # the pairs that had the top count, in data order
    chosen: tuple[Piece, Piece] | None
    count: int | None
    new: Piece | None
    segmentation: Segmentation

    @property
    def n_tokens(self) -> int:
        """Tokens of the whole corpus in this state (each word counted as often as it occurs)."""
        return sum(len(pieces) * freq for pieces, freq in self.segmentation)


def training_trace(
    splits: Mapping[Piece, tuple[Piece, ...]], freqs: Mapping[Piece, int], num_merges: int
) -> list[TrainingStep]:
    """Train up to ``num_merges`` merges on ``splits`` weighted by ``freqs``, recording each round.

    The rounds are the core's obvious trainer (:func:`~book.tokenizers.bpe.core.training_rounds`,
    on str and bytes pieces alike), so the trace cannot disagree with training.

    >>> [s.chosen for s in training_trace({b"ab": (b"a", b"b")}, {b"ab": 1}, 3)]
    [None, (b'a', b'b')]
    """
    check_num_merges(num_merges)
    sequences = {tuple(splits[word]): freqs[word] for word in freqs}
    rounds = list(islice(training_rounds(sequences, joined), num_merges))
    first_counts = rounds[0].counts if rounds else {}
    steps = [TrainingStep(None, *_ranked(first_counts), None, None, None, _frozen(sequences))]
    for done in rounds:
        (chosen, count), counts = done.merge, done.counts
        segmentation = _frozen(done.sequences)
        steps.append(
            TrainingStep(done.rank, *_ranked(counts), chosen, count, done.new, segmentation)
        )
    return steps


def _ranked(counts: Mapping) -> tuple[tuple, tuple]:
    """(every pair and count, most frequent first; the pairs tied at the top, in data order)."""
    # sorted() is stable: equal counts keep their first-occurrence order, the tie-break's.
    ranked = tuple(sorted(counts.items(), key=lambda item: -item[1]))
    tied = tuple(pair for pair, n in ranked if n == ranked[0][1]) if ranked else ()
    return ranked, tied


def _frozen(sequences) -> Segmentation:
    """``[(symbols, weight)]`` or ``{symbols: weight}`` as a tuple of (tuple, weight)."""
    items = sequences.items() if isinstance(sequences, Mapping) else sequences
    return tuple((tuple(symbols), weight) for symbols, weight in items)


def char_training_trace(text: str, num_merges: int) -> list[TrainingStep]:
    """The training trace of character-level BPE on ``text`` (whitespace-split words, ``</w>``).

    >>> [step.new for step in char_training_trace("aaa", 2)]
    [None, 'aa', 'aaa']
    """
    freqs = word_freqs(text)
    if not freqs:
        raise ValueError("the corpus has no words: type at least one word to train on")
    return training_trace(initial_splits(freqs), freqs, num_merges)


def byte_training_trace(text: str, num_merges: int) -> list[TrainingStep]:
    """The training trace of byte-level BPE on ``text`` as one sequence of UTF-8 bytes.

    >>> [step.new for step in byte_training_trace("é é", 2)]
    [None, b'\\xc3\\xa9', b'\\xc3\\xa9 ']
    """
    data = text.encode("utf-8")
    if not data:
        raise ValueError("the corpus is empty: type a text to train on")
    return training_trace({data: tuple(bytes([byte]) for byte in data)}, {data: 1}, num_merges)
