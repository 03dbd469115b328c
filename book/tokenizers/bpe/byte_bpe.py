"""Byte-level BPE (chapter 05): BPE on the UTF-8 bytes of a text, so every text is covered.

The 256 byte values are the starting vocabulary, so there is no unknown character: any
string encodes, including scripts and emoji never seen in training. Training merges the most
frequent adjacent pair again and again; the book's tie-break (among equally frequent pairs,
the one occurring first in the training data) is exactly what the obvious algorithm,
:func:`book.tokenizers.bpe.core.train_naive`, does;
:func:`book.tokenizers.bpe.train.train_merges` learns the same merges incrementally.

>>> tok = ByteTokenizer.train("low lower lowest low", vocab_size=259)
>>> [(tok.vocab[new_id], count) for new_id, (_pair, count) in enumerate(tok.merges, 256)]
[(b'lo', 4), (b'low', 4), (b' low', 3)]
>>> tok.encode("slow")
[115, 257]
>>> tok.decode(tok.encode("naïve 🦙"))
'naïve 🦙'
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path

from book.tokenizers.base import N_BYTES, Described, as_rng, check_train_vocab_size
from book.tokenizers.bpe.core import (
    Merge,
    TieBreak,
    build_vocab,
    decode_utf8,
    identity_byte_ids,
    merge_lowest_rank,
    ranks_of,
    replay_merges,
    trace_chunks,
    utf8_bytes,
)
from book.tokenizers.bpe.dropout import check_dropout, merge_with_dropout
from book.tokenizers.bpe.trace import Step
from book.tokenizers.bpe.train import train_merges
from book.tokenizers.errors import BPEFileError, tokens_for_ids
from book.tokenizers.formats.bpe_file import read_bpe_file, write_bpe_file


class ByteTokenizer(Described):
    """Byte-level BPE: ``merges`` (``(pair, count)`` in rank order) over the 256 byte tokens.

    ``byte_ids[b]`` is the id of byte ``b`` and ``new_ids[rank]`` the id merge ``rank``
    creates: ``b`` and ``256 + rank`` unless the vocabulary comes from elsewhere (tiktoken
    numbers the bytes in another order; a vocabulary file may number tokens as it likes).

    >>> tok = ByteTokenizer([((104, 105), 3)])
    >>> tok.encode("hi!"), tok.vocab[256], tok.n_vocab, tok.token_bytes(256)
    ([256, 33], b'hi', 257, b'hi')
    """

    def __init__(
        self,
        merges: Iterable[Merge] = (),
        byte_ids: Sequence[int] | None = None,
        new_ids: Sequence[int] | None = None,
    ):
        self.merges: list[Merge] = [((left, right), count) for (left, right), count in merges]
        self.byte_ids = identity_byte_ids() if byte_ids is None else list(byte_ids)
        default = range(N_BYTES, N_BYTES + len(self.merges))
        self.new_ids = list(default if new_ids is None else new_ids)
        _check_model(self.byte_ids, self.merges, self.new_ids)
        self.ranks = ranks_of(self.merges)
        self.vocab = build_vocab(self.merges, self.byte_ids, self.new_ids)
        if len(set(self.new_ids)) < len(self.new_ids):
            _check_same_tokens(self.vocab, self.merges, self.new_ids)
        self._id_to_bytes = self.vocab  # what decode accepts; RegexTokenizer adds specials
        # Byte ids 0-255 in any order: bytes.translate maps a text's bytes to ids at C speed.
        in_range = sorted(self.byte_ids) == identity_byte_ids()
        self._translation = bytes(self.byte_ids) if in_range else None

    @classmethod
    def train(cls, text: str, vocab_size: int, *, tie_break: TieBreak = "first") -> ByteTokenizer:
        """Learn merges on ``text`` (one sequence of bytes) until ``vocab_size`` tokens.

        ``vocab_size`` counts the 256 bytes and one token per merge. Stops early if the text
        runs out of pairs (then ``n_vocab`` is smaller). ``tie_break``: ``"first"`` (the
        book's rule) or ``"lexicographic"`` (the greater pair of bytes wins, as in CS336).

        >>> ByteTokenizer.train("abab", 300).vocab[257]
        b'abab'
        """
        check_train_vocab_size(vocab_size, N_BYTES, _BYTES_AND_MERGES)
        merges = train_merges([utf8_bytes(text)], vocab_size - N_BYTES, tie_break=tie_break)
        return cls(merges)

    @cached_property
    def token_to_id(self) -> dict[bytes, int]:
        """The id of each learned token's bytes: the way back from ``vocab`` (built once)."""
        return {token: token_id for token_id, token in self.vocab.items()}

    @property
    def _id_to_bytes(self) -> dict[int, bytes]:
        """Every id decode accepts and its bytes (``vocab``; RegexTokenizer adds specials)."""
        return self._decodable

    @_id_to_bytes.setter
    def _id_to_bytes(self, table: dict[int, bytes]) -> None:
        self._decodable = table
        # Kept with the table: a 256k-token vocabulary takes milliseconds to scan, and
        # token_bytes, called once per id by the viewer and the measurements, checks it.
        self._n_vocab = max(table) + 1

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (256 + merges for a tokenizer the book trained)."""
        return self._n_vocab

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of token ``token_id`` (half a character is possible: ``b"\\xe4"``).

        >>> ByteTokenizer().token_bytes(228)
        b'\\xe4'
        """
        return self._pieces([token_id])[0]

    def text_to_byte_ids(self, text: str) -> list[int]:
        """The ids of the single bytes of ``text`` (before any merge)."""
        return self.text_to_byte_ids_of(utf8_bytes(text))

    def text_to_byte_ids_of(self, data: bytes) -> list[int]:
        """The ids of the bytes ``data`` (before any merge)."""
        if self._translation is not None:
            return list(data.translate(self._translation))
        byte_ids = self.byte_ids
        return [byte_ids[byte] for byte in data]

    def encode(
        self, text: str, *, dropout: float | None = None, seed: int | random.Random = 0
    ) -> list[int]:
        """Ids of ``text``: its bytes, then the lowest-ranked pair merged until none is left.

        ``dropout`` (as in Hugging Face tokenizers' BPE; None: off) skips each candidate
        merge with that probability, drawing from ``seed`` (an int or a ``random.Random``):
        BPE-dropout, :mod:`book.tokenizers.bpe.dropout`.

        >>> tok = ByteTokenizer([((104, 105), 3)])
        >>> tok.encode("hi hi"), tok.encode("hi hi", dropout=1.0)
        ([256, 32, 256], [104, 105, 32, 104, 105])
        """
        symbols = self.text_to_byte_ids(text)
        if dropout is None:
            return merge_lowest_rank(symbols, self.ranks, self.new_ids)
        return merge_with_dropout(
            symbols, self.ranks, check_dropout(dropout), as_rng(seed), self.new_ids
        )

    def encode_by_replay(self, text: str) -> list[int]:
        """Ids of ``text`` by replaying every merge in training order (same as ``encode``)."""
        return replay_merges(self.text_to_byte_ids(text), self.merges, self.new_ids)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes that ``ids`` stand for."""
        return b"".join(self._pieces(ids))

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """The text of ``ids``; invalid UTF-8 becomes U+FFFD, or raises with ``errors="strict"``.

        >>> tok = ByteTokenizer()
        >>> ids = tok.encode("é")
        >>> ids, tok.decode(ids[:1])
        ([195, 169], '\\ufffd')
        """
        return decode_utf8(self._pieces(ids), errors)

    def trace(self, text: str) -> list[Step]:
        """The pieces (bytes) of ``text`` before any merge and after each merge that changed them.

        >>> tok = ByteTokenizer([((104, 105), 3)])
        >>> [(step.rank, step.pieces) for step in tok.trace("hi!")]
        [(None, (b'h', b'i', b'!')), (0, (b'hi', b'!'))]
        """
        chunks = [self.text_to_byte_ids(text)]
        return trace_chunks(chunks, self.merges, self.vocab.__getitem__, self.new_ids)

    def save(self, path: str | Path) -> None:
        """Write the tokenizer as the book's file (:mod:`book.tokenizers.formats.bpe_file`)."""
        write_bpe_file(path, None, {}, self.byte_ids, self.merges, self.new_ids)

    @classmethod
    def load(cls, path: str | Path) -> ByteTokenizer:
        """Read a file written by :meth:`save`."""
        saved = read_bpe_file(path)
        if saved.pattern is not None or saved.special_tokens:
            raise BPEFileError(
                path,
                None,
                "this file holds a regex tokenizer (it has a split pattern or special tokens); "
                "load it with RegexTokenizer.load",
            )
        return cls(saved.merges, saved.byte_ids, saved.new_ids)

    def _pieces(self, ids: Iterable[int]) -> list[bytes]:
        """The bytes of each id; unknown ids raise a clear error (the rule every decoder shares)."""
        return tokens_for_ids(self._id_to_bytes, ids, self.n_vocab)

    def _describe(self) -> dict[str, object]:
        return {"merges": len(self.merges)}


_BYTES_AND_MERGES = f"the {N_BYTES} byte tokens, then one token per merge"


def _check_model(byte_ids: Sequence[int], merges: Sequence[Merge], new_ids: Sequence[int]) -> None:
    """Reject byte orders and merges that would make ids ambiguous or undefined.

    A merge may join a token that a later merge makes, and several merges may make one token
    (Hugging Face's merges converted from tiktoken's ranks do both); every part must still be
    made by a byte or by some other merge, and a byte's id is never made by a merge.
    """
    if len(byte_ids) != N_BYTES or len(set(byte_ids)) != N_BYTES or not _ids(byte_ids):
        raise ValueError(
            "byte_ids must hold 256 distinct ids, one per byte (byte b gets byte_ids[b])"
        )
    if len(new_ids) != len(merges) or not _ids(new_ids):
        raise ValueError(f"new_ids must hold one id per merge ({len(merges)}), got {len(new_ids)}")
    bytes_ = set(byte_ids)
    seen: set = set()
    for rank, ((left, right), _count) in enumerate(merges):
        if new_ids[rank] in bytes_:
            raise ValueError(
                f"merge {rank} creates id {new_ids[rank]}, which is already a token's id"
            )
        if (left, right) in seen:
            pair = (left, right)
            raise ValueError(f"merge {rank} repeats the pair {pair}: each pair is merged once")
        seen.add((left, right))
    known = set(bytes_)
    pending = list(range(len(merges)))
    while pending:  # one pass when each merge joins tokens made before it, as training makes
        later = []
        for rank in pending:
            (left, right), _count = merges[rank]
            if left in known and right in known:
                known.add(new_ids[rank])
            else:
                later.append(rank)
        if len(later) == len(pending):
            rank = later[0]
            (left, right), _count = merges[rank]
            new = new_ids[rank]
            raise ValueError(
                f"merge {rank} (new id {new}) joins {(left, right)}: both parts must be ids "
                "that a byte or another merge makes"
                + (f" (here: below {new})" if new == N_BYTES + rank else "")
            )
        pending = later


def _check_same_tokens(vocab, merges: Sequence[Merge], new_ids: Sequence[int]) -> None:
    """Merges that make the same id must make the same bytes."""
    for rank, ((left, right), _count) in enumerate(merges):
        if vocab[left] + vocab[right] != vocab[new_ids[rank]]:
            raise ValueError(
                f"merge {rank} makes id {new_ids[rank]} from {vocab[left] + vocab[right]!r}, "
                f"but another merge makes it {vocab[new_ids[rank]]!r}: one id, one token"
            )


def _ids(values: Sequence[int]) -> bool:
    """Whether every value is a non-negative int (not a bool)."""
    return all(type(value) is int and value >= 0 for value in values)
