"""SentencePiece's conventions for text: spaces become ``▁``, and byte pieces for the unknown.

SentencePiece does not pre-tokenize. It treats the text as one sequence of characters in which
the space is a character like any other, written ``▁`` (U+2581, LOWER ONE EIGHTH BLOCK) so that
a piece such as ``▁the`` shows that it starts a word. With the default switches, it also
removes leading and trailing spaces, squeezes runs of spaces into one, and puts a ``▁`` in
front of the text (the "dummy prefix"), so that the first word looks like every other word.
Only U+0020 counts as a space here: tabs and newlines are ordinary characters.

>>> normalize("Hello  world ")
'▁Hello▁world'
>>> normalize("Hello  world ", add_dummy_prefix=False, remove_extra_whitespaces=False)
'Hello▁▁world▁'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from book.tokenizers.formats.sentencepiece_model import UNK_SURFACE, ModelPiece
from book.tokenizers.unigram.precompiled import PrecompiledCharsmap

SPACE = "\u2581"  # ▁, the visible space of SentencePiece pieces
BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def normalize(
    text: str,
    *,
    add_dummy_prefix: bool = True,
    remove_extra_whitespaces: bool = True,
    escape_whitespaces: bool = True,
    charsmap: PrecompiledCharsmap | None = None,
) -> str:
    """The text SentencePiece segments: spaces handled as the three switches say (see above).

    Follows ``Normalizer::Normalize`` of SentencePiece step by step: with the identity rule
    (no ``charsmap``) each character is kept; with compiled rules, each stretch of the text
    becomes what the rules make of it, and the switches see the spaces that result.

    >>> normalize("   "), normalize("a b", escape_whitespaces=False)
    ('', ' a b')
    """
    space = SPACE if escape_whitespaces else " "
    parts = list(text) if charsmap is None else charsmap.normalize_parts(text)
    start = 0
    if remove_extra_whitespaces:
        while start < len(parts) and parts[start] == " ":
            start += 1
    if start == len(parts):
        return ""
    out = [space] if add_dummy_prefix else []
    previous_was_space = remove_extra_whitespaces
    for part in parts[start:]:
        if previous_was_space:
            part = part.lstrip(" ")
        if part:
            out.append(part.replace(" ", space))
            previous_was_space = remove_extra_whitespaces and part.endswith(" ")
    normalized = "".join(out)
    if remove_extra_whitespaces:
        # SentencePiece strips the space marker at the end, even a literal ▁ the text held.
        while normalized.endswith(space):
            normalized = normalized[: -len(space)]
    return normalized


def byte_piece(byte: int) -> str:
    """The piece that stands for one byte when byte fallback is on.

    >>> byte_piece(0xE2), byte_piece(10)
    ('<0xE2>', '<0x0A>')
    """
    return f"<0x{byte:02X}>"


def piece_byte(piece: str) -> int | None:
    """The byte a piece like ``<0xE2>`` stands for, or None for any other piece.

    >>> piece_byte("<0xE2>"), piece_byte("▁the")
    (226, None)
    """
    match = BYTE_PIECE.fullmatch(piece)
    return int(match.group(1), 16) if match else None


def piece_bytes(piece: ModelPiece) -> bytes:
    """The UTF-8 bytes of a piece as stored; a byte piece ``<0xE2>`` is the one byte it names.

    >>> piece_bytes(ModelPiece("▁a", -1.0)), piece_bytes(ModelPiece("<0xE2>", 0.0, "byte"))
    (b'\\xe2\\x96\\x81a', b'\\xe2')
    """
    if piece.kind == "byte":
        return bytes([piece_byte(piece.piece)])
    return piece.piece.encode("utf-8")


def _char_length(lead: int) -> int:
    """The length of a UTF-8 character that starts with byte ``lead`` (1 if none can)."""
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 1


def decode_bytes(data: bytes) -> str:
    """Bytes from byte pieces as text, one U+FFFD per byte that does not start a whole character.

    That is how SentencePiece decodes a run of byte pieces; Python's ``errors="replace"``
    would show one U+FFFD for a whole cut-off character instead.

    >>> decode_bytes("é".encode() + b"\\xe2\\x82")
    'é��'
    """
    chars, pos = [], 0
    while pos < len(data):
        size = _char_length(data[pos])
        try:
            chars.append(data[pos : pos + size].decode("utf-8"))
            pos += size
        except UnicodeDecodeError:
            chars.append("\ufffd")
            pos += 1
    return "".join(chars)


def decode_pieces(
    pieces: Sequence[ModelPiece],
    *,
    add_dummy_prefix: bool = True,
    remove_extra_whitespaces: bool = True,
    unk_surface: str = UNK_SURFACE,
) -> str:
    """The text of ``pieces``, as SentencePiece decodes them (the switches as the model's).

    ``▁`` becomes a space, the space the dummy prefix added is dropped, control pieces
    vanish, the unknown piece shows as ``unk_surface`` (" ⁇ "), and byte pieces are joined
    into characters.

    >>> decode_pieces([ModelPiece("▁a", -1.0), ModelPiece("<0xC3>", 0.0, "byte"),
    ...                ModelPiece("<0xA9>", 0.0, "byte"), ModelPiece("<unk>", 0.0, "unknown")])
    'aé ⁇ '
    """
    text: list[str] = []
    pending = bytearray()  # bytes of byte pieces, decoded when a non-byte piece comes
    at_start = True  # whether a leading ▁ is still the one the dummy prefix added
    for p in pieces:
        if p.kind == "byte":
            pending.append(piece_byte(p.piece))
            continue
        if pending:
            text.append(decode_bytes(bytes(pending)))
            pending.clear()
        if text and text[-1]:  # something was written: no dummy prefix any more
            at_start = False
        if p.kind == "control":
            continue
        piece, consumed = p.piece, False
        if at_start and (add_dummy_prefix or remove_extra_whitespaces):
            consumed = piece.startswith(SPACE)
            piece = piece.removeprefix(SPACE)
            consumed = consumed and not remove_extra_whitespaces
        text.append(unk_surface if p.kind == "unknown" else piece.replace(SPACE, " "))
        if consumed or text[-1]:
            at_start = False
    if pending:
        text.append(decode_bytes(bytes(pending)))
    return "".join(text)
