"""What every tokenizer of the book is: the one interface, the unknown token, the shared members.

Five tokenizers are built in chapters 02-06 (characters, words, character-level BPE,
byte-level BPE, regex BPE) and two more in chapter 11 (WordPiece, Unigram). They differ in
what a token is, but every one of them turns text into ids and back the same way, and
``book.analysis`` and ``book.show`` accept any of them. A ``tiktoken.Encoding`` has the same
``encode``, ``decode`` and ``n_vocab``; it calls ``token_bytes`` ``decode_single_token_bytes``.

>>> from book.tokenizers import CharTokenizer, WordTokenizer
>>> all(isinstance(t.train("hi"), Tokenizer) for t in (CharTokenizer, WordTokenizer))
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

from book.tokenizers.errors import UnknownTokenError, tokens_for_ids

# The unknown token: what a character or word outside the vocabulary becomes when a tokenizer
# allows it (``unk=True``), and how it decodes. SentencePiece spells it the same way; BERT's
# vocabularies spell it "[UNK]" (``wordpiece.model.BERT_UNK_TOKEN``, WordPiece's default there
# as in Hugging Face tokenizers).
UNK_TOKEN = "<unk>"
N_BYTES = 256  # the byte values: byte-level BPE starts from them, byte fallback spells with them


def as_rng(seed: int | random.Random) -> random.Random:
    """``seed`` itself if it is a ``random.Random``, else a new one seeded with it: what the
    random encodings (Unigram's sampling, BPE-dropout) draw from.

    Passing one generator to many calls draws afresh each time; an int repeats the draw.

    >>> as_rng(1).random() == as_rng(1).random(), as_rng(rng := random.Random(1)) is rng
    (True, True)
    """
    return seed if isinstance(seed, random.Random) else random.Random(seed)


@runtime_checkable
class Tokenizer(Protocol):
    """Text in, ids out, and back: the methods every tokenizer of the book has.

    - ``encode(text)``: the ids of ``text``;
    - ``decode(ids)``: the text of ``ids`` (lossy where a tokenizer says so);
    - ``n_vocab``: one more than the largest id, so ids run from 0 to ``n_vocab - 1``;
    - ``token_bytes(token_id)``: the UTF-8 bytes of one vocabulary entry as stored
      (``b"er</w>"``, ``b" the"``, ``b"\\xe4"`` for half a character, ``b"<unk>"``).

    Each also trains the same way, ``Cls.train(text, vocab_size, **options)``, where
    ``vocab_size`` counts everything in the vocabulary (base symbols, merges, unknown and
    special tokens), as tiktoken, Hugging Face tokenizers and CS336 count it.
    """

    @property
    def n_vocab(self) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, ids: Iterable[int]) -> str: ...

    def token_bytes(self, token_id: int) -> bytes: ...


def token_piece(tokenizer: Any, token_id: int) -> bytes:
    """The bytes one id stands for: ``token_bytes`` of a book tokenizer, or tiktoken's
    ``decode_single_token_bytes`` (the same thing under tiktoken's name).

    >>> from book.tokenizers import CharTokenizer
    >>> token_piece(CharTokenizer.train("hi"), 1)
    b'i'
    """
    for method in ("token_bytes", "decode_single_token_bytes"):
        if hasattr(tokenizer, method):
            return getattr(tokenizer, method)(token_id)
    raise TypeError(
        f"cannot show the tokens of a {type(tokenizer).__name__}: it needs token_bytes(id) -> "
        "bytes, as every book.tokenizers.Tokenizer has (tiktoken: decode_single_token_bytes)"
    )


class Described:
    """The ``repr`` every tokenizer shows: its class, ``n_vocab`` and what ``_describe`` adds.

    >>> from book.tokenizers import ByteTokenizer
    >>> ByteTokenizer()
    ByteTokenizer(n_vocab=256, merges=0)
    """

    n_vocab: int

    def _describe(self) -> dict[str, object]:
        """The settings that tell two tokenizers of the class apart (shown by ``repr``)."""
        return {}

    def __repr__(self) -> str:
        fields = [f"n_vocab={self.n_vocab}"]
        fields += [f"{name}={value!r}" for name, value in self._describe().items()]
        return f"{type(self).__name__}({', '.join(fields)})"


class StrVocabulary(Described):
    """The members of a tokenizer whose tokens are strings, listed by id in ``vocab``.

    ``vocab[i]`` is the token with id ``i`` and ``token_to_id`` the way back; the unknown token,
    if the tokenizer has one, is in both. ``n_vocab``, ``token_bytes`` and the error for text
    that no token spells are defined here once.

    >>> from book.tokenizers import CharTokenizer
    >>> tok = CharTokenizer(["a", "é"])
    >>> tok.vocab, tok.token_to_id, tok.n_vocab, tok.token_bytes(1)
    (['a', 'é'], {'a': 0, 'é': 1}, 2, b'\\xc3\\xa9')
    """

    vocab: list[str]

    @cached_property
    def token_to_id(self) -> dict[str, int]:
        """The id of each token: the way back from ``vocab`` (built once, on first use)."""
        return {token: i for i, token in enumerate(self.vocab)}

    @property
    def n_vocab(self) -> int:
        """Number of ids: ids run from 0 to ``n_vocab - 1``."""
        return len(self.vocab)

    def token_bytes(self, token_id: int) -> bytes:
        """The UTF-8 bytes of the token with id ``token_id``, as stored (``b"##ing"``)."""
        return self.tokens_of([token_id])[0].encode("utf-8")

    def tokens_of(self, ids: Iterable[int]) -> list[str]:
        """The tokens with ``ids``; an id that names no token is an :class:`UnknownIdError`."""
        return tokens_for_ids(self.vocab, ids, self.n_vocab)

    def unknown_token_error(
        self, token: str, where: str, position: int, keep: str = ""
    ) -> UnknownTokenError:
        """The error for ``token`` (described by ``where``), which no token of the vocabulary
        spells, and what to do: train on text that holds it (with options that ``keep`` it),
        or allow the unknown token.

        >>> from book.tokenizers import CharTokenizer
        >>> print(CharTokenizer(["a"]).unknown_token_error("b", "at position 3", 3))
        'b' (U+0062) at position 3 is not in the vocabulary (1 tokens). Train on text that \
contains it, or pass unk=True to CharTokenizer.train to encode it as <unk>.
        """
        spelled = describe_char(token) if len(token) == 1 else repr(token)
        return UnknownTokenError(
            f"{spelled} {where} is not in the vocabulary ({self.n_vocab} tokens). Train on text "
            f"that contains it{keep}, or pass unk=True to {type(self).__name__}.train to "
            f"encode it as {UNK_TOKEN}.",
            token=token,
            position=position,
        )


def describe_char(ch: str) -> str:
    r"""A character as a reader can identify it, even when invisible: repr and code point.

    >>> print(describe_char("é"), describe_char("\n"))
    'é' (U+00E9) '\n' (U+000A)
    """
    return f"{ch!r} (U+{ord(ch):04X})"


def check_train_vocab_size(vocab_size: object, minimum: int, what: str) -> int:
    """``vocab_size`` if it is an int >= ``minimum``; else a ValueError that says why.

    >>> check_train_vocab_size(300, 257, "256 bytes and <unk>")
    300
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < minimum:
        raise ValueError(
            f"vocab_size must be an int >= {minimum} (it counts everything in the vocabulary: "
            f"{what}), got {vocab_size!r}"
        )
    return vocab_size


class AddedSpecialTokens:
    """The BOS and EOS a model puts around a text's ids when asked, and whether it puts each.

    ``encode(text, add_special_tokens=True)`` adds them (Hugging Face's post-processor stage;
    ``tokenizer.ggml.add_bos_token`` and ``add_eos_token`` in llama.cpp's files): ``<s>`` before
    Llama 2's text, ``[CLS]`` before and ``[SEP]`` after BERT's (llama.cpp calls them BOS and
    separator), ``<s>`` and ``</s>`` around XLM-R's. ``encode`` leaves them out by default, as
    SentencePiece and tiktoken do (``transformers`` adds them by default).

    >>> tok = AddedSpecialTokens()
    >>> tok.set_added_special_tokens(1, 2, add_bos_token=True, add_eos_token=False, n_vocab=3)
    >>> tok.with_special_tokens([0, 0])
    [1, 0, 0]
    """

    bos_id: int | None = None
    eos_id: int | None = None
    add_bos_token: bool = False
    add_eos_token: bool = False

    def set_added_special_tokens(
        self,
        bos_id: int | None,
        eos_id: int | None,
        add_bos_token: bool,
        add_eos_token: bool,
        n_vocab: int,
    ) -> None:
        """Check and keep the ids and switches (``n_vocab``: the ids must name tokens)."""
        for name, token_id in (("bos_id", bos_id), ("eos_id", eos_id)):
            if token_id is not None and not 0 <= token_id < n_vocab:
                raise ValueError(f"{name}={token_id} is not an id of the {n_vocab} tokens")
        for name, wanted, token_id in (
            ("bos", add_bos_token, bos_id),
            ("eos", add_eos_token, eos_id),
        ):
            if wanted and token_id is None:
                raise ValueError(f"add_{name}_token=True needs {name}_id, the token to add")
        self.bos_id, self.eos_id = bos_id, eos_id
        self.add_bos_token, self.add_eos_token = bool(add_bos_token), bool(add_eos_token)

    def with_special_tokens(self, ids: list[int]) -> list[int]:
        """``ids`` with BOS in front and EOS after, each where the model adds it."""
        before = [self.bos_id] if self.add_bos_token else []
        after = [self.eos_id] if self.add_eos_token else []
        return [*before, *ids, *after]
