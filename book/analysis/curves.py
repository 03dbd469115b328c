"""How many tokens a text needs after the first k merges of a character-level BPE, for many k.

(For byte-level and regex BPE, see :mod:`book.analysis.compression`.)

Encoding the text once per k would replay the merges again and again. Instead we replay them
once, on the distinct words of the text, and read off the running token count at each
checkpoint: the count only changes when a merge touches a word, and then by how many symbols
it removed times how often the word occurs.

>>> from book.tokenizers import CharBPE
>>> bpe = CharBPE.train("hug hug pug pun bun", vocab_size=10)  # 6 characters, </w>, 3 merges
>>> tokens_after_merges(bpe.merges, {"hug": 2, "bug": 1}, [0, 1, 2, 3])
[12, 9, 6, 4]
>>> [len(CharBPE(bpe.merges[:k], bpe.alphabet).encode("hug hug bug")) for k in range(4)]
[12, 9, 6, 4]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from book.tokenizers.bpe.char_bpe import END_OF_WORD, initial_splits
from book.tokenizers.bpe.core import Merge, joined, merge


def checked_checkpoints(checkpoints: Iterable[int], n_merges: int) -> list[int]:
    """The checkpoints as a list, each a number of merges from 0 to ``n_merges``; else ValueError.

    >>> checked_checkpoints(range(3), n_merges=2)
    [0, 1, 2]
    """
    checkpoints = list(checkpoints)
    for k in checkpoints:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= n_merges:
            raise ValueError(
                f"checkpoint {k!r} is not a number of merges between 0 and {n_merges}: "
                "ask only for prefixes of the merge list"
            )
    return checkpoints


def tokens_after_merges(
    merges: Sequence[Merge],
    word_freqs: Mapping[str, int],
    checkpoints: Iterable[int],
    *,
    end_of_word: str | None = END_OF_WORD,
) -> list[int]:
    """Tokens for ``word_freqs`` (each word times its count) after ``merges[:k]``, per checkpoint.

    Equal to ``len(CharBPE(merges[:k], alphabet).encode(text))`` when ``word_freqs`` are the
    text's words. A character outside the training alphabet stays one token, as ``<unk>``
    would: no merge contains it.

    >>> tokens_after_merges([(("a", "b"), 5)], {"ab": 3, "b": 1}, [1, 0])
    [8, 11]
    """
    checkpoints = checked_checkpoints(checkpoints, len(merges))
    splits = initial_splits(word_freqs, end_of_word=end_of_word)
    words = list(splits)
    symbols = [splits[word] for word in words]
    freqs = [word_freqs[word] for word in words]
    holders: dict[str, set[int]] = {}  # symbol -> numbers of the words that contain it
    for number, word_symbols in enumerate(symbols):
        for symbol in word_symbols:
            holders.setdefault(symbol, set()).add(number)
    total = sum(len(s) * f for s, f in zip(symbols, freqs))
    wanted = set(checkpoints)
    at: dict[int, int] = {}
    for k, (pair, _count) in enumerate(merges):
        if k in wanted:
            at[k] = total
        left, right = pair
        for number in holders.get(left, set()) & holders.get(right, set()):
            merged = merge(symbols[number], pair, joined(k, pair))
            total -= (len(symbols[number]) - len(merged)) * freqs[number]
            symbols[number] = merged
            holders.setdefault(joined(k, pair), set()).add(number)
    at[len(merges)] = total
    return [at[k] for k in checkpoints]
