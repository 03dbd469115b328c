"""Measuring tokenizers: compression (bytes per token), OOV rate, round trips, curves over merges;
a small n-gram language model to see what a model makes of the tokens, scored in bits per byte
so that tokenizers compare (:mod:`book.analysis.bits_per_byte`); and the texts they learn from:
Zipf's law fitted two ways (:mod:`book.analysis.zipf`).

The measurements accept any :class:`book.tokenizers.Tokenizer`, a ``tiktoken.Encoding`` too.

>>> from book.tokenizers import CharTokenizer
>>> measure(CharTokenizer.train("héllo"), "hé")["bytes per token"]
1.5
"""

from book.analysis.bits_per_byte import bits_per_byte, model_bits_per_byte, sweep
from book.analysis.metrics import (
    bytes_per_token,
    measure,
    oov_curve,
    oov_rate,
    oov_share,
    round_trips,
    tokens_per_word,
)
from book.analysis.ngram import NGramModel
from book.analysis.zipf import zipf_least_squares, zipf_max_likelihood

__all__ = [
    "NGramModel",
    "bits_per_byte",
    "bytes_per_token",
    "measure",
    "model_bits_per_byte",
    "oov_curve",
    "oov_rate",
    "oov_share",
    "round_trips",
    "sweep",
    "tokens_per_word",
    "zipf_least_squares",
    "zipf_max_likelihood",
]
