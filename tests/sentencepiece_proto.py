"""Write a SentencePiece ``ModelProto`` from pieces, so that ``sentencepiece`` can load them.

The tests build a model from a GGUF vocabulary and compare the book's tokenizer with
SentencePiece's own on the same pieces and switches. Only the fields SentencePiece needs to
encode are written (``sentencepiece_model.proto``): the pieces (1), the trainer spec's model
type (3), vocabulary size (4) and byte fallback (35), and the normalizer spec's rule name (1),
compiled rules (2) and whitespace switches (3-5).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from book.tokenizers.formats.sentencepiece_model import PIECE_TYPES, ModelPiece

TYPE_NUMBERS = {kind: number for number, kind in PIECE_TYPES.items()}
UNIGRAM, BPE = 1, 2


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _number(field: int, n: int) -> bytes:
    return _varint(field << 3) + _varint(n)


def _message(field: int, data: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def _float(field: int, x: float) -> bytes:
    return _varint(field << 3 | 5) + struct.pack("<f", x)


def model_proto(
    pieces: Sequence[ModelPiece],
    model_type: int,
    *,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    precompiled_charsmap: bytes = b"",
) -> bytes:
    """The serialized model: ``pieces`` in id order, ``model_type`` ``UNIGRAM`` or ``BPE``."""
    out = bytearray()
    for p in pieces:
        piece = (
            _message(1, p.piece.encode()) + _float(2, p.score) + _number(3, TYPE_NUMBERS[p.kind])
        )
        out += _message(1, piece)
    byte_fallback = any(p.kind == "byte" for p in pieces)
    out += _message(
        2, _number(3, model_type) + _number(4, len(pieces)) + _number(35, byte_fallback)
    )
    name = b"nmt_nfkc" if precompiled_charsmap else b"identity"
    rules = _message(2, precompiled_charsmap) if precompiled_charsmap else b""
    switches = _number(3, add_dummy_prefix) + _number(4, remove_extra_whitespaces) + _number(5, 1)
    out += _message(3, _message(1, name) + rules + switches)
    return bytes(out)
