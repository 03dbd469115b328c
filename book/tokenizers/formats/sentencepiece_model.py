"""Read a SentencePiece ``.model`` file with our own protobuf reader (no ``sentencepiece`` import).

The file is one ``ModelProto`` message (``sentencepiece_model.proto`` in google/sentencepiece).
We read the parts that decide how text is segmented:

- field 1, the pieces in id order: each a ``SentencePiece`` message with ``piece`` (1, the
  text), ``score`` (2, a float: the piece's log-probability for a Unigram model) and ``type``
  (3: normal, unknown, control, user-defined, unused or byte);
- field 2, the ``TrainerSpec``: model type (3), vocabulary size (4), byte fallback (35), the
  unknown piece (45) and what decoding shows for it (44);
- field 3, the ``NormalizerSpec``: rule name (1), compiled normalization rules (2), and the
  three whitespace switches, ``add_dummy_prefix`` (3), ``remove_extra_whitespaces`` (4) and
  ``escape_whitespaces`` (5).

Other fields are skipped, as every protobuf reader skips fields it does not know.

>>> spec = parse_normalizer_spec(bytes([0x0A, 0x08]) + b"identity" + bytes([0x18, 0x00]))
>>> spec.name, spec.add_dummy_prefix, spec.remove_extra_whitespaces
('identity', False, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from book.tokenizers.base import UNK_TOKEN
from book.tokenizers.formats.protobuf import (
    FIXED32,
    LENGTH_DELIMITED,
    VARINT,
    ProtobufError,
    as_float,
    as_signed,
    fields,
)

UNK_SURFACE = " \u2047 "  # what SentencePiece's decoder shows for the unknown token: " ⁇ "
PIECE_TYPES = {1: "normal", 2: "unknown", 3: "control", 4: "user_defined", 5: "unused", 6: "byte"}
MODEL_TYPES = {1: "unigram", 2: "bpe", 3: "word", 4: "char"}
MODEL_PROTO_FIELDS = {
    1: "pieces",
    2: "trainer_spec",
    3: "normalizer_spec",
    4: "self_test_data",
    5: "denormalizer_spec",
}


class ModelFileError(ValueError):
    """The file is not a SentencePiece model, or not one this reader can use."""


@dataclass(frozen=True)
class ModelPiece:
    """One vocabulary entry: its text, its score and its type (see ``PIECE_TYPES``)."""

    piece: str
    score: float
    kind: str = "normal"


@dataclass(frozen=True)
class TrainerSpec:
    """The training options stored in the model that matter for encoding and decoding."""

    model_type: str = "unigram"
    vocab_size: int = 8000
    byte_fallback: bool = False
    treat_whitespace_as_suffix: bool = False
    unk_id: int = 0
    unk_piece: str = UNK_TOKEN
    unk_surface: str = UNK_SURFACE


@dataclass(frozen=True)
class NormalizerSpec:
    """How SentencePiece prepares text before segmenting it."""

    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


@dataclass(frozen=True)
class SentencePieceModel:
    """What a ``.model`` file holds: the pieces in id order and the two specs."""

    pieces: tuple[ModelPiece, ...]
    trainer: TrainerSpec
    normalizer: NormalizerSpec


def _text(raw: int | bytes, what: str) -> str:
    """A string field's bytes as text; a ProtobufError if they are not bytes of UTF-8."""
    if not isinstance(raw, bytes):
        raise ProtobufError(f"{what} should be a string but is stored as a number")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProtobufError(f"{what} is not valid UTF-8 ({error.reason})") from None


def _expect(wire_type: int, wanted: int, what: str) -> None:
    """Raise when a field is stored with another wire type than the schema gives it."""
    if wire_type != wanted:
        raise ProtobufError(f"{what} has wire type {wire_type}, the schema says {wanted}")


def parse_piece(data: bytes) -> ModelPiece:
    """One ``SentencePiece`` message.

    >>> parse_piece(bytes([0x0A, 0x01]) + b"a" + bytes([0x15, 0, 0, 0x80, 0xBF]))
    ModelPiece(piece='a', score=-1.0, kind='normal')
    """
    piece, score, kind = None, 0.0, "normal"
    for number, wire_type, value in fields(data):
        if number == 1:
            _expect(wire_type, LENGTH_DELIMITED, "a piece's text")
            piece = _text(value, "a piece's text")
        elif number == 2:
            _expect(wire_type, FIXED32, "a piece's score")
            score = as_float(value)
        elif number == 3:
            _expect(wire_type, VARINT, "a piece's type")
            if value not in PIECE_TYPES:
                raise ProtobufError(f"piece type {value} is not one of {sorted(PIECE_TYPES)}")
            kind = PIECE_TYPES[value]
    if not piece:
        raise ProtobufError("a piece has no text (SentencePiece requires every piece to have one)")
    return ModelPiece(piece, score, kind)


