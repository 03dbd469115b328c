"""Measuring tokenizers: compression (bytes per token), OOV rate, round trips, curves over merges.

And the texts they learn from: Zipf's law fitted two ways (:mod:`book.analysis.zipf`).

The measurements accept any :class:`book.tokenizers.Tokenizer`, a ``tiktoken.Encoding`` too.

>>> from book.tokenizers import CharTokenizer
>>> measure(CharTokenizer.train("héllo"), "hé")["bytes per token"]
1.5
"""

from book.analysis.metrics import (
    bytes_per_token,
    measure,
    oov_curve,
    oov_rate,
    oov_share,
    round_trips,
    tokens_per_word,
)
from book.analysis.zipf import zipf_least_squares, zipf_max_likelihood

__all__ = [
    "bytes_per_token",
    "measure",
    "oov_curve",
    "oov_rate",
    "oov_share",
    "round_trips",
    "tokens_per_word",
    "zipf_least_squares",
    "zipf_max_likelihood",
]
