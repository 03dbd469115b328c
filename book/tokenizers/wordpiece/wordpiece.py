"""WordPiece: BERT's tokenizer (chapter 10) [Schuster & Nakajima 2012; Wu 2016; Devlin 2019].

Like BPE, WordPiece trains by merging pairs of symbols, but it scores a pair by how much more
often its two parts occur together than apart, ``count(ab) / (count(a) x count(b))``, instead
of by its count. A piece that continues a word carries the prefix ``##`` (``play ##ing``).
And it encodes differently: it keeps no merge list, only the vocabulary, and cuts each word
greedily, always taking the longest vocabulary entry that fits; a word it cannot cover
completely becomes ``[UNK]`` as a whole.

>>> tok = WordPiece.from_vocab(["[UNK]", "play", "##ing", "##s", "un", "##play", "##able"])
>>> tok.tokenize("Playing unplayable PLAYS game")
['play', '##ing', 'un', '##play', '##able', 'play', '##s', '[UNK]']
>>> tok.decode(tok.encode("playing unplayable"))
'playing unplayable'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from book.tokenizers.errors import tokens_for_ids
from book.tokenizers.wordpiece.normalizer import BertPreTokenizer
from book.tokenizers.wordpiece.train import (
    PREFIX,
    UNK_TOKEN,
    merge_symbols,
    split_word,
    train_vocab,
    wordpiece_score,
)

BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

__all__ = [
    "BERT_SPECIALS",
    "WordPiece",
    "greedy_longest_match",
    "merge_symbols",
    "split_word",
    "train_vocab",
    "wordpiece_score",
]


def greedy_longest_match(
    word: str,
    vocab: Mapping[str, int] | set[str],
    *,
    unk_token: str = UNK_TOKEN,
    prefix: str = PREFIX,
    max_input_chars_per_word: int = 100,
) -> list[str]:
    """The pieces of one word: the longest entry that fits, again and again; else ``[unk_token]``.

    A piece after the first is looked up with ``prefix``. If at some point no entry fits, or
    the word is longer than ``max_input_chars_per_word`` characters, the whole word is unknown.

    >>> vocab = {"un", "##aff", "##able", "##a"}
    >>> greedy_longest_match("unaffable", vocab), greedy_longest_match("unaffable!", vocab)
    (['un', '##aff', '##able'], ['[UNK]'])
    """
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return [unk_token]
    return pieces


class WordPiece:
    """A WordPiece tokenizer: a vocabulary (id order), BERT pre-tokenization, greedy matching.

    ``pretokenizer`` turns text into words (default: BERT uncased, i.e. lower-casing and
    accent stripping; ``BertPreTokenizer(lowercase=False)`` for cased).
    """

    def __init__(
        self,
        vocab: Sequence[str],
        *,
        unk_token: str = UNK_TOKEN,
        continuing_subword_prefix: str = PREFIX,
        max_input_chars_per_word: int = 100,
        pretokenizer: BertPreTokenizer | None = None,
    ):
        self.vocab = list(vocab)
        if not self.vocab:
            raise ValueError(
                f"the vocabulary is empty: give at least {unk_token!r} and the "
                "pieces to cover words with"
            )
        for token in self.vocab:
            if not isinstance(token, str) or not token:
                raise ValueError(f"every vocabulary entry must be a non-empty str, got {token!r}")
        self.token_to_id = {token: i for i, token in enumerate(self.vocab)}
        if len(self.token_to_id) != len(self.vocab):
            twice = next(t for t, n in Counter(self.vocab).items() if n > 1)
            raise ValueError(f"the vocabulary holds {twice!r} twice; each entry needs one id")
        if unk_token not in self.token_to_id:
            raise ValueError(
                f"the vocabulary has no unknown token {unk_token!r}: WordPiece maps every word "
                f"it cannot cover to it. Add {unk_token!r} to the vocabulary, or pass "
                "unk_token= naming the one it has"
            )
        if not isinstance(max_input_chars_per_word, int) or max_input_chars_per_word < 1:
            raise ValueError(
                f"max_input_chars_per_word must be an int >= 1, got {max_input_chars_per_word!r}"
            )
        self.unk_token = unk_token
        self.unk_id = self.token_to_id[unk_token]
        self.prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.pretokenizer = pretokenizer if pretokenizer is not None else BertPreTokenizer()
        self.merges: list[tuple[str, str, float]] = []  # filled by train: (left, right, score)

    @classmethod
    def from_vocab(
        cls,
        vocab: Mapping[str, int] | Sequence[str],
        unk_token: str = UNK_TOKEN,
        continuing_subword_prefix: str = PREFIX,
        max_input_chars_per_word: int = 100,
        *,
        pretokenizer: BertPreTokenizer | None = None,
    ) -> WordPiece:
        """A tokenizer from a vocabulary: a list in id order, or a {token: id} mapping.

        A mapping (e.g. ``tokenizers``' ``get_vocab()``) must number its tokens 0, 1, 2, ...

        >>> WordPiece.from_vocab({"[UNK]": 1, "hi": 0}).encode("hi there")
        [0, 1]
        """
        if isinstance(vocab, Mapping):
            ids = sorted(vocab.values())
            if ids != list(range(len(ids))):
                raise ValueError("the vocabulary's ids must be 0, 1, ..., n - 1, each once")
            vocab = sorted(vocab, key=vocab.__getitem__)
        return cls(
            vocab,
            unk_token=unk_token,
            continuing_subword_prefix=continuing_subword_prefix,
            max_input_chars_per_word=max_input_chars_per_word,
            pretokenizer=pretokenizer,
        )

    @classmethod
    def train(
        cls,
        text: str,
        vocab_size: int,
        *,
        pretokenizer: BertPreTokenizer | None = None,
        special_tokens: Sequence[str] = BERT_SPECIALS,
        unk_token: str = UNK_TOKEN,
        continuing_subword_prefix: str = PREFIX,
        score: str = "likelihood",
        max_input_chars_per_word: int = 100,
    ) -> WordPiece:
        """Learn a vocabulary of ``vocab_size`` entries from ``text``.

        The vocabulary is the special tokens, the alphabet (every first character and every
        ``##`` character of the words, sorted), then one entry per merge, until ``vocab_size``
        entries (everything counted) or no pair is left. ``score="frequency"`` ranks pairs by
        count instead, as BPE does. Ties: the pair that occurs first in the text wins.

        >>> text = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
        >>> tok = WordPiece.train(text, 15, special_tokens=["[UNK]"])
        >>> tok.merges[0], tok.vocab[8:]
        (('##g', '##s', 0.05), ['##gs', 'hu', 'hugs', 'hug', 'pu', 'bu', 'bun'])
        >>> tok.tokenize("hugs bun mug")
        ['hugs', 'bun', '[UNK]']
        """
        pretokenizer = pretokenizer if pretokenizer is not None else BertPreTokenizer()
        specials = list(dict.fromkeys([*special_tokens, unk_token]))
        words = Counter(pretokenizer(text))
        vocab, merges = train_vocab(
            words, vocab_size, specials=specials, prefix=continuing_subword_prefix, score=score
        )
        tok = cls(
            vocab,
            unk_token=unk_token,
            continuing_subword_prefix=continuing_subword_prefix,
            max_input_chars_per_word=max_input_chars_per_word,
            pretokenizer=pretokenizer,
        )
        tok.merges = merges
        return tok

    @property
    def n_vocab(self) -> int:
        """The number of ids (special tokens included)."""
        return len(self.vocab)

    def token_bytes(self, token_id: int) -> bytes:
        """The UTF-8 bytes of a vocabulary entry as stored, prefix included (``b"##ing"``)."""
        return tokens_for_ids(self.vocab, [token_id], self.n_vocab)[0].encode("utf-8")

    def words(self, text: str) -> list[str]:
        """The words WordPiece cuts: the text pre-tokenized (``self.pretokenizer``)."""
        return self.pretokenizer(text)

    def tokenize_word(self, word: str) -> list[str]:
        """The pieces of one (pre-tokenized) word, by greedy longest match."""
        return greedy_longest_match(
            word,
            self.token_to_id,
            unk_token=self.unk_token,
            prefix=self.prefix,
            max_input_chars_per_word=self.max_input_chars_per_word,
        )

    def tokenize(self, text: str) -> list[str]:
        """The pieces of ``text``: each word's greedy longest match, ``[UNK]`` where none."""
        return [piece for word in self.words(text) for piece in self.tokenize_word(word)]

    def encode(self, text: str) -> list[int]:
        """The ids of the pieces of ``text``."""
        return [self.token_to_id[piece] for piece in self.tokenize(text)]

    def decode(self, ids: Iterable[int]) -> str:
        """Pieces joined back into words: ``##`` pieces glued on, words separated by spaces.

        What pre-tokenization changed stays changed (case, accents, the spacing around
        punctuation), and an unknown word stays ``[UNK]``. Matches ``tokenizers``'
        ``decoders.WordPiece(cleanup=False)``.

        >>> WordPiece.from_vocab(["[UNK]", "hi", "##s", "!"]).decode([1, 2, 3, 0])
        'his ! [UNK]'
        """
        out = []
        for i, piece in enumerate(tokens_for_ids(self.vocab, list(ids), self.n_vocab)):
            if i == 0:
                out.append(piece)
            elif piece.startswith(self.prefix):
                out.append(piece[len(self.prefix) :])
            else:
                out.append(" " + piece)
        return "".join(out)
