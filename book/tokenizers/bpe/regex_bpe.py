"""Regex BPE (chapter 06): split text into chunks with a pattern, then byte-level BPE per chunk.

Merges never cross a chunk boundary, so no token glues a word to the punctuation or space
after it (``g.``, ``dog!``). With a tiktoken encoding's pattern and merges, the result is
token-for-token what tiktoken gives:

>>> tok = RegexTokenizer.train("the cat sat on the mat. the cat ate.", vocab_size=262)
>>> tok.split("the cat.")
['the', ' cat', '.']
>>> [tok.vocab[i] for i in tok.encode("the cat.")]
[b'the', b' cat', b'.']

Special tokens (``{"<|endoftext|>": 50256}``) get ids after the learned vocabulary. By default
``encode`` refuses text that contains one (as tiktoken does); ``allowed_special`` lets trusted
text use them, and ``encode_ordinary`` treats them as plain text.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Literal

from book.tokenizers.base import N_BYTES, as_rng, check_train_vocab_size
from book.tokenizers.bpe import streaming
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.convert import model_from_vocab_merges, recover_merges, vocab_and_merges
from book.tokenizers.bpe.core import (
    Merge,
    TieBreak,
    merge_lowest_rank,
    replay_merges,
    surrogate_error,
    trace_chunks,
)
from book.tokenizers.bpe.dropout import check_dropout, merge_with_dropout
from book.tokenizers.bpe.patterns import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    Pattern,
    check_special_names,
    compile_pattern,
    special_token_regex,
)
from book.tokenizers.bpe.pretokenize import training_chunk_counts
from book.tokenizers.bpe.trace import Step
from book.tokenizers.bpe.train import train_merges
from book.tokenizers.errors import BPEFileError, DisallowedSpecialTokenError
from book.tokenizers.formats.bpe_file import read_bpe_file, write_bpe_file
from book.tokenizers.formats.gpt2_files import read_gpt2_files, write_gpt2_files

CACHE_SIZE = 100_000  # chunks remembered by a tokenizer; most text repeats its words
WHOLE_TOKEN_CHECK = 20_000  # merges up to which _whole_tokens checks every token (< 0.5 s)


class RegexTokenizer(ByteTokenizer):
    """Byte-level BPE inside the chunks of a split pattern, plus special tokens.

    >>> tok = RegexTokenizer([((104, 105), 2)], special_tokens={"<|end|>": 300})
    >>> tok.encode("hi<|end|>", allowed_special="all")
    [256, 300]
    >>> tok.encode_ordinary("hi<|end|>")[:3]
    [256, 60, 124]
    >>> tok.decode([256, 300])
    'hi<|end|>'
    """

    def __init__(
        self,
        merges: Iterable[Merge] = (),
        pattern: Pattern = CL100K_PATTERN,
        special_tokens: Mapping[str, int] | None = None,
        byte_ids: Sequence[int] | None = None,
        new_ids: Sequence[int] | None = None,
    ):
        super().__init__(merges, byte_ids, new_ids)
        self.pattern = pattern  # one pattern, or a tuple of them applied in turn
        self._regex = compile_pattern(pattern)
        self.special_tokens: dict[str, int] = {}
        self.added_tokens: frozenset[str] = frozenset()  # see register_added_tokens
        self._cache: dict[str, list[int]] = {}
        self._whole: dict[bytes, int] | None = None  # see _whole_tokens
        self.register_special_tokens(special_tokens or {})

    @classmethod
    def train(
        cls,
        text: str,
        vocab_size: int,
        *,
        pattern: str = CL100K_PATTERN,
        special_tokens: Iterable[str] = (),
        tie_break: TieBreak = "first",
    ) -> RegexTokenizer:
        """Learn merges on the chunks of ``text`` until ``vocab_size`` tokens, specials included.

        ``vocab_size`` counts the 256 bytes, one token per merge and the special tokens, which
        get the ids after the learned tokens, in the order given. The text is cut at the
        special tokens first, so no merge crosses or enters one. Same merges as the obvious
        algorithm on the chunks in text order (ties included); stops early if the chunks run
        out of pairs.

        >>> tok = RegexTokenizer.train("hi hi<|eot|>hi", 258, special_tokens=["<|eot|>"])
        >>> tok.vocab[256], tok.special_tokens
        (b'hi', {'<|eot|>': 257})
        """
        if isinstance(special_tokens, Mapping):
            raise TypeError(
                "special_tokens of train() are names (e.g. ['<|endoftext|>']): they get the ids "
                "after the learned tokens. To choose ids, call register_special_tokens after"
            )
        names = check_special_names(special_tokens)
        minimum = N_BYTES + len(names)
        what = f"the {N_BYTES} byte tokens, one token per merge, {len(names)} special tokens"
        check_train_vocab_size(vocab_size, minimum, what)
        counts = training_chunk_counts(text, pattern, names)
        merges = train_merges(counts, vocab_size - minimum, tie_break=tie_break)
        first = N_BYTES + len(merges)
        return cls(merges, pattern, {name: first + i for i, name in enumerate(names)})

    @classmethod
    def from_tiktoken(cls, encoding, recovered=None) -> RegexTokenizer:
        """The same tokenizer as a ``tiktoken.Encoding`` (or its name, loaded offline).

        tiktoken keeps its constructor's arguments in private attributes (no public accessor
        exists): ``_pat_str``, ``_mergeable_ranks`` and ``_special_tokens``. ``recovered`` is
        ``recover_merges`` of those ranks when the caller has it already
        (``book.encodings.regex_tokenizer`` keeps it on disk).
        """
        if isinstance(encoding, str):
            import tiktoken  # reads the files that `python -m book.encodings` provides offline

            encoding = tiktoken.get_encoding(encoding)
        byte_ids, merges = recovered or recover_merges(encoding._mergeable_ranks)
        tok = cls(merges, encoding._pat_str, dict(encoding._special_tokens), byte_ids)
        # recover_merges built each token from two lower-ranked ones, so BPE rebuilds each.
        tok._whole = dict(tok.token_to_id)
        return tok

    @classmethod
    def from_vocab_merges(
        cls,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        special_tokens: Iterable[str] | None = None,
        pattern: str = GPT2_PATTERN,
    ) -> RegexTokenizer:
        """The tokenizer of a vocabulary ``{id: bytes}`` and merges of bytes (CS336's form).

        Ids are exactly the vocabulary's, in whatever order it numbers them. Special tokens
        (names) missing from the vocabulary get the ids after its largest; ``None`` takes
        every entry that no byte or merge makes as one. Errors say what does not fit:
        see :func:`~book.tokenizers.bpe_vocab.model_from_vocab_merges`.

        >>> vocab = {0: b"<|eot|>", **{i + 1: bytes([i]) for i in range(256)}, 257: b"hi"}
        >>> tok = RegexTokenizer.from_vocab_merges(vocab, [(b"h", b"i")], ["<|eot|>"])
        >>> tok.encode("hi!<|eot|>", allowed_special="all")
        [257, 34, 0]
        """
        model = model_from_vocab_merges(vocab, merges, special_tokens)
        return cls(model.merges, pattern, model.special_tokens, model.byte_ids, model.new_ids)

    def vocab_and_merges(self) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
        """``({id: bytes}, [(left, right), ...])``: the tokenizer in CS336's form, specials too.

        >>> RegexTokenizer([((104, 105), 2)]).vocab_and_merges()[1]
        [(b'h', b'i')]
        """
        return vocab_and_merges(self.byte_ids, self.merges, self.new_ids, self.special_tokens)

    @classmethod
    def from_gpt2_files(
        cls,
        vocab_path: str | Path,
        merges_path: str | Path,
        special_tokens: Iterable[str] | None = None,
        pattern: str = GPT2_PATTERN,
    ) -> RegexTokenizer:
        """Load GPT-2-style ``vocab.json`` and ``merges.txt`` (as Hugging Face writes them)."""
        vocab, merges = read_gpt2_files(vocab_path, merges_path)
        return cls.from_vocab_merges(vocab, merges, special_tokens, pattern)

    def save_gpt2_files(self, directory: str | Path) -> tuple[Path, Path]:
        """Write ``vocab.json`` and ``merges.txt`` into ``directory`` (the split pattern is not
        part of that format: pass it to ``from_gpt2_files``, or to Hugging Face's pre-tokenizer).
        """
        vocab, merges = self.vocab_and_merges()
        return write_gpt2_files(directory, vocab, merges)

    def to_tiktoken(self, name: str):
        """This tokenizer as a ``tiktoken.Encoding``: the same ids, at Rust speed.

        tiktoken ranks a pair by the id of the token it makes, so the merges must make ids
        that grow with their rank (true of every tokenizer the book trains and of GPT-2's);
        a tokenizer numbered otherwise is refused.

        >>> tok = RegexTokenizer.train("the cat sat on the mat", 270)
        >>> tok.to_tiktoken("cats").encode("the mat") == tok.encode("the mat")
        True
        """
        import tiktoken

        if any(a >= b for a, b in zip(self.new_ids, self.new_ids[1:])):
            raise ValueError(
                "tiktoken merges the pair whose token has the smallest id, so the ids that the "
                "merges make must grow with their rank; this tokenizer's do not"
            )
        if len(self._whole_tokens()) < len(self.vocab):
            token = next(t for t in self.vocab.values() if t not in self._whole_tokens())
            raise ValueError(
                f"BPE does not turn the bytes of token {token!r} back into that token, but "
                "tiktoken encodes a chunk that is a whole token as that token: the two would "
                "give different ids. Merges learned by training never do this."
            )
        ranks = dict(self.token_to_id)
        return tiktoken.Encoding(
            name, pat_str=self.pattern, mergeable_ranks=ranks, special_tokens=self.special_tokens
        )

    def register_special_tokens(self, special_tokens: Mapping[str, int]) -> None:
        """Add special tokens ``{text: id}``; an id must not be a learned token's.

        A learned token's id is one that merges can produce, and two special tokens with one
        id would decode alike; both are refused.

        >>> tok = RegexTokenizer()
        >>> tok.register_special_tokens({"<|endoftext|>": tok.n_vocab})
        >>> tok.special_tokens, tok.decode([256])
        ({'<|endoftext|>': 256}, '<|endoftext|>')
        """
        taken = {token_id: name for name, token_id in self.special_tokens.items()}
        check_special_names(special_tokens)
        for name, token_id in special_tokens.items():
            if type(token_id) is not int or token_id < 0 or token_id in self.vocab:
                raise ValueError(
                    f"special token {name!r} needs an int id that is not a learned token's "
                    f"(those are {min(self.vocab)}-{max(self.vocab)}), got {token_id!r}; "
                    f"e.g. {name!r}: {self.n_vocab}"
                )
            if taken.get(token_id, name) != name:
                raise ValueError(
                    f"id {token_id} is already the special token {taken[token_id]!r}, so "
                    f"{name!r} cannot have it too: decode could not tell them apart. Give "
                    f"{name!r} a free id, e.g. {self.n_vocab}"
                )
            taken[token_id] = name
        for name, token_id in special_tokens.items():
            self.special_tokens.pop(name, None)
            self.special_tokens[name] = token_id
        specials = {i: name.encode("utf-8") for name, i in self.special_tokens.items()}
        self._id_to_bytes = {**self.vocab, **specials}

    def register_added_tokens(self, added_tokens: Mapping[str, int]) -> None:
        """Add tokens ``{text: id}`` that ``encode`` finds wherever their text occurs.

        They are special tokens that need no ``allowed_special``: Hugging Face's added tokens
        that are not special, llama.cpp's user-defined tokens (GPT-NeoX's runs of spaces, for
        one), which the model's own tokenizer matches in any text before splitting it.
        ``encode_ordinary`` still encodes their text as ordinary text.

        >>> tok = RegexTokenizer()
        >>> tok.register_added_tokens({"  ": 256})
        >>> tok.encode("a  b"), tok.encode_ordinary("a  b")
        ([97, 256, 98], [97, 32, 32, 98])
        """
        self.register_special_tokens(added_tokens)
        self.added_tokens = self.added_tokens | set(added_tokens)

    def split(self, text: str) -> list[str]:
        """The chunks of ``text`` under this tokenizer's pattern."""
        return self._regex.findall(text)

    def encode_ordinary(
        self, text: str, *, dropout: float | None = None, seed: int | random.Random = 0
    ) -> list[int]:
        """Ids of ``text``, with special tokens' text encoded as ordinary text.

        Each distinct chunk is encoded once and remembered (most text repeats its words), so
        the loop below is mostly a dict lookup per chunk. ``dropout`` and ``seed``: BPE-dropout
        in every chunk, as in :meth:`ByteTokenizer.encode`.
        """
        if dropout is not None:
            return self._encode_with_dropout(text, check_dropout(dropout), as_rng(seed))
        ids: list[int] = []
        extend, remembered = ids.extend, self._cache.get
        try:
            for chunk in self._regex.findall(text):
                chunk_ids = remembered(chunk)
                extend(self._encode_chunk(chunk) if chunk_ids is None else chunk_ids)
        except UnicodeEncodeError:  # say where the surrogate is in the text, not in its chunk
            raise surrogate_error(text) from None
        return ids

    def _encode_with_dropout(self, text: str, dropout: float, rng: random.Random) -> list[int]:
        """Ids of ``text`` with BPE-dropout in each chunk: every chunk draws afresh, so neither
        the cache nor the whole-token shortcut applies."""
        ids: list[int] = []
        try:
            for chunk in self._regex.findall(text):
                symbols = self.text_to_byte_ids(chunk)
                ids.extend(merge_with_dropout(symbols, self.ranks, dropout, rng, self.new_ids))
        except UnicodeEncodeError:  # say where the surrogate is in the text, not in its chunk
            raise surrogate_error(text) from None
        return ids

    def encode_by_replay(self, text: str) -> list[int]:
        """Ids of ``text`` by replaying every merge in order within each chunk (slow, obvious)."""
        chunks = [self.text_to_byte_ids(chunk) for chunk in self.split(text)]
        merges, new_ids = self.merges, self.new_ids
        return [i for chunk in chunks for i in replay_merges(chunk, merges, new_ids)]

    def encode(
        self,
        text: str,
        *,
        allowed_special: Collection[str] | Literal["all"] = frozenset(),
        disallowed_special: Collection[str] | Literal["all"] = "all",
        dropout: float | None = None,
        seed: int | random.Random = 0,
    ) -> list[int]:
        """Ids of ``text``; special tokens as in tiktoken's ``Encoding.encode``.

        ``allowed_special`` texts become their special ids; ``disallowed_special`` ones
        ("all" = every special not allowed) raise :class:`DisallowedSpecialTokenError`
        wherever they occur in the text; any other special token's text is encoded as
        ordinary text. Added tokens (:meth:`register_added_tokens`) are always allowed. Two
        choices are stricter than tiktoken's: a name that is not a special token of this
        tokenizer is an error (tiktoken ignores it in ``allowed_special``, so a typo goes
        unnoticed), and where one allowed special token's text begins another's, the longest
        wins (tiktoken's pick follows the order of its internal hash map).
        ``dropout`` and ``seed``: BPE-dropout, as in :meth:`ByteTokenizer.encode`; special
        tokens stay whole.

        >>> tok = RegexTokenizer(special_tokens={"<|end|>": 256})
        >>> tok.encode("hi<|end|>", allowed_special={"<|end|>"})
        [104, 105, 256]
        >>> tok.encode("hi<|end|>", disallowed_special=()) == tok.encode_ordinary("hi<|end|>")
        True
        """
        allowed = self._special_names(allowed_special, "allowed_special") | self.added_tokens
        if disallowed_special == "all":
            disallowed = set(self.special_tokens) - allowed
        else:
            disallowed = self._special_names(disallowed_special, "disallowed_special")
        if disallowed:
            found = special_token_regex(frozenset(disallowed)).search(text)
            if found:
                raise DisallowedSpecialTokenError(found.group(), found.start(), text)
        seed = seed if dropout is None else as_rng(seed)  # one generator for all the parts
        if not allowed:
            return self.encode_ordinary(text, dropout=dropout, seed=seed)
        ids: list[int] = []
        try:
            # re.split with one capturing group alternates: text, special, text, special, ...
            for i, part in enumerate(special_token_regex(frozenset(allowed)).split(text)):
                if i % 2:
                    ids.append(self.special_tokens[part])
                elif part:
                    ids.extend(self.encode_ordinary(part, dropout=dropout, seed=seed))
        except UnicodeEncodeError:  # say where the surrogate is in the text, not in its part
            raise surrogate_error(text) from None
        return ids

    def encode_iterable(
        self,
        parts: Iterable[str],
        *,
        allowed_special: Collection[str] | Literal["all"] = frozenset(),
        disallowed_special: Collection[str] | Literal["all"] = "all",
    ) -> Iterator[int]:
        """The ids of ``"".join(parts)`` (e.g. an open file's lines), yielded lazily.

        The same ids as ``encode`` of the whole. The text held is bounded by the longest
        stretch without a place to cut, not by the whole text, for OpenAI's split patterns;
        with another pattern the whole text is held. See :mod:`book.tokenizers.bpe.streaming`.

        >>> tok = RegexTokenizer.train("low lower lowest", 260)
        >>> list(tok.encode_iterable(["low lo", "wer"])) == tok.encode("low lower")
        True
        """
        return streaming.encode_iterable(self, parts, allowed_special, disallowed_special)

    def encode_file(
        self,
        path: str | Path,
        *,
        workers: int | None = None,
        allowed_special: Collection[str] | Literal["all"] = frozenset(),
        disallowed_special: Collection[str] | Literal["all"] = "all",
    ) -> Iterator[int]:
        """The ids of a UTF-8 file, yielded in order, its blocks encoded by ``workers`` processes.

        ``workers=None``: one for a small file, else every CPU. A byte that is not UTF-8 is
        an error naming its offset and line.
        """
        return streaming.encode_file(self, path, workers, allowed_special, disallowed_special)

    def trace(self, text: str) -> list[Step]:
        """Pieces of ``text`` before any merge and after each merge that changed a chunk."""
        chunks = [self.text_to_byte_ids(chunk) for chunk in self.split(text)]
        return trace_chunks(chunks, self.merges, self.vocab.__getitem__, self.new_ids)

    def save(self, path: str | Path) -> None:
        """Write the tokenizer as the book's file (:mod:`book.tokenizers.formats.bpe_file`)."""
        if self.added_tokens or not isinstance(self.pattern, str):
            raise ValueError(
                "the book's tokenizer file holds one split pattern and no added tokens, but this "
                "tokenizer has several patterns or added tokens (it was read from another "
                "format, e.g. GGUF): keep that file and read it again (book.tokenizers.gguf)"
            )
        write_bpe_file(
            path, self.pattern, self.special_tokens, self.byte_ids, self.merges, self.new_ids
        )

    @classmethod
    def load(cls, path: str | Path) -> RegexTokenizer:
        """Read a file written by :meth:`save`."""
        saved = read_bpe_file(path)
        if saved.pattern is None:
            raise BPEFileError(
                path,
                2,
                "this file holds a byte-level tokenizer without a split pattern "
                "(pattern: null); load it with ByteTokenizer.load",
            )
        return cls(saved.merges, saved.pattern, saved.special_tokens, saved.byte_ids, saved.new_ids)

    def _encode_chunk(self, chunk: str) -> list[int]:
        """Ids of one chunk not seen before, remembered for the next time.

        A chunk that is itself a token which BPE rebuilds from its bytes is that one token,
        found by a dict lookup instead of merging (tiktoken's shortcut; made exact here by
        :meth:`_whole_tokens`). Most words of a text are such tokens.
        """
        whole = self._whole if self._whole is not None else self._whole_tokens(WHOLE_TOKEN_CHECK)
        data = chunk.encode("utf-8")
        token_id = whole.get(data)
        if token_id is not None:
            ids = [token_id]
        else:
            ids = merge_lowest_rank(self.text_to_byte_ids_of(data), self.ranks, self.new_ids)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[chunk] = ids
        return ids

    def _whole_tokens(self, limit: int | None = None) -> dict[bytes, int]:
        """``{bytes: id}`` of the learned tokens that BPE turns back into themselves.

        BPE need not rebuild a token from its bytes (merges ``ab``, ``bc``, ``a+bc`` make
        ``abc``, yet ``abc`` encodes as ``ab`` ``c``), so each token is checked once. Above
        ``limit`` merges the check costs more than it saves for most uses, and no shortcut
        is taken (``from_tiktoken`` knows every token passes, and says so).
        """
        if self._whole is not None and len(self._whole) == len(self.merges) + 256:
            return self._whole
        whole = {token: token_id for token_id, token in self.vocab.items() if len(token) == 1}
        if limit is None or len(self.merges) <= limit:
            for token_id in self.new_ids:
                token = self.vocab[token_id]
                ids = self.text_to_byte_ids_of(token)
                if merge_lowest_rank(ids, self.ranks, self.new_ids) == [token_id]:
                    whole[token] = token_id
        self._whole = whole
        return whole

    def _special_names(self, names: Collection[str] | str, argument: str) -> set[str]:
        """``names`` as a set ("all" = every special token); unknown names are an error."""
        if names == "all":
            return set(self.special_tokens)
        if isinstance(names, str) or not isinstance(names, Iterable):
            raise TypeError(
                f"{argument} must be 'all' or a collection of special tokens' texts, e.g. "
                f"{{'<|endoftext|>'}} or () for none; got {names!r}"
            )
        unknown = set(names) - set(self.special_tokens)
        if unknown:
            raise ValueError(
                f"{argument} names {sorted(unknown)}, which are not special tokens of this "
                f"tokenizer; registered: {sorted(self.special_tokens) or 'none'}. Register "
                "them first with register_special_tokens, or fix the spelling."
            )
        return set(names)

    def _describe(self) -> dict[str, object]:
        pattern = self.pattern if len(self.pattern) <= 30 else self.pattern[:30] + "..."
        return {
            "merges": len(self.merges),
            "special_tokens": len(self.special_tokens),
            "pattern": pattern,
        }