def parse_trainer_spec(data: bytes) -> TrainerSpec:
    """The fields of a ``TrainerSpec`` message that we use.

    >>> parse_trainer_spec(bytes([0x18, 0x02, 0x98, 0x02, 0x01])).model_type
    'bpe'
    """
    values: dict[str, object] = {}
    names = {
        3: "model_type",
        4: "vocab_size",
        35: "byte_fallback",
        24: "treat_whitespace_as_suffix",
        40: "unk_id",
        45: "unk_piece",
        44: "unk_surface",
    }
    for number, wire_type, value in fields(data):
        name = names.get(number)
        if name in ("unk_piece", "unk_surface"):
            values[name] = _text(value, f"trainer_spec.{name}")
        elif name is not None:
            _expect(wire_type, VARINT, f"trainer_spec.{name}")
            values[name] = as_signed(value)
    if "model_type" in values:
        values["model_type"] = MODEL_TYPES.get(values["model_type"], f"type {values['model_type']}")
    for flag in ("byte_fallback", "treat_whitespace_as_suffix"):
        if flag in values:
            values[flag] = bool(values[flag])
    return TrainerSpec(**values)


def parse_normalizer_spec(data: bytes) -> NormalizerSpec:
    """The fields of a ``NormalizerSpec`` message."""
    values: dict[str, object] = {}
    flags = {3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}
    for number, wire_type, value in fields(data):
        if number == 1:
            values["name"] = _text(value, "normalizer_spec.name")
        elif number == 2:
            _expect(wire_type, LENGTH_DELIMITED, "normalizer_spec.precompiled_charsmap")
            values["precompiled_charsmap"] = value
        elif number in flags:
            _expect(wire_type, VARINT, f"normalizer_spec.{flags[number]}")
            values[flags[number]] = bool(value)
    return NormalizerSpec(**values)


def parse_model(data: bytes) -> SentencePieceModel:
    """A ``ModelProto`` message; a ProtobufError says what does not fit the schema.

    >>> piece = bytes([0x0A, 0x05]) + b"<unk>" + bytes([0x18, 0x02])
    >>> parse_model(bytes([0x0A, len(piece)]) + piece).pieces
    (ModelPiece(piece='<unk>', score=0.0, kind='unknown'),)
    """
    pieces, trainer, normalizer = [], TrainerSpec(), NormalizerSpec()
    for number, wire_type, value in fields(data):
        if number not in MODEL_PROTO_FIELDS:
            raise ProtobufError(f"field {number} is not a field of a SentencePiece ModelProto")
        _expect(wire_type, LENGTH_DELIMITED, MODEL_PROTO_FIELDS[number])
        if number == 1:
            pieces.append(parse_piece(value))
        elif number == 2:
            trainer = parse_trainer_spec(value)
        elif number == 3:
            normalizer = parse_normalizer_spec(value)
    if not pieces:
        raise ProtobufError("it holds no pieces")
    return SentencePieceModel(tuple(pieces), trainer, normalizer)


def read_model(path: str | PathLike) -> SentencePieceModel:
    """Read a ``.model`` file written by SentencePiece's trainer.

    Raises :class:`ModelFileError` naming the file, what is wrong and what to do, e.g. for the
    ``.vocab`` file that the trainer writes next to the model (text, not a model).
    """
    path = Path(path)
    data = path.read_bytes()
    try:
        return parse_model(data)
    except ProtobufError as error:
        hint = (
            "Pass the binary <prefix>.model file that spm_train / SentencePieceTrainer.train wrote"
        )
        if data[:1] == b"<" and b"\t" in data[:200]:
            hint = (
                "This looks like the <prefix>.vocab file (one 'piece<TAB>score' per line); "
                "pass the <prefix>.model file written next to it"
            )
        raise ModelFileError(
            f"{path} is not a SentencePiece model file: {error}. {hint}."
        ) from None
