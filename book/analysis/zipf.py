"""Zipf's law fitted two ways: least squares on log-log axes, and maximum likelihood.

Zipf's law says the word of rank ``r`` occurs about ``C * r ** -a`` times, ``a`` near 1. The
exponent a text gives depends on how it is fitted. A least-squares line through
(log rank, log frequency) weighs every distinct word alike, so the thousands of words seen once
or twice decide it; Clauset, Shalizi and Newman (2009) show such fits can be far off.
Maximum likelihood instead treats each running word as a draw of its rank from
``P(r) = r ** -a / sum(k ** -a for k in 1..n)`` over the ``n`` ranks fitted, and picks the
``a`` that makes the observed counts most probable. On counts exactly proportional to
``1 / rank`` both give 1:

>>> counts = [60, 30, 20, 15, 12, 10]
>>> round(zipf_least_squares(counts), 6), round(zipf_max_likelihood(counts), 6)
(1.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# Bisection bounds for the exponent: no word-frequency data comes near either end.
_LOWEST, _HIGHEST = 0.0, 50.0


def rank_frequencies(counts: Iterable[int], top: int | None = None) -> np.ndarray:
    """The counts sorted from most to least frequent, the ``top`` first when given.

    >>> rank_frequencies({"a": 1, "the": 5, "cat": 2}.values()).tolist()
    [5.0, 2.0, 1.0]
    """
    frequencies = np.array(sorted(counts, reverse=True), dtype=float)[:top]
    if len(frequencies) < 2:
        raise ValueError(
            f"fitting Zipf's law needs at least two ranks, got {len(frequencies)}; "
            "pass the counts of at least two distinct words"
        )
    if frequencies[-1] <= 0:
        raise ValueError("every count must be positive: leave out words that never occur")
    return frequencies


def zipf_least_squares(counts: Iterable[int], top: int | None = None) -> float:
    """The ``a`` of the least-squares line through (log rank, log frequency).

    >>> round(zipf_least_squares([36, 9, 4]), 6)  # 36 / rank ** 2
    2.0
    """
    frequencies = rank_frequencies(counts, top)
    ranks = np.arange(1, len(frequencies) + 1)
    slope, _intercept = np.polyfit(np.log(ranks), np.log(frequencies), 1)
    return float(-slope)


def zipf_max_likelihood(counts: Iterable[int], top: int | None = None) -> float:
    """The ``a`` that maximises the likelihood of the counts under ``P(r) ~ r ** -a``.

    The log-likelihood ``-a * sum(f_r log r) - N log sum(r ** -a)`` (``N`` running words) is
    concave in ``a``; its maximum is where the model's mean log rank equals the observed one,
    which bisection finds. Equal counts give 0: rank then says nothing about frequency.

    >>> round(zipf_max_likelihood([5, 5, 5]), 6)
    0.0
    """
    frequencies = rank_frequencies(counts, top)
    log_ranks = np.log(np.arange(1, len(frequencies) + 1))
    observed = float(frequencies @ log_ranks / frequencies.sum())

    def model_mean_log_rank(a: float) -> float:
        weights = np.exp(-a * log_ranks)
        return float(weights @ log_ranks / weights.sum())

    low, high = _LOWEST, _HIGHEST
    if model_mean_log_rank(low) <= observed:
        return low
    for _ in range(100):  # the mean log rank falls as a grows: bisect to float precision
        middle = (low + high) / 2
        if model_mean_log_rank(middle) > observed:
            low = middle
        else:
            high = middle
    return (low + high) / 2
