"""SentencePiece's BPE: pieces with scores, merged best first, and bytes for the rest.

Llama 2, Phi-3 and Baichuan encode this way (``tokenizer.ggml.model = "llama"`` in llama.cpp's
GGUF files) [Kudo & Richardson 2018]. There is no merge list: the text, spaces written ``▁`` and a
``▁`` put in front (the dummy prefix), starts as characters, and the adjacent pair whose join
is the piece with the highest score is joined, again and again (``bpe_model.cc``;
:func:`~book.tokenizers.bpe.core.merge_best_first`). A character no piece holds becomes the
pieces of its UTF-8 bytes, ``<0xE2>`` ... (byte fallback).

Gemma 4 (``"gemma4"``) keeps the pieces and the byte fallback but ranks pairs by a merge list,
as byte-level BPE does, puts no dummy prefix, and cuts the text into runs of newlines and
runs of anything else first (llama.cpp's ``llm_tokenizer_bpe_session``).

User-defined pieces are matched whole in the text before anything else; control pieces
(``<s>``) never come from text: ``encode(text, add_special_tokens=True)`` adds the BOS and EOS
pieces the model asks for.

>>> pieces = [ModelPiece("<unk>", 0.0, "unknown")]
>>> pieces += [ModelPiece(byte_piece(b), 0.0, "byte") for b in range(256)]
>>> pieces += [ModelPiece(p, -i) for i, p in enumerate(["▁", "h", "i", "hi", "▁hi"])]
>>> tok = SentencePieceBPE(pieces)
>>> tok.tokenize("hi hi!"), tok.encode("hi hi!"), tok.decode([261, 261, 34])
(['▁hi', '▁hi', '<0x21>'], [261, 261, 34], 'hi hi!')
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from book.tokenizers.base import N_BYTES, AddedSpecialTokens, StrVocabulary
from book.tokenizers.bpe.core import merge_best_first, utf8_bytes
from book.tokenizers.bpe.patterns import special_token_regex
from book.tokenizers.errors import tokens_for_ids
from book.tokenizers.formats.gguf import GgufVocabulary
from book.tokenizers.formats.gguf_pieces import gguf_pieces
from book.tokenizers.formats.sentencepiece_model import UNK_SURFACE, ModelPiece
from book.tokenizers.unigram.sentencepiece_text import (
    SPACE,
    byte_piece,
    decode_pieces,
    piece_byte,
    piece_bytes,
)

# Gemma 4's cut before merging: runs of newlines, and runs of anything else (llama.cpp,
# LLAMA_VOCAB_PRE_TYPE_GEMMA4), so that no merge joins text across a line break.
GEMMA4_PATTERN = r"[^\n]+|\n+"
GGUF_MODELS = ("llama", "gemma4")  # tokenizer.ggml.model values this tokenizer reads


class SentencePieceBPE(AddedSpecialTokens, StrVocabulary):
    """A BPE over ``▁`` pieces: pieces by id (with scores and kinds) and the switches.

    Without ``merges``, a pair's priority is the score of the piece it makes (SentencePiece's
    BPE); with ``merges`` (pairs of pieces in rank order) it is the merge's rank (Gemma 4).
    ``add_dummy_prefix`` puts ``▁`` before the text (and after each user-defined piece, as
    llama.cpp does); ``pattern`` cuts the text into chunks first. ``bos_id``/``eos_id`` and
    ``add_bos_token``/``add_eos_token`` say what ``add_special_tokens=True`` adds.

    It is read from a model's files (:meth:`from_gguf`), not trained: the book trains its own
    BPE byte-level (``RegexTokenizer``), and SentencePiece's trainer is SentencePiece's.
    """

    def __init__(
        self,
        pieces: Sequence[ModelPiece],
        *,
        merges: Sequence[tuple[str, str]] | None = None,
        add_dummy_prefix: bool = True,
        pattern: str | None = None,
        bos_id: int | None = None,
        eos_id: int | None = None,
        add_bos_token: bool = False,
        add_eos_token: bool = False,
        unk_surface: str = UNK_SURFACE,
    ):
        self.pieces = list(pieces)
        self.vocab = [p.piece for p in self.pieces]
        if len(self.token_to_id) != len(self.vocab):
            twice = next(p for p, n in Counter(self.vocab).items() if n > 1)
            raise ValueError(f"the piece {twice!r} occurs twice; each piece needs one id")
        self.set_added_special_tokens(bos_id, eos_id, add_bos_token, add_eos_token, len(self.vocab))
        byte_ids = {piece_byte(p.piece): i for i, p in enumerate(self.pieces) if p.kind == "byte"}
        if len(byte_ids) != N_BYTES:
            missing = sorted(set(range(N_BYTES)) - set(byte_ids))
            raise ValueError(
                f"byte fallback needs the 256 byte pieces <0x00> .. <0xFF>; {len(missing)} "
                f"are missing, e.g. {byte_piece(missing[0])}"
            )
        self.byte_ids = [byte_ids[b] for b in range(N_BYTES)]
        self.merges = None if merges is None else list(merges)
        self.add_dummy_prefix = add_dummy_prefix
        self.pattern = pattern
        self._chunks = None if pattern is None else re.compile(pattern)
        self.unk_surface = unk_surface
        self.user_defined = frozenset(p.piece for p in self.pieces if p.kind == "user_defined")
        if self.merges is None:
            scores = {p.piece: p.score for p in self.pieces}
            get_score = scores.get

            def priority(left: str, right: str) -> float | None:
                score = get_score(left + right)
                return None if score is None else -score

        else:
            ranks: dict[tuple[str, str], int] = {}
            for rank, (left, right) in enumerate(self.merges):
                ranks.setdefault((left, right), rank)  # a repeated merge keeps its first rank
            get_rank = ranks.get

            def priority(left: str, right: str) -> float | None:
                return get_rank((left, right))

        self._priority = priority

    @classmethod
    def from_gguf(cls, vocabulary: GgufVocabulary) -> SentencePieceBPE:
        """The tokenizer of a GGUF vocabulary of model ``llama`` or ``gemma4``.

        Where the file is silent, llama.cpp's defaults: a dummy prefix for ``llama`` (none for
        ``gemma4``), BOS added and EOS not; BOS is always added for Gemma 4, as llama.cpp does.
        """
        if vocabulary.model not in GGUF_MODELS:
            raise ValueError(
                f"{vocabulary.path}: tokenizer model {vocabulary.model!r} is not SentencePiece "
                f"BPE ({' or '.join(map(repr, GGUF_MODELS))}); read it with the builder for "
                "its model type"
            )
        gemma4 = vocabulary.model == "gemma4"
        if gemma4 and not vocabulary.merges:
            raise ValueError(
                f"{vocabulary.path}: a gemma4 vocabulary needs its merges; it has none"
            )
        add_bos = True if gemma4 or vocabulary.add_bos is None else vocabulary.add_bos
        prefix = vocabulary.add_space_prefix
        return cls(
            gguf_pieces(vocabulary),
            merges=vocabulary.merges if gemma4 else None,
            add_dummy_prefix=not gemma4 if prefix is None else prefix,
            pattern=GEMMA4_PATTERN if gemma4 else None,
            bos_id=vocabulary.special_ids.get("bos"),
            eos_id=vocabulary.special_ids.get("eos"),
            add_bos_token=add_bos,
            add_eos_token=bool(vocabulary.add_eos),
        )

    def _parts(self, text: str) -> list[tuple[str, bool]]:
        """``text`` cut at its user-defined pieces: (part, whether it is one)."""
        if not self.user_defined:
            return [(text, False)] if text else []
        parts = special_token_regex(self.user_defined).split(text)
        return [(part, i % 2 == 1) for i, part in enumerate(parts) if part or i % 2]

    def _merge(self, text: str) -> list[str]:
        """The pieces of an already escaped text: merged best first, chunk by chunk."""
        chunks = [text] if self._chunks is None else self._chunks.findall(text)
        pieces = []
        for chunk in chunks:
            if self._chunks is not None and chunk[0] == "\n" and chunk in self.token_to_id:
                pieces.append(chunk)  # a run of newlines with a piece of its own (Gemma 4)
            else:
                pieces += merge_best_first(list(chunk), self._priority)
        return pieces

    def tokenize(self, text: str) -> list[str]:
        """The pieces of ``text``; a character no piece holds shows as its byte pieces."""
        return [self.vocab[i] for i in self.encode(text)]

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """The ids of ``text``; ``add_special_tokens=True`` adds BOS/EOS as the model asks."""
        if not isinstance(text, str):
            raise TypeError(f"expected a str, got {type(text).__name__}")
        utf8_bytes(text)  # a lone surrogate has no bytes: say so before merging anything
        ids = []
        after_special = True  # llama.cpp puts the dummy prefix after each user-defined piece
        for part, user_defined in self._parts(text):
            if user_defined:
                ids.append(self.token_to_id[part])
                after_special = True
                continue
            prefix = " " if self.add_dummy_prefix and after_special else ""
            for piece in self._merge((prefix + part).replace(" ", SPACE)):
                token_id = self.token_to_id.get(piece)
                if token_id is None:
                    ids += [self.byte_ids[b] for b in piece.encode("utf-8")]
                else:
                    ids.append(token_id)
            after_special = False
        return self.with_special_tokens(ids) if add_special_tokens else ids

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids`` as SentencePiece decodes it (control pieces left out)."""
        return decode_pieces(
            tokens_for_ids(self.pieces, list(ids), self.n_vocab),
            add_dummy_prefix=self.add_dummy_prefix,
            remove_extra_whitespaces=False,
            unk_surface=self.unk_surface,
        )

    def token_bytes(self, token_id: int) -> bytes:
        """The UTF-8 bytes of a piece as stored; a byte piece ``<0xE2>`` is the byte itself."""
        return piece_bytes(tokens_for_ids(self.pieces, [token_id], self.n_vocab)[0])

    def _describe(self) -> dict[str, object]:
        return {"merges": None if self.merges is None else len(self.merges)}
