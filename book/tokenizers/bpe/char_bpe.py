"""Character-level BPE on word frequencies, with an end-of-word marker (chapter 04).

This is the Sennrich et al. (2016) recipe: split the training text on whitespace, count each
word, spell every word as characters followed by the marker ``</w>``, then repeatedly merge the
most frequent adjacent pair of symbols, where a pair inside a word that occurs 10 times counts
10. Merges never cross a word boundary, because each word is spelled on its own.

Tie-breaking (the book's rule): the most frequent pair wins; among equally frequent pairs, the
one that occurs first in the training data wins (:func:`~book.tokenizers.bpe.core.best_pair`).
The functions below are chapter 04's steps on word splits (``{word: symbols}``), each a call
of the core's step (:mod:`book.tokenizers.bpe.core`), which defines them for every BPE of the
book; ``CharBPE.train`` runs the core's fast trainer.

>>> freqs = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
>>> bpe = CharBPE.train(freqs, vocab_size=12)  # 7 characters, </w>, 4 merges
>>> bpe.merges
[(('u', 'g'), 20), (('u', 'n'), 16), (('un', '</w>'), 16), (('h', 'ug'), 15)]
>>> bpe.tokenize("bug hugs")
['b', 'ug', '</w>', 'hug', 's', '</w>']
>>> bpe.decode(bpe.encode("bug   hugs"))
'bug hugs'

Characters never seen in training raise ``UnknownTokenError`` by default; train with
``unk=True`` to get an ``<unk>`` token (the last id) for them instead. Nothing is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from book.tokenizers.base import UNK_TOKEN, StrVocabulary, check_train_vocab_size
from book.tokenizers.bpe.core import (
    Merge,
    Pair,
    TieBreak,
    check_num_merges,
    get_pair_counts,
    joined,
    merge,
    replay_merges,
    trace_chunks,
    train_naive,
)
from book.tokenizers.bpe.trace import Step
from book.tokenizers.bpe.train import train_merges

END_OF_WORD = "</w>"

Splits = dict[str, tuple[str, ...]]  # each word -> its current symbols


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
    whether a word's ending deserves its own token, so "est" at the end of "newest" can
    differ from "est" in "estimate". Pass ``end_of_word=None`` to spell words without a
    marker, as one published walkthrough does.

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
        get_pair_counts(splits[word], counts, freq)
    return counts


def merge_pair(splits: Mapping[str, tuple[str, ...]], pair: Pair) -> Splits:
    """New splits with ``pair`` merged, left to right, in every word (the input is left as is).

    >>> merge_pair({"hug": ("h", "u", "g", "</w>"), "bun": ("b", "u", "n", "</w>")}, ("u", "g"))
    {'hug': ('h', 'ug', '</w>'), 'bun': ('b', 'u', 'n', '</w>')}
    >>> merge_pair({"aaa": ("a", "a", "a")}, ("a", "a"))
    {'aaa': ('aa', 'a')}
    """
    new = joined(0, pair)
    return {word: tuple(merge(symbols, pair, new)) for word, symbols in splits.items()}


def learn_merges(
    splits: Mapping[str, tuple[str, ...]], word_freqs: Mapping[str, int], num_merges: int
) -> tuple[list[Merge], Splits]:
    """Merge the best pair ``num_merges`` times: the merges (with counts) and the final splits.

    Stops early, with fewer merges, once no pair is left (every word is a single token). This
    is the obvious loop (count every pair, merge the best, repeat), the core's ``train_naive``.

    >>> freqs = {"hug": 10, "pug": 5}
    >>> learn_merges(initial_splits(freqs), freqs, 2)
    ([(('u', 'g'), 15), (('ug', '</w>'), 15)], {'hug': ('h', 'ug</w>'), 'pug': ('p', 'ug</w>')})
    """
    check_num_merges(num_merges)
    words = [(splits[word], freq) for word, freq in word_freqs.items()]
    merges = train_naive(_as_sequences(words), num_merges, joined)
    return merges, {word: apply_merges(tuple(symbols), merges) for word, symbols in splits.items()}


def _as_sequences(words: list[tuple[tuple[str, ...], int]]) -> dict[tuple[str, ...], int]:
    """``{symbols: frequency}`` for the trainers (two words spelled alike add their counts)."""
    sequences: dict[tuple[str, ...], int] = {}
    for symbols, freq in words:
        sequences[tuple(symbols)] = sequences.get(tuple(symbols), 0) + freq
    return sequences


def apply_merges(symbols: tuple[str, ...], merges: Iterable[Merge]) -> tuple[str, ...]:
    """Replay ``merges`` in training order on one word's symbols.

    >>> apply_merges(("b", "u", "g", "</w>"), [(("u", "g"), 20), (("u", "n"), 16)])
    ('b', 'ug', '</w>')
    """
    merges = list(merges)
    return tuple(replay_merges(symbols, merges, [joined(0, pair) for pair, _ in merges]))


class CharBPE(StrVocabulary):
    """A trained character-level BPE: merges, vocabulary, and text <-> ids.

    ``vocab`` lists the token strings by id: the alphabet sorted by code point, then ``</w>``,
    then each merge's new token in merge order, then ``<unk>`` if ``unk`` is on (last, so
    turning it on renumbers nothing; its id is ``unk_id``). A hand-made merge list can spell
    one string twice (``('ab', 'c')`` and ``('a', 'bc')``); the string is listed once, at its
    first id, so ``n_vocab`` can be less than ``len(alphabet) + 1 + len(merges)``.

    >>> bpe = CharBPE([(("a", "b"), 3)], ["a", "b"])
    >>> bpe.vocab, bpe.encode("ab ba"), bpe.token_bytes(3)
    (['a', 'b', '</w>', 'ab'], [3, 2, 1, 0, 2], b'ab')
    """

    def __init__(self, merges: Iterable[Merge], alphabet: Iterable[str], *, unk: bool = False):
        self.merges: list[Merge] = [(tuple(pair), count) for pair, count in merges]
        self.alphabet: list[str] = list(alphabet)
        self.unk = unk
        self._new_symbols = [joined(rank, pair) for rank, (pair, _) in enumerate(self.merges)]
        tokens = [*self.alphabet, END_OF_WORD, *self._new_symbols]
        if unk:
            tokens.append(UNK_TOKEN)
        self.vocab: list[str] = list(dict.fromkeys(tokens))  # drop repeats, keep first id
        self.unk_id: int | None = self.token_to_id[UNK_TOKEN] if unk else None
        self._known = set(self.alphabet)

    @classmethod
    def train(
        cls,
        text: str | Mapping[str, int],
        vocab_size: int,
        *,
        unk: bool = False,
        tie_break: TieBreak = "first",
    ) -> CharBPE:
        """Learn merges from a text (or a word -> frequency mapping) until ``vocab_size`` tokens.

        ``vocab_size`` counts everything: the alphabet (every character of the training data),
        ``</w>``, one token per merge, and ``<unk>`` if ``unk=True``. A mapping's order is the
        "training data order" that breaks ties (``tie_break="lexicographic"``: the greater pair
        of UTF-8 bytes wins instead). Training stops early, with a smaller vocabulary, once
        every word is a single token.

        >>> bpe = CharBPE.train("low low lower", vocab_size=9)  # 5 characters, </w>, 3 merges
        >>> bpe.merges, bpe.n_vocab
        ([(('l', 'o'), 3), (('lo', 'w'), 3), (('low', '</w>'), 2)], 9)
        """
        freqs = word_freqs(text) if isinstance(text, str) else dict(text)
        _check_word_freqs(freqs, unk)
        alphabet = sorted({ch for word in freqs for ch in word})
        minimum = len(alphabet) + 1 + unk
        what = f"the {len(alphabet)} characters of the training data, {END_OF_WORD}"
        what += f", {UNK_TOKEN}" if unk else ""
        check_train_vocab_size(vocab_size, minimum, what + ", then one token per merge")
        splits = initial_splits(freqs)
        sequences = _as_sequences([(splits[word], freq) for word, freq in freqs.items()])
        merges = train_merges(sequences, vocab_size - minimum, joined, tie_break=tie_break)
        return cls(merges, alphabet, unk=unk)

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
        return [self.token_to_id[token] for token in self.tokenize(text)]

    def decode(self, ids: Iterable[int]) -> str:
        """Concatenate the tokens, turning each ``</w>`` into one space between words.

        What is lost: the exact whitespace (tabs, newlines, runs of spaces all come back as
        one space, leading and trailing whitespace disappears) and, with ``unk=True``, which
        character each ``<unk>`` stood for.

        >>> bpe = CharBPE([(("u", "g"), 20)], ["b", "g", "u"])
        >>> bpe.decode(bpe.encode(" bug\\n\\tbug "))
        'bug bug'
        """
        tokens = self.tokens_of(ids)
        # A word's last token always ends with the marker, so the text ends with one space.
        return "".join(tokens).replace(END_OF_WORD, " ").removesuffix(" ")

    def trace(self, text: str) -> list[Step]:
        """The segmentation of ``text`` before any merge and after each merge that changed it.

        >>> bpe = CharBPE.train({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 12)
        >>> [(step.new, step.count, step.pieces) for step in bpe.trace("bug")]
        [(None, None, ('b', 'u', 'g', '</w>')), ('ug', 20, ('b', 'ug', '</w>'))]
        """
        spelled = self._initial_symbols(text)
        words = [spelled[word] for word in text.split()]
        return trace_chunks(words, self.merges, str, self._new_symbols)

    def _segment_words(self, text: str) -> dict[str, tuple[str, ...]]:
        """Each distinct word of ``text`` -> its tokens; a repeated word is segmented once."""
        return {
            word: tuple(replay_merges(symbols, self.merges, self._new_symbols))
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
            return UNK_TOKEN
        position = text.index(ch)
        raise self.unknown_token_error(ch, f"at position {position}", position)

    def _describe(self) -> dict[str, object]:
        return {"merges": len(self.merges), "unk": self.unk}


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
        if unk and UNK_TOKEN in word:
            raise ValueError(
                f"the word {word!r} contains {UNK_TOKEN!r}, which unk=True reserves for unseen "
                "characters; remove it from the training data or train with unk=False"
            )


def _marker_in_text_message(where: str) -> str:
    """Why the end-of-word marker may not appear in text, and what to do."""
    return (
        f"{where} contains {END_OF_WORD!r}, the end-of-word marker; decode could not tell it "
        "from a word boundary. Remove or replace it before training or encoding."
    )
