"""A token-level n-gram language model, trained by counting (chapter 09; Appendix B derives it).

The smallest thing that predicts the next token from the ones before it: count, in the training
ids, which token followed each context of up to ``order - 1`` tokens, and turn the counts into
probabilities. Counts alone give probability 0 to everything training never showed, so the
model *smooths* them by interpolated absolute discounting (Jurafsky & Martin, *Speech and
Language Processing*, 3rd ed., chapter "N-gram Language Models"): every count seen after a
context gives up ``discount`` (0.75 by default), and the mass so freed is shared out according
to the next shorter context, down to the uniform distribution over all ``n_vocab`` ids::

    P(w | h) = max(c(h, w) - D, 0) / c(h)  +  D * n(h) / c(h) * P(w | h minus its first id)

where ``c(h, w)`` counts ``w`` after ``h``, ``c(h)`` counts ``h``, and ``n(h)`` is the number of
distinct ids seen after ``h``. A context never seen in training passes its shorter context's
probabilities through unchanged. Every id gets a probability above 0; after any context, the
ids training never saw all get one and the same, smallest one: the part of the uniform
distribution that the discounts pass down.

The model reads ids only, never what they spell: it works with any tokenizer.

>>> model = NGramModel.train([[1, 2, 3, 1, 2, 4]], n_vocab=5, order=2)
>>> model.next_counts([1])
Counter({2: 2})
>>> p2 = model.prob([], 2)  # (2 - 0.75) / 6 + 0.75 * 4 / 6 * 1/5
>>> round(p2, 4), model.prob([1], 2) == (2 - 0.75) / 2 + 0.75 * 1 / 2 * p2
(0.3083, True)
>>> round(float(model.probs([1]).sum()), 12)
1.0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["NGramModel"]


class NGramModel:
    """P(next id | the previous ``order - 1`` ids), from counts, with absolute discounting.

    Train it with :meth:`train`; ask it with :meth:`probs` (the whole next-id distribution),
    :meth:`prob` (one id) and :meth:`surprisal` (bits per id of a sequence).
    """

    def __init__(self, n_vocab: int, order: int = 3, discount: float = 0.75):
        if not isinstance(n_vocab, int) or n_vocab < 1:
            raise ValueError(
                f"n_vocab must be a positive int (the ids are 0..n_vocab-1), got {n_vocab!r}"
            )
        if not isinstance(order, int) or order < 1:
            raise ValueError(f"order must be an int >= 1 (1 = unigram, 3 = trigram), got {order!r}")
        if not 0 < discount < 1:
            raise ValueError(
                f"discount must be between 0 and 1 (exclusive), got {discount!r}; 0.75 is usual"
            )
        self.n_vocab = n_vocab
        self.order = order
        self.discount = discount
        # _tables[k][context of k ids] = Counter of the ids that followed it; _totals the sums.
        self._tables: list[dict[tuple[int, ...], Counter]] = [{} for _ in range(order)]
        self._totals: list[dict[tuple[int, ...], int]] = [{} for _ in range(order)]
        self.n_tokens = 0

    @classmethod
    def train(
        cls,
        sequences: Iterable[Sequence[int]],
        n_vocab: int,
        order: int = 3,
        discount: float = 0.75,
    ) -> NGramModel:
        """Count every id of every sequence after each of its contexts of 0 to ``order - 1`` ids.

        Each sequence is a separate document: no context reaches across two of them.

        >>> NGramModel.train([[0, 1], [1]], n_vocab=2, order=2).count(1)
        2
        """
        model = cls(n_vocab, order, discount)
        for ids in sequences:
            model._add(list(ids))
        return model

    def _add(self, ids: list[int]) -> None:
        """Count one document's ids after each of their contexts."""
        self._check_ids(ids)
        for k in range(self.order):
            table, totals = self._tables[k], self._totals[k]
            # Each (k + 1)-gram, counted at C speed in order of first occurrence, is a context
            # of k ids and the id after it.
            for gram, n in Counter(zip(*(ids[j:] for j in range(k + 1)))).items():
                context = gram[:-1]
                following = table.get(context)
                if following is None:
                    following = table[context] = Counter()
                following[gram[-1]] += n
                totals[context] = totals.get(context, 0) + n
        self.n_tokens += len(ids)

    def _check_ids(self, ids: Sequence[int]) -> None:
        """Refuse ids outside 0..n_vocab-1, naming the first one."""
        for token_id in ids:
            if not isinstance(token_id, (int, np.integer)) or not 0 <= token_id < self.n_vocab:
                raise ValueError(
                    f"id {token_id!r} is outside 0..{self.n_vocab - 1}: train and query the model "
                    "with ids of the tokenizer whose n_vocab it was built with"
                )

    def count(self, token_id: int) -> int:
        """How many times ``token_id`` occurred in the training ids (0: never trained on)."""
        return self._tables[0][()][token_id] if () in self._tables[0] else 0

    @property
    def seen(self) -> set[int]:
        """The ids that occur in the training ids."""
        return set(self._tables[0].get((), ()))

    def next_counts(self, context: Sequence[int]) -> Counter:
        """The training counts of the ids that followed exactly ``context`` (shorter than order).

        >>> NGramModel.train([[1, 2, 1, 3]], n_vocab=4, order=2).next_counts([1])
        Counter({2: 1, 3: 1})
        """
        context = tuple(context)
        if len(context) >= self.order:
            raise ValueError(
                f"a context of an order-{self.order} model has at most {self.order - 1} ids, "
                f"got {len(context)}; pass context[-{self.order - 1}:]"
            )
        self._check_ids(context)
        return Counter(self._tables[len(context)].get(context, Counter()))

    def _contexts(self, context: Sequence[int]):
        """(counts, total) of the context's suffixes, shortest first, while training saw them."""
        context = tuple(context)
        self._check_ids(context)
        for k in range(min(self.order, len(context) + 1)):
            suffix = context[len(context) - k :]
            table = self._tables[k].get(suffix)
            if not table:
                return  # a longer context ending in an unseen one is unseen too
            yield table, self._totals[k][suffix]

    def probs(self, context: Sequence[int]) -> np.ndarray:
        """The probability of every id (an array of ``n_vocab`` floats summing to 1) after
        ``context``; only its last ``order - 1`` ids count.

        >>> NGramModel.train([[0, 1]], n_vocab=3, order=2).probs([0]).round(3).tolist()
        [0.281, 0.531, 0.188]
        """
        p = np.full(self.n_vocab, 1.0 / self.n_vocab)
        for table, total in self._contexts(context):
            ids = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
            counts = np.fromiter(table.values(), dtype=np.float64, count=len(table))
            p *= self.discount * len(table) / total
            p[ids] += np.maximum(counts - self.discount, 0.0) / total
        return p

    def prob(self, context: Sequence[int], token_id: int) -> float:
        """The probability of ``token_id`` after ``context``: ``probs(context)[token_id]``,
        without building the whole array."""
        self._check_ids([token_id])
        p = 1.0 / self.n_vocab
        for table, total in self._contexts(context):
            p = (
                max(table[token_id] - self.discount, 0.0) / total
                + self.discount * len(table) / total * p
            )
        return p

    def surprisal(self, ids: Sequence[int]) -> list[float]:
        """Bits for each id of ``ids`` given the ids before it: ``-log2 P(id | context)``.

        The first id has no context. Fewer bits mean a better prediction.

        >>> model = NGramModel.train([[0, 1] * 5], n_vocab=2, order=2)
        >>> [round(bits, 2) for bits in model.surprisal([0, 1, 0])]
        [1.0, 0.11, 0.14]
        """
        ids = list(ids)
        return [
            -math.log2(self.prob(ids[max(0, i - self.order + 1) : i], token_id))
            for i, token_id in enumerate(ids)
        ]

    def __repr__(self) -> str:
        return (
            f"NGramModel(order={self.order}, n_vocab={self.n_vocab:,}, "
            f"trained on {self.n_tokens:,} ids, {len(self.seen):,} distinct)"
        )
