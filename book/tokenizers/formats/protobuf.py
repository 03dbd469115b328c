"""A tiny reader of the protocol-buffer wire format: just enough to read a SentencePiece model.

A protobuf message is a flat run of fields. Each field starts with a *tag*, a varint holding
``field_number << 3 | wire_type``; the wire type says how long the value is:

- 0: a varint (ints, bools, enums), 7 bits per byte, high bit set while more bytes follow;
- 1: 8 bytes (a double or fixed64), little-endian;
- 2: a varint length, then that many bytes (strings, bytes, and nested messages);
- 5: 4 bytes (a float or fixed32), little-endian.

Nothing in the bytes says which fields a message has or what they mean: that is the schema's
job (``sentencepiece_model.proto``), so
:mod:`book.tokenizers.formats.sentencepiece_model` names them.

>>> list(fields(bytes([0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69])))
[(1, 0, 150), (2, 2, b'hi')]
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5


class ProtobufError(ValueError):
    """The bytes are not a well-formed protobuf message (truncated, or not protobuf at all)."""


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The varint starting at ``pos`` and the position just after it.

    >>> read_varint(bytes([0x96, 0x01]), 0)
    (150, 2)
    """
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise ProtobufError(f"a varint runs past the end of the data (at byte {pos})")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift >= 64:
            raise ProtobufError(f"a varint is longer than 10 bytes (ending at byte {pos})")


def _take(data: bytes, pos: int, size: int, what: str) -> tuple[bytes, int]:
    """``size`` bytes from ``pos`` and the position after them, or an error if truncated."""
    if pos + size > len(data):
        raise ProtobufError(
            f"{what} of {size} bytes at byte {pos} runs past the end of the data "
            f"({len(data)} bytes): the message is truncated"
        )
    return data[pos : pos + size], pos + size


def fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Each field of a message as (field number, wire type, value), in the order stored.

    Varints come back as ints, the other wire types as their raw bytes.

    >>> list(fields(bytes([0x15, 0x00, 0x00, 0x80, 0x3F])))
    [(2, 5, b'\\x00\\x00\\x80?')]
    """
    pos = 0
    while pos < len(data):
        tag, pos = read_varint(data, pos)
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            raise ProtobufError(f"field number 0 at byte {pos} (no protobuf field has it)")
        if wire_type == VARINT:
            value, pos = read_varint(data, pos)
        elif wire_type == FIXED64:
            value, pos = _take(data, pos, 8, "a 64-bit field")
        elif wire_type == LENGTH_DELIMITED:
            size, pos = read_varint(data, pos)
            value, pos = _take(data, pos, size, f"field {number}")
        elif wire_type == FIXED32:
            value, pos = _take(data, pos, 4, "a 32-bit field")
        else:
            raise ProtobufError(
                f"field {number} has wire type {wire_type}, which is not 0, 1, 2 or 5"
            )
        yield number, wire_type, value


def as_float(raw: bytes) -> float:
    """A 32-bit field's bytes as the float they store.

    >>> as_float(bytes([0x00, 0x00, 0x80, 0x3F]))
    1.0
    """
    return struct.unpack("<f", raw)[0]


def as_signed(value: int) -> int:
    """A varint read back as a (two's complement) int32/int64: negative ids are stored so.

    >>> as_signed(2**64 - 1)
    -1
    """
    return value - (1 << 64) if value >= 1 << 63 else value
