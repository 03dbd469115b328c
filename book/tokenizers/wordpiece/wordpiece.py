"""WordPiece: BERT's tokenizer (chapter 11) [Schuster & Nakajima 2012; Wu 2016; Devlin 2019].

Like BPE, WordPiece trains by merging pairs of symbols, but it scores a pair by how much more
often its two parts occur together than apart, ``count(ab) / (count(a) x count(b))``, instead
of by its count. A piece that continues a word carries the prefix ``##`` (``play ##ing``).
And it encodes differently: it keeps no merge list, only the vocabulary, and cuts each word
greedily, always taking the longest vocabulary entry that fits; a word it cannot cover
completely becomes ``[UNK]`` as a whole.

A :class:`WordPiece` runs Hugging Face ``tokenizers``' stages, with their names and defaults:
a normalizer (none by default, as a ``tokenizers.Tokenizer``; ``BertNormalizer()`` for BERT
uncased), a pre-tokenizer (``BertPreTokenizer()``), the model (greedy longest match,
:mod:`~book.tokenizers.wordpiece.model`) and a decoder (``WordPieceDecoder()``). Given the same
stages and vocabulary as a ``tokenizers`` pipeline, it gives that pipeline's pieces and ids.

>>> tok = WordPiece.from_vocab(["[UNK]", "play", "##ing", "##s", "un", "##play", "##able"])
>>> tok.tokenize("playing unplayable plays game")
['play', '##ing', 'un', '##play', '##able', 'play', '##s', '[UNK]']
>>> tok.decode(tok.encode("playing unplayable"))
'playing unplayable'
>>> WordPiece.from_vocab(tok.vocab, normalizer=BertNormalizer()).tokenize("PLAYS")
['play', '##s']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from os import PathLike

from book.tokenizers.base import AddedSpecialTokens, StrVocabulary
from book.tokenizers.bpe.patterns import special_token_regex
from book.tokenizers.formats.gguf import TOKEN_TYPES, GgufVocabulary
from book.tokenizers.formats.tokenizer_json import read_tokenizer_json
from book.tokenizers.wordpiece.decoder import WordPieceDecoder
from book.tokenizers.wordpiece.model import (
    BERT_UNK_TOKEN,
    CONTINUING_SUBWORD_PREFIX,
    MAX_INPUT_CHARS_PER_WORD,
    greedy_longest_match,
)
from book.tokenizers.wordpiece.normalizer import BertNormalizer
from book.tokenizers.wordpiece.pre_tokenizer import BertPreTokenizer
from book.tokenizers.wordpiece.train import train_vocab

BERT_SPECIAL_TOKENS = ("[PAD]", BERT_UNK_TOKEN, "[CLS]", "[SEP]", "[MASK]")
# The default stages (frozen, so one of each serves every tokenizer).
BERT_PRE_TOKENIZER = BertPreTokenizer()
WORDPIECE_DECODER = WordPieceDecoder()


def words_of(
    text: str,
    normalizer: BertNormalizer | None = None,
    pre_tokenizer: BertPreTokenizer | None = BERT_PRE_TOKENIZER,
) -> list[str]:
    """The words WordPiece cuts: ``text`` normalized, then pre-tokenized.

    Without a pre-tokenizer the whole (normalized) text is one word, as in ``tokenizers``.

    >>> words_of("Héllo, WORLD!"), words_of("Héllo, WORLD!", BertNormalizer())
    (['Héllo', ',', 'WORLD', '!'], ['hello', ',', 'world', '!'])
    """
    if normalizer is not None:
        text = normalizer.normalize_str(text)
    if pre_tokenizer is None:
        return [text] if text else []
    return [word for word, _offsets in pre_tokenizer.pre_tokenize_str(text)]


def _unphantom(token: str, control: bool) -> str:
    """A token as BERT's vocabulary spells it, from llama.cpp's ``▁`` form (see ``from_gguf``).

    >>> _unphantom("▁the", False), _unphantom("ing", False), _unphantom("[CLS]", True)
    ('the', '##ing', '[CLS]')
    """
    if control or (token.startswith("[") and token.endswith("]")):
        return token
    if token.startswith("\u2581"):
        return token[1:]
    return CONTINUING_SUBWORD_PREFIX + token


class WordPiece(AddedSpecialTokens, StrVocabulary):
    """A WordPiece tokenizer: a vocabulary in id order, and the stages that use it.

    ``unk_token``, ``continuing_subword_prefix`` and ``max_input_chars_per_word`` are the
    model's options (``tokenizers``' ``models.WordPiece``, same defaults). ``special_tokens``
    are matched whole in the raw text before anything else, and ``decode`` leaves them out by
    default, as ``tokenizers`` does with the added tokens it marks special. ``bos_id``,
    ``eos_id`` and their ``add_*_token`` switches: what ``add_special_tokens=True`` adds
    (:class:`~book.tokenizers.base.AddedSpecialTokens`).
    """

    def __init__(
        self,
        vocab: Sequence[str],
        *,
        unk_token: str = BERT_UNK_TOKEN,
        continuing_subword_prefix: str = CONTINUING_SUBWORD_PREFIX,
        max_input_chars_per_word: int = MAX_INPUT_CHARS_PER_WORD,
        normalizer: BertNormalizer | None = None,
        pre_tokenizer: BertPreTokenizer | None = BERT_PRE_TOKENIZER,
        decoder: WordPieceDecoder | None = WORDPIECE_DECODER,
        special_tokens: Iterable[str] = (),
        bos_id: int | None = None,
        eos_id: int | None = None,
        add_bos_token: bool = False,
        add_eos_token: bool = False,
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
        self.special_tokens = tuple(special_tokens)
        self.set_added_special_tokens(bos_id, eos_id, add_bos_token, add_eos_token, len(self.vocab))
        missing = [token for token in self.special_tokens if token not in self.token_to_id]
        if missing:
            raise ValueError(f"the special tokens {missing} are not in the vocabulary")
        self.unk_token = unk_token
        self.unk_id = self.token_to_id[unk_token]
        self.continuing_subword_prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.decoder = decoder
        self.merges: list[tuple[tuple[str, str], float]] = []  # filled by train: (pair, score)

    @classmethod
    def from_vocab(cls, vocab: Mapping[str, int] | Sequence[str], **options) -> WordPiece:
        """A tokenizer from a vocabulary: a list in id order, or a {token: id} mapping.

        A mapping (e.g. ``tokenizers``' ``get_vocab()``) must number its tokens 0, 1, 2, ...
        ``options`` are those of :class:`WordPiece` (the model's options and the stages).

        >>> WordPiece.from_vocab({"[UNK]": 1, "hi": 0}).encode("hi there")
        [0, 1]
        """
        if isinstance(vocab, Mapping):
            ids = sorted(vocab.values())
            if ids != list(range(len(ids))):
                raise ValueError("the vocabulary's ids must be 0, 1, ..., n - 1, each once")
            vocab = sorted(vocab, key=vocab.__getitem__)
        return cls(vocab, **options)

    @classmethod
    def from_tokenizer_json(cls, path: str | PathLike) -> WordPiece:
        """The WordPiece tokenizer saved in a Hugging Face ``tokenizer.json`` (as BERT's are).

        Its vocabulary, model options, normalizer, pre-tokenizer and decoder, and its special
        added tokens; the format and what this reader accepts are in
        :mod:`book.tokenizers.formats.tokenizer_json`.
        """
        saved = read_tokenizer_json(path)
        normalizer = None if saved.normalizer is None else BertNormalizer(**saved.normalizer)
        return cls.from_vocab(
            saved.vocab,
            **saved.model,
            normalizer=normalizer,
            pre_tokenizer=BERT_PRE_TOKENIZER if saved.pre_tokenizer else None,
            decoder=None if saved.decoder is None else WordPieceDecoder(**saved.decoder),
            special_tokens=saved.special_tokens,
        )

    @classmethod
    def from_gguf(cls, vocabulary: GgufVocabulary) -> WordPiece:
        """The WordPiece tokenizer of a GGUF vocabulary of model ``bert`` (llama.cpp's files).

        llama.cpp's converter rewrote the tokens (``phantom`` in ``conversion/bert.py``): a word
        start ``the`` is stored ``▁the`` and a continuation ``##ing`` as ``ing``; control tokens
        and ``[unused0]``-style tokens are kept. This undoes it, so the vocabulary is BERT's
        again. Then its unknown token, its control tokens as special tokens, and BERT's
        stages: ``BertNormalizer`` (lower-casing unless the file's
        ``tokenizer.ggml.normalizer.lowercase`` says otherwise), ``BertPreTokenizer`` and
        ``WordPieceDecoder``.
        """
        if vocabulary.model != "bert":
            raise ValueError(
                f"{vocabulary.path}: tokenizer model {vocabulary.model!r} is not WordPiece "
                "('bert'); read it with the builder for its model type"
            )
        if "unk" not in vocabulary.special_ids:
            raise ValueError(
                f"{vocabulary.path}: the file names no unknown token "
                "(tokenizer.ggml.unknown_token_id), which WordPiece needs"
            )
        metadata = vocabulary.metadata
        lowercase = metadata.get("tokenizer.ggml.normalizer.lowercase", True)
        strip_accents = metadata.get("tokenizer.ggml.normalizer.strip_accents")
        types = vocabulary.token_types or (1,) * len(vocabulary.tokens)
        vocab = [
            _unphantom(token, TOKEN_TYPES[token_type] == "control")
            for token, token_type in zip(vocabulary.tokens, types)
        ]
        return cls(
            vocab,
            unk_token=vocab[vocabulary.special_ids["unk"]],
            normalizer=BertNormalizer(lowercase=lowercase, strip_accents=strip_accents),
            special_tokens=[
                token
                for token, token_type in zip(vocab, types)
                if TOKEN_TYPES[token_type] in ("control", "user_defined")
            ],
            # llama.cpp's WordPiece: BOS ([CLS]) before, the separator ([SEP]) after
            bos_id=vocabulary.special_ids.get("bos", vocabulary.special_ids.get("cls")),
            eos_id=vocabulary.special_ids.get("sep"),
            add_bos_token=vocabulary.add_bos is not False,
            add_eos_token=metadata.get("tokenizer.ggml.add_sep_token", True),
        )

    @classmethod
    def train(
        cls,
        text: str,
        vocab_size: int,
        *,
        special_tokens: Sequence[str] = BERT_SPECIAL_TOKENS,
        score: str = "wordpiece",
        unk_token: str = BERT_UNK_TOKEN,
        continuing_subword_prefix: str = CONTINUING_SUBWORD_PREFIX,
        normalizer: BertNormalizer | None = None,
        pre_tokenizer: BertPreTokenizer | None = BERT_PRE_TOKENIZER,
        **options,
    ) -> WordPiece:
        """Learn a vocabulary of ``vocab_size`` entries from ``text``.

        The vocabulary is the special tokens, the alphabet (every first character and every
        ``##`` character of the words, sorted), then one entry per merge, until ``vocab_size``
        entries (everything counted) or no pair is left. ``score="frequency"`` ranks pairs by
        count instead, as BPE does. Ties: the pair that occurs first in the text wins. The
        words are those of ``text`` under the normalizer and pre-tokenizer; the unknown token
        is added to the special tokens if they lack it. The other ``options`` are those of
        :class:`WordPiece`.

        >>> text = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
        >>> tok = WordPiece.train(text, 15, special_tokens=["[UNK]"])
        >>> tok.merges[0], tok.vocab[8:]
        ((('##g', '##s'), 0.05), ['##gs', 'hu', 'hugs', 'hug', 'pu', 'bu', 'bun'])
        >>> tok.tokenize("hugs bun mug")
        ['hugs', 'bun', '[UNK]']
        """
        specials = list(dict.fromkeys([*special_tokens, unk_token]))
        word_freqs = Counter(words_of(text, normalizer, pre_tokenizer))
        vocab, merges = train_vocab(
            word_freqs,
            vocab_size,
            special_tokens=specials,
            prefix=continuing_subword_prefix,
            score=score,
        )
        stages = {"normalizer": normalizer, "pre_tokenizer": pre_tokenizer}
        trained = cls(
            vocab,
            unk_token=unk_token,
            continuing_subword_prefix=continuing_subword_prefix,
            **stages,
            **options,
        )
        trained.merges = merges
        return trained

    def words(self, text: str) -> list[str]:
        """The words WordPiece cuts: the text normalized, then pre-tokenized."""
        return words_of(text, self.normalizer, self.pre_tokenizer)

    def tokenize_word(self, word: str) -> list[str]:
        """The pieces of one (pre-tokenized) word, by greedy longest match."""
        return greedy_longest_match(
            word,
            self.token_to_id,
            unk_token=self.unk_token,
            continuing_subword_prefix=self.continuing_subword_prefix,
            max_input_chars_per_word=self.max_input_chars_per_word,
        )

    def tokenize(self, text: str) -> list[str]:
        """The pieces of ``text``: each word's greedy longest match, ``[UNK]`` where none.

        Special tokens in the text are pieces of their own, found before normalization.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        pieces = []
        for part, special in self._parts(text):
            if special:
                pieces.append(part)
            else:
                pieces += [piece for word in self.words(part) for piece in self.tokenize_word(word)]
        return pieces

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """The ids of the pieces of ``text``; ``add_special_tokens=True`` adds ``[CLS]`` and
        ``[SEP]`` where the model asks (``bos_id``, ``eos_id``)."""
        ids = [self.token_to_id[piece] for piece in self.tokenize(text)]
        return self.with_special_tokens(ids) if add_special_tokens else ids

    def decode(self, ids: Iterable[int], skip_special_tokens: bool = True) -> str:
        """The text of ``ids``, by the decoder (without one: the pieces joined by spaces).

        What the normalizer changed stays changed (case, accents), and an unknown word stays
        ``[UNK]``. Special tokens are left out unless ``skip_special_tokens=False``.

        >>> WordPiece.from_vocab(["[UNK]", "hi", "##s", "!"]).decode([1, 2, 3, 0])
        'his! [UNK]'
        """
        tokens = self.tokens_of(ids)
        if skip_special_tokens and self.special_tokens:
            tokens = [token for token in tokens if token not in self.special_tokens]
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    def _parts(self, text: str) -> list[tuple[str, bool]]:
        """``text`` cut at its special tokens: (part, whether it is a special token)."""
        if not self.special_tokens:
            return [(text, False)]
        parts = special_token_regex(frozenset(self.special_tokens)).split(text)
        return [(part, i % 2 == 1) for i, part in enumerate(parts) if part or i % 2]

    def _describe(self) -> dict[str, object]:
        return {"unk_token": self.unk_token, "normalizer": self.normalizer}
