"""A ``GgufVocabulary`` made in memory, for the builders' tests that need no file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from book.tokenizers.formats.gguf import TOKEN_TYPES, GgufVocabulary
from book.tokenizers.formats.sentencepiece_model import ModelPiece

TYPE_NUMBERS = {kind: number for number, kind in TOKEN_TYPES.items()}


def fake_vocabulary(model: str, pieces: Sequence[ModelPiece], **fields) -> GgufVocabulary:
    """A vocabulary of ``model`` holding ``pieces``; ``fields`` replace any other field."""
    values = {
        "path": Path("v.gguf"),
        "version": 3,
        "model": model,
        "pre": None,
        "tokens": tuple(p.piece for p in pieces),
        "scores": tuple(p.score for p in pieces),
        "token_types": tuple(TYPE_NUMBERS[p.kind] for p in pieces),
        "merges": (),
        "special_ids": {},
        "add_bos": None,
        "add_eos": None,
        "add_space_prefix": None,
        "chat_template": None,
        "metadata": {},
    }
    return GgufVocabulary(**{**values, **fields})
