"""Character-level BPE on word frequencies, with an end-of-word marker (chapter 04).

This is the Sennrich et al. (2016) recipe: split the training text on whitespace, count each
word, spell every word as characters followed by the marker ``</w>``, then repeatedly merge the
most frequent adjacent pair of symbols, where a pair inside a word that occurs 10 times counts
10. Merges never cross a word boundary, because each word is spelled on its own.

Tie-breaking (the book's rule): the most frequent pair wins; among equally frequent pairs, the
one that occurs first in the training data wins. ``pair_counts`` builds its dict in order of
first occurrence, and ``max`` returns the first of several equal maxima, so this is simply
``max(counts, key=counts.get)``.

>>> bpe = train({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, num_merges=4)
>>> bpe.merges
[(('u', 'g'), 20), (('u', 'n'), 16), (('un', '</w>'), 16), (('h', 'ug'), 15)]
>>> bpe.tokenize("bug hugs")
['b', 'ug', '</w>', 'hug', 's', '</w>']
>>> bpe.decode(bpe.encode("bug   hugs"))
'bug hugs'

Characters never seen in training raise :class:`UnknownTokenError` by default; train with
``unk=True`` to get an ``<unk>`` token (the last id) for them instead. Nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import pairwise

from book.tokenizers.characters import UNK, describe_char
from book.tokenizers.errors import UnknownTokenError, tokens_for_ids
from book.tokenizers.trace import Step, initial_step

END_OF_WORD = "</w>"

Pair = tuple[str, str]
Splits = dict[str, tuple[str, ...]]
Merge = tuple[Pair, int]  # a merged pair and its count when it was chosen


def word_freqs(text: str) -> dict[str, int]:
    """Count whitespace-separated words, in order of first occurrence.

    >>> word_freqs("the cat saw the dog")
    {'the': 2, 'cat': 1, 'saw': 1, 'dog': 1}
    """
    freqs: dict[str, int] = {}
    for word in text.split():
        freqs[word] = freqs.get(word, 0) + 1
    return freqs


def initial_splits(word_freqs: Mapping[str, int], end_of_word: str | None = END_OF_WORD) -> Splits:
    """Spell each word as its characters, then the end-of-word marker as one more symbol.

    The marker is a separate symbol, not glued to the last character: the alphabet stays the
    plain characters, and training itself decides (by merging, e.g. ``('t', '</w>')``)
    whether a word-final piece deserves its own token, so "est" at the end of "newest" can
    differ from "est" in "estimate". Pass ``end_of_word=None`` to spell words without a
    marker, as seed 000 does.

    >>> initial_splits({"hug": 10, "a": 1})
    {'hug': ('h', 'u', 'g', '</w>'), 'a': ('a', '</w>')}
    >>> initial_splits({"hug": 10}, end_of_word=None)
    {'hug': ('h', 'u', 'g')}
    """
    marker = () if end_of_word is None else (end_of_word,)
    return {word: (*word, *marker) for word in word_freqs}


def pair_counts(
    splits: Mapping[str, tuple[str, ...]], word_freqs: Mapping[str, int]
) -> dict[Pair, int]:
    """Count adjacent symbol pairs, each weighted by its word's frequency.

    Keys appear in order of first occurrence (words in ``word_freqs`` order, pairs left to
    right), which is what makes ``max`` break ties by "first in the training data".
    Overlapping pairs all count, as in Sennrich's reference code: ``aaa`` holds ``('a', 'a')``
    twice.

    >>> pair_counts({"hug": ("h", "u", "g"), "pug": ("p", "u", "g")}, {"hug": 10, "pug": 5})
    {('h', 'u'): 10, ('u', 'g'): 15, ('p', 'u'): 5}
    """
    counts: dict[Pair, int] = {}
    for word, freq in word_freqs.items():
        symbols = splits[word]
        for pair in pairwise(symbols):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def merge_symbols(symbols: tuple[str, ...], pair: Pair) -> tuple[str, ...]:
    """Replace each occurrence of ``pair`` in ``symbols``, left to right, by one joined symbol.

    >>> merge_symbols(("h", "u", "g", "</w>"), ("u", "g"))
    ('h', 'ug', '</w>')
    >>> merge_symbols(("a", "a", "a"), ("a", "a"))
    ('aa', 'a')
    """
    first, second = pair
    merged: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            merged.append(first + second)
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return tuple(merged)


def merge_pair(splits: Mapping[str, tuple[str, ...]], pair: Pair) -> Splits:
    """New splits with ``pair`` merged in every word (the input is left unchanged).

    >>> merge_pair({"hug": ("h", "u", "g", "</w>"), "bun": ("b", "u", "n", "</w>")}, ("u", "g"))
    {'hug': ('h', 'ug', '</w>'), 'bun': ('b', 'u', 'n', '</w>')}
    """
    return {word: merge_symbols(symbols, pair) for word, symbols in splits.items()}


def learn_merges(
    splits: Mapping[str, tuple[str, ...]], word_freqs: Mapping[str, int], num_merges: int
) -> tuple[list[Merge], Splits]:
    """Merge the best pair ``num_merges`` times: the merges (with counts) and the final splits.

    Stops early, with fewer merges, once no pair is left (every word is a single token).

    >>> freqs = {"hug": 10, "pug": 5}
    >>> learn_merges(initial_splits(freqs), freqs, 2)
    ([(('u', 'g'), 15), (('ug', '</w>'), 15)], {'hug': ('h', 'ug</w>'), 'pug': ('p', 'ug</w>')})
    """
    _check_num_merges(num_merges)
    splits = dict(splits)
    merges: list[Merge] = []
    for _ in range(num_merges):
        counts = pair_counts(splits, word_freqs)
        if not counts:
            break
        best = max(counts, key=counts.get)  # first of equal maxima: the book's tie-break
        merges.append((best, counts[best]))
        splits = merge_pair(splits, best)
    return merges, splits


def apply_merges(symbols: tuple[str, ...], merges: Iterable[Merge]) -> tuple[str, ...]:
    """Replay ``merges`` in training order on one word's symbols.

    >>> apply_merges(("b", "u", "g", "</w>"), [(("u", "g"), 20), (("u", "n"), 16)])
    ('b', 'ug', '</w>')
    """
    for pair, _count in merges:
        if pair[0] in symbols:  # cheap pre-check: most merges cannot apply to a given word
            symbols = merge_symbols(symbols, pair)
    return symbols


def train(
    word_freqs_or_text: str | Mapping[str, int], num_merges: int, *, unk: bool = False
) -> CharBPE:
    """Learn up to ``num_merges`` merges from a text or a word -> frequency mapping.

    A mapping's order matters: it is the "training data order" that breaks ties. Training
    stops early, with ``len(merges) < num_merges``, once every word is a single token.
    ``unk=True`` adds an ``<unk>`` token for characters not in the training data.

    >>> train("low low lower", num_merges=3).merges
    [(('l', 'o'), 3), (('lo', 'w'), 3), (('low', '</w>'), 2)]
    """
    if isinstance(word_freqs_or_text, str):
        freqs = word_freqs(word_freqs_or_text)
    else:
        freqs = dict(word_freqs_or_text)
    _check_word_freqs(freqs, unk)
    merges, _ = learn_merges(initial_splits(freqs), freqs, num_merges)
    alphabet = sorted({ch for word in freqs for ch in word})
    return CharBPE(merges, alphabet, unk=unk)


class CharBPE:
    """A trained character-level BPE: merges, vocabulary, and text <-> ids.

    ``vocab`` lists the token strings by id: the alphabet sorted by code point, then ``</w>``,
    then each merge's new token in merge order, then ``<unk>`` if ``unk`` is on (last, so
    turning it on renumbers nothing). A hand-made merge list can spell one string twice
    (``('ab', 'c')`` and ``('a', 'bc')``); the string is listed once, at its first id, so
    ``vocab_size`` can be less than ``len(alphabet) + 1 + len(merges)``.

    >>> bpe = CharBPE([(("a", "b"), 3)], ["a", "b"])
    >>> bpe.vocab, bpe.encode("ab ba")
    (['a', 'b', '</w>', 'ab'], [3, 2, 1, 0, 2])
    """

    def __init__(self, merges: Iterable[Merge], alphabet: Iterable[str], *, unk: bool = False):
        self.merges: list[Merge] = [(tuple(pair), count) for pair, count in merges]
        self.alphabet: list[str] = list(alphabet)
        self.unk = unk
        tokens = [*self.alphabet, END_OF_WORD, *(a + b for (a, b), _ in self.merges)]
        if unk:
            tokens.append(UNK)
        self.vocab: list[str] = list(dict.fromkeys(tokens))  # drop repeats, keep first id
        self.stoi: dict[str, int] = {token: i for i, token in enumerate(self.vocab)}
        self._known = set(self.alphabet)

    @property
    def vocab_size(self) -> int:
        """Number of distinct tokens (ids run from 0 to ``vocab_size - 1``)."""
        return len(self.vocab)

    def tokenize(self, text: str) -> list[str]:
        """Split ``text`` on whitespace and replay the merges on each word, in training order.

        >>> CharBPE([(("u", "g"), 20)], ["b", "g", "u"]).tokenize("bug")
        ['b', 'ug', '</w>']
        """
        segmented = self._segment_words(text)
        return [token for word in text.split() for token in segmented[word]]

    def encode(self, text: str) -> list[int]:
        """The ids of ``tokenize(text)``.

        >>> CharBPE([(("u", "g"), 20)], ["b", "g", "u"]).encode("bug")
        [0, 4, 3]
        """
        return [self.stoi[token] for token in self.tokenize(text)]

    def decode(self, ids: Iterable[int]) -> str:
        """Concatenate the tokens, turning each ``</w>`` into one space between words.

        What is lost: the exact whitespace (tabs, newlines, runs of spaces all come back as
        one space, leading and trailing whitespace disappears) and, with ``unk=True``, which
        character each ``<unk>`` stood for.

        >>> bpe = CharBPE([(("u", "g"), 20)], ["b", "g", "u"])
        >>> bpe.decode(bpe.encode(" bug\\n\\tbug "))
        'bug bug'
        """
        tokens = tokens_for_ids(self.vocab, ids, self.vocab_size)
        # A word's last token always ends with the marker, so the text ends with one space.
        return "".join(tokens).replace(END_OF_WORD, " ").removesuffix(" ")

    def trace(self, text: str) -> list[Step]:
        """The segmentation of ``text`` before any merge and after each merge that changed it.

        One pass over the merges: each merge is applied to the distinct words of the text it
        touches, and a ``Step`` records the whole text's pieces only when something changed.

        >>> bpe = train({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, num_merges=4)
        >>> [(step.new, step.count, step.pieces) for step in bpe.trace("bug")]
        [(None, None, ('b', 'u', 'g', '</w>')), ('ug', 20, ('b', 'ug', '</w>'))]
        """
        words = text.split()
        segmented = self._initial_symbols(text)
        steps = [initial_step(_flatten(words, segmented))]
        for rank, (pair, count) in enumerate(self.merges):
            changed = False
            for word, symbols in segmented.items():
                merged = merge_symbols(symbols, pair) if pair[0] in symbols else symbols
                if merged != symbols:
                    segmented[word] = merged
                    changed = True
            if changed:
                steps.append(Step(rank, pair, pair[0] + pair[1], count, _flatten(words, segmented)))
        return steps

    def _segment_words(self, text: str) -> dict[str, tuple[str, ...]]:
        """Each distinct word of ``text`` -> its tokens; a repeated word is segmented once."""
        return {
            word: apply_merges(symbols, self.merges)
            for word, symbols in self._initial_symbols(text).items()
        }

    def _initial_symbols(self, text: str) -> dict[str, tuple[str, ...]]:
        """Each distinct word of ``text`` -> its characters, then ``</w>`` (see ``unk``)."""
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        if END_OF_WORD in text:
            raise ValueError(_marker_in_text_message("the text"))
        symbols = {}
        for word in dict.fromkeys(text.split()):
            chars = tuple(ch if ch in self._known else self._unknown(ch, text) for ch in word)
            symbols[word] = (*chars, END_OF_WORD)
        return symbols

    def _unknown(self, ch: str, text: str) -> str:
        """``<unk>`` for a character outside the alphabet if ``unk`` is on; otherwise raise."""
        if self.unk:
            return UNK
        position = text.index(ch)
        raise UnknownTokenError(
            f"character {describe_char(ch)} at position {position} was never seen in training, "
            f"so no token spells it. Train on text that contains it, or pass unk=True to "
            f"train() to encode unseen characters as {UNK}.",
            token=ch,
            position=position,
        )

    def __repr__(self) -> str:
        return f"CharBPE(vocab_size={self.vocab_size}, merges={len(self.merges)}, unk={self.unk})"


def _flatten(words: list[str], segmented: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The pieces of a whole text from the segmentation of its distinct words."""
    return tuple(token for word in words for token in segmented[word])


def _check_num_merges(num_merges: int) -> None:
    """Reject a merge count that is not a non-negative int, saying what to pass instead."""
    if isinstance(num_merges, bool) or not isinstance(num_merges, int) or num_merges < 0:
        raise ValueError(f"num_merges must be an int >= 0, got {num_merges!r}")


def _check_word_freqs(freqs: Mapping[str, int], unk: bool) -> None:
    """Reject training data that would make tokens ambiguous or counts meaningless."""
    if not freqs:
        raise ValueError("the training data has no words: pass a non-empty text or mapping")
    for word, freq in freqs.items():
        if not isinstance(word, str) or not word or word != "".join(word.split()):
            raise ValueError(
                f"word {word!r} must be a non-empty str without whitespace: "
                "words are what text.split() returns"
            )
        if isinstance(freq, bool) or not isinstance(freq, int) or freq < 1:
            raise ValueError(f"the frequency of {word!r} must be an int >= 1, got {freq!r}")
        # A merge could spell the marker (or <unk>) from plain characters, and the two
        # tokens would then be indistinguishable; these strings are reserved.
        if END_OF_WORD in word:
            raise ValueError(_marker_in_text_message(f"the word {word!r}"))
        if unk and UNK in word:
            raise ValueError(
                f"the word {word!r} contains {UNK!r}, which unk=True reserves for unseen "
                "characters; remove it from the training data or train with unk=False"
            )


def _marker_in_text_message(where: str) -> str:
    """Why the end-of-word marker may not appear in text, and what to do."""
    return (
        f"{where} contains {END_OF_WORD!r}, the end-of-word marker; decode could not tell it "
        "from a word boundary. Remove or replace it before training or encoding."
    )
