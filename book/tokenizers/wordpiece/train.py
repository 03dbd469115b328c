"""Training a WordPiece vocabulary: merge the pair with the best score, again and again.

The score of a pair is count(ab) / (count(a) x count(b)) (``score="wordpiece"``, WordPiece's
rule as the Hugging Face course reconstructs it and names it, "score"; it is not the gain in
likelihood, which also grows with the pair's count: chapter 11) or count(ab)
(``score="frequency"``, BPE's rule, which ``tokenizers``' WordPiece trainer uses). The
vocabulary is the special tokens, the alphabet (first characters and ``##`` characters,
sorted), then one entry per merge.

Training is BPE's fast trainer with the score in place of the count
(:func:`book.tokenizers.bpe.train.scored_merges`): after a merge only the words holding the
pair are recounted, and only the scores that can change are computed again. A tie goes to the
pair that occurs first in the training words, the book's rule.

>>> vocab, merges = train_vocab({"hug": 10, "pug": 5, "hugs": 5}, 9)
>>> vocab  # the first merge wins a four-way tie at 0.05 by coming first
['[UNK]', '##g', '##s', '##u', 'h', 'p', 'hu', 'pu', 'hug']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from book.tokenizers.base import check_train_vocab_size
from book.tokenizers.bpe.core import Pair
from book.tokenizers.bpe.train import scored_merges
from book.tokenizers.wordpiece.model import BERT_UNK_TOKEN, CONTINUING_SUBWORD_PREFIX

Merge = tuple[Pair, float]  # a merged pair and the score that chose it


def wordpiece_score(pair_count: int, left_count: int, right_count: int) -> float:
    """WordPiece's score of a pair: how much more often its parts occur together than apart.

    >>> wordpiece_score(20, 20, 40), wordpiece_score(20, 400, 400)  # rare parts win
    (0.025, 0.000125)
    """
    return pair_count / (left_count * right_count)


def frequency_score(pair_count: int, left_count: int, right_count: int) -> float:
    """BPE's score: the pair's count (as a float, like WordPiece's score).

    >>> frequency_score(20, 400, 400)
    20.0
    """
    return float(pair_count)


SCORES = {"wordpiece": wordpiece_score, "frequency": frequency_score}


def split_word(word: str, prefix: str = CONTINUING_SUBWORD_PREFIX) -> list[str]:
    """A word as WordPiece's training starts it: its characters, all but the first prefixed.

    >>> split_word("hugs")
    ['h', '##u', '##g', '##s']
    """
    return [word[0]] + [prefix + ch for ch in word[1:]]


def merged_symbol(pair: Pair, prefix: str = CONTINUING_SUBWORD_PREFIX) -> str:
    """The symbol a merge makes: the right part loses its prefix, the left keeps its own.

    >>> merged_symbol(("h", "##u")), merged_symbol(("##g", "##s"))
    ('hu', '##gs')
    """
    left, right = pair
    return left + right.removeprefix(prefix)


def train_vocab(
    word_freqs: Mapping[str, int],
    vocab_size: int,
    *,
    special_tokens: Sequence[str] = (BERT_UNK_TOKEN,),
    prefix: str = CONTINUING_SUBWORD_PREFIX,
    score: str = "wordpiece",
) -> tuple[list[str], list[Merge]]:
    """The vocabulary learned from word counts (in id order), and the merges with their scores.

    Stops at ``vocab_size`` entries (everything counted) or when no pair is left. A merge that
    makes an entry already in the vocabulary adds nothing but still counts as a merge.
    """
    if score not in SCORES:
        raise ValueError(f"score must be 'wordpiece' or 'frequency', got {score!r}")
    splits = {word: tuple(split_word(word, prefix)) for word in word_freqs if word}
    alphabet = sorted({symbol for symbols in splits.values() for symbol in symbols})
    vocab = list(dict.fromkeys([*special_tokens, *alphabet]))
    check_train_vocab_size(
        vocab_size,
        len(vocab),
        f"the {len(special_tokens)} special tokens and the {len(alphabet)} "
        "characters, with and without the prefix",
    )
    sequences = {splits[word]: word_freqs[word] for word in splits}
    known, merges = set(vocab), []
    found = scored_merges(sequences, SCORES[score], lambda _rank, pair: merged_symbol(pair, prefix))
    while len(vocab) < vocab_size and (merge := next(found, None)) is not None:
        merges.append(merge)
        new = merged_symbol(merge[0], prefix)
        if new not in known:
            vocab.append(new)
            known.add(new)
    return vocab, merges
