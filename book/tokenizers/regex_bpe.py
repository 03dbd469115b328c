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

from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from book.tokenizers.base import check_train_vocab_size
from book.tokenizers.bpe_core import (
    N_BYTES,
    Merge,
    TieBreak,
    merge_lowest_rank,
    replay_merges,
    surrogate_error,
    trace_chunks,
)
from book.tokenizers.bpe_file import read_bpe_file, write_bpe_file
from book.tokenizers.bpe_train import train_merges
from book.tokenizers.byte_bpe import ByteTokenizer
from book.tokenizers.errors import BPEFileError, DisallowedSpecialTokenError
from book.tokenizers.patterns import (
    CL100K_PATTERN,
    check_special_names,
    compile_pattern,
    special_token_regex,
)
from book.tokenizers.pretokenize import training_chunk_counts
from book.tokenizers.trace import Step

CACHE_SIZE = 100_000  # chunks remembered by a tokenizer; most text repeats its words


def recover_merges(mergeable_ranks: Mapping[bytes, int]) -> tuple[list[int], list[Merge]]:
    """``byte_ids`` and ``merges`` equivalent to tiktoken's ``{token bytes: rank}``.

    Token ids are the ranks: the 256 single bytes have ranks 0-255 (in their own order) and
    the token of rank ``r`` is merge number ``r - 256``. Its two parts are what BPE makes of
    its bytes with the merges recovered before it (the lower ranks): exactly two tokens, or
    the ranks are not those of a BPE. Counts are unknown (``None``).

    >>> recover_merges({bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257})[1]
    [((97, 98), None), ((256, 99), None)]
    """
    tokens = sorted(mergeable_ranks, key=mergeable_ranks.get)
    if [mergeable_ranks[token] for token in tokens] != list(range(len(tokens))):
        raise ValueError("the ranks must be 0, 1, 2, ... without gaps or repeats")
    if any(len(token) != 1 for token in tokens[:N_BYTES]) or len(tokens) < N_BYTES:
        raise ValueError("ranks 0-255 must be the 256 single bytes")
    byte_ids = [mergeable_ranks[bytes([byte])] for byte in range(N_BYTES)]
    ranks: dict = {}
    merges: list[Merge] = []
    for rank, token in enumerate(tokens[N_BYTES:]):
        parts = merge_lowest_rank([byte_ids[byte] for byte in token], ranks)
        if len(parts) != 2:
            raise ValueError(
                f"token {token!r} (rank {N_BYTES + rank}) cannot be built by merging two "
                "lower-ranked tokens, so no list of merges reproduces this encoding"
            )
        ranks[tuple(parts)] = rank
        merges.append((tuple(parts), None))
    return byte_ids, merges


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
        pattern: str = CL100K_PATTERN,
        special_tokens: Mapping[str, int] | None = None,
        byte_ids: Sequence[int] | None = None,
        new_ids: Sequence[int] | None = None,
    ):
        super().__init__(merges, byte_ids, new_ids)
        self.pattern = pattern
        self._regex = compile_pattern(pattern)
        self.special_tokens: dict[str, int] = {}
        self._cache: dict[str, list[int]] = {}
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
    def from_tiktoken(cls, encoding) -> RegexTokenizer:
        """The same tokenizer as a ``tiktoken.Encoding`` (or its name, loaded offline).

        tiktoken keeps its constructor's arguments in private attributes (no public accessor
        exists): ``_pat_str``, ``_mergeable_ranks`` and ``_special_tokens``.
        """
        if isinstance(encoding, str):
            import tiktoken  # reads the files that `python -m book.encodings` provides offline

            encoding = tiktoken.get_encoding(encoding)
        byte_ids, merges = recover_merges(encoding._mergeable_ranks)
        return cls(merges, encoding._pat_str, dict(encoding._special_tokens), byte_ids)

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

    def split(self, text: str) -> list[str]:
        """The chunks of ``text`` under this tokenizer's pattern."""
        return self._regex.findall(text)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text``, with special tokens' text encoded as ordinary text."""
        ids: list[int] = []
        try:
            for chunk in self._regex.findall(text):
                ids.extend(self._encode_chunk(chunk))
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
    ) -> list[int]:
        """Ids of ``text``; special tokens as in tiktoken's ``Encoding.encode``.

        ``allowed_special`` texts become their special ids; ``disallowed_special`` ones
        ("all" = every special not allowed) raise :class:`DisallowedSpecialTokenError`
        wherever they occur in the text; any other special token's text is encoded as
        ordinary text. Two choices are stricter than tiktoken's: a name that is not a special
        token of this tokenizer is an error (tiktoken ignores it in ``allowed_special``, so a
        typo goes unnoticed), and where one allowed special token's text begins another's, the
        longest wins (tiktoken's pick follows the order of its internal hash map).

        >>> tok = RegexTokenizer(special_tokens={"<|end|>": 256})
        >>> tok.encode("hi<|end|>", allowed_special={"<|end|>"})
        [104, 105, 256]
        >>> tok.encode("hi<|end|>", disallowed_special=()) == tok.encode_ordinary("hi<|end|>")
        True
        """
        allowed = self._special_names(allowed_special, "allowed_special")
        if disallowed_special == "all":
            disallowed = set(self.special_tokens) - allowed
        else:
            disallowed = self._special_names(disallowed_special, "disallowed_special")
        if disallowed:
            found = special_token_regex(frozenset(disallowed)).search(text)
            if found:
                raise DisallowedSpecialTokenError(found.group(), found.start(), text)
        if not allowed:
            return self.encode_ordinary(text)
        ids: list[int] = []
        try:
            # re.split with one capturing group alternates: text, special, text, special, ...
            for i, part in enumerate(special_token_regex(frozenset(allowed)).split(text)):
                if i % 2:
                    ids.append(self.special_tokens[part])
                elif part:
                    ids.extend(self.encode_ordinary(part))
        except UnicodeEncodeError:  # say where the surrogate is in the text, not in its part
            raise surrogate_error(text) from None
        return ids

    def trace(self, text: str) -> list[Step]:
        """Pieces of ``text`` before any merge and after each merge that changed a chunk."""
        chunks = [self.text_to_byte_ids(chunk) for chunk in self.split(text)]
        return trace_chunks(chunks, self.merges, self.vocab.__getitem__, self.new_ids)

    def save(self, path: str | Path) -> None:
        """Write the tokenizer as a plain-text file (format in :mod:`book.tokenizers.bpe_file`)."""
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
        """Ids of one chunk, remembered: the same word is encoded once per tokenizer."""
        ids = self._cache.get(chunk)
        if ids is None:
            ids = merge_lowest_rank(self.text_to_byte_ids(chunk), self.ranks, self.new_ids)
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            self._cache[chunk] = ids
        return ids

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

    def __repr__(self) -> str:
        return (
            f"RegexTokenizer(n_vocab={self.n_vocab}, merges={len(self.merges)}, "
            f"special_tokens={len(self.special_tokens)}, pattern={self.pattern[:30]!r}...)"
        )
