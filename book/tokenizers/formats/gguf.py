"""Read the vocabulary of a GGUF file (llama.cpp's model format) straight from its bytes.

A GGUF file is a header, then typed key/value metadata, then tensor descriptions and tensor
data (the GGUF specification, ``docs/gguf.md`` in ggml-org/ggml)::

    b"GGUF"  uint32 version (2 or 3)  uint64 tensor count  uint64 metadata count
    metadata count times:  string key  uint32 value type  value
    (tensor infos and tensor data: never read here)

A string is a uint64 byte length and UTF-8 bytes; an array is a uint32 item type, a uint64
count and the items. Everything is little-endian (a big-endian file is recognised by its
byte-swapped version and read as such). The tokenizer is the ``tokenizer.*`` keys:
``tokenizer.ggml.model`` (``gpt2``, ``llama``, ``bert``, ``t5``, ...), ``tokenizer.ggml.pre``
(which split pattern), the tokens, scores, token types and merges by id, the special tokens'
ids, and the chat template. This module reads them as plain data; the tokenizers are built
from a :class:`GgufVocabulary` elsewhere.

>>> header = b"GGUF" + (3).to_bytes(4, "little") + bytes(16)
>>> read_gguf_metadata_bytes(header, "empty.gguf")
{'GGUF.version': 3}
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)  # version 1 used 32-bit lengths and is long obsolete

# Value types of the specification (``gguf_type`` in ggml's gguf.h), as struct codes.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY = range(10)
UINT64, INT64, FLOAT64 = 10, 11, 12
SCALAR_CODES = {
    UINT8: "B",
    INT8: "b",
    UINT16: "H",
    INT16: "h",
    UINT32: "I",
    INT32: "i",
    FLOAT32: "f",
    BOOL: "?",
    UINT64: "Q",
    INT64: "q",
    FLOAT64: "d",
}

# ``llama_token_type`` in llama.cpp's llama.h: what each entry of tokenizer.ggml.token_type means.
TOKEN_TYPES = {
    0: "undefined",
    1: "normal",
    2: "unknown",
    3: "control",
    4: "user_defined",
    5: "unused",
    6: "byte",
}

# tokenizer.ggml.<name>_token_id keys whose names the book shortens (llama.cpp spells "seperator").
SPECIAL_NAMES = {"unknown": "unk", "seperator": "sep", "padding": "pad"}


class GgufError(ValueError):
    """A GGUF file could not be read as a vocabulary; the message names the file and the fault.

    >>> print(GgufError("x.gguf", "not a GGUF file"))
    x.gguf: not a GGUF file
    """

    def __init__(self, path, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


@dataclass(frozen=True, eq=False)
class GgufVocabulary:
    """Every ``tokenizer.*`` key of a GGUF file, plus the file's other metadata.

    ``tokens[i]`` is the token with id ``i`` as the file stores it (byte-level BPE tokens in
    GPT-2's byte-to-unicode form, SentencePiece pieces with ``▁``); ``scores`` and
    ``token_types`` (see ``TOKEN_TYPES``) are by id too, or ``None`` when the file has none.
    ``merges`` are (left, right) token pairs in rank order. ``special_ids`` maps a short name
    (``bos``, ``eos``, ``unk``, ``sep``, ``pad``, ``mask``, ``eot``, ``eom``, ``fim_pre``, ...)
    to its id. ``add_bos``, ``add_eos`` and ``add_space_prefix`` are ``None`` when the file does
    not say. ``metadata`` holds every key of the file (``general.*`` too) with its value.
    """

    path: Path
    version: int
    model: str
    pre: str | None
    tokens: tuple[str, ...]
    scores: tuple[float, ...] | None
    token_types: tuple[int, ...] | None
    merges: tuple[tuple[str, str], ...]
    special_ids: dict[str, int]
    add_bos: bool | None
    add_eos: bool | None
    add_space_prefix: bool | None
    chat_template: str | None
    metadata: dict[str, object] = field(repr=False)

    def __repr__(self) -> str:
        return (
            f"GgufVocabulary({self.path.name!r}, model={self.model!r}, pre={self.pre!r}, "
            f"{len(self.tokens)} tokens, {len(self.merges)} merges)"
        )


class _Reader:
    """A cursor over the file's bytes; running past the end is a truncation error."""

    def __init__(self, data, path, endian: str = "<"):
        self.data = data
        self.path = path
        self.endian = endian
        self.pos = 0
        self.u64 = struct.Struct(endian + "Q").unpack_from

    def need(self, size: int, what: str) -> None:
        if self.pos + size > len(self.data):
            raise self.truncated(what)

    def truncated(self, what: str) -> GgufError:
        return GgufError(
            self.path,
            f"truncated: the file ends at byte {len(self.data)} while reading {what} "
            f"(at byte {self.pos}). The file is incomplete: download or copy it again.",
        )

    def scalar(self, code: str, what: str):
        size = struct.calcsize(code)
        self.need(size, what)
        (value,) = struct.unpack_from(self.endian + code, self.data, self.pos)
        self.pos += size
        return value

    def string(self, what: str) -> str:
        self.need(8, what)
        (size,) = self.u64(self.data, self.pos)
        self.pos += 8
        self.need(size, what)
        raw = self.data[self.pos : self.pos + size]
        self.pos += size
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise GgufError(self.path, f"{what} is not valid UTF-8 ({error})") from None

    def strings(self, count: int, what: str) -> tuple[str, ...]:
        # The hot loop of a 262k-token, 514k-merge file: no method calls per item.
        data, u64, pos, end = self.data, self.u64, self.pos, len(self.data)
        out = []
        append = out.append
        try:
            for _ in range(count):
                (size,) = u64(data, pos)
                pos += 8
                if pos + size > end:
                    break
                append(data[pos : pos + size].decode("utf-8"))
                pos += size
        except struct.error:
            pass
        except UnicodeDecodeError as error:
            raise GgufError(
                self.path, f"item {len(out)} of {what} is not valid UTF-8 ({error})"
            ) from None
        self.pos = pos
        if len(out) < count:
            raise self.truncated(f"item {len(out)} of {what}")
        return tuple(out)

    def value(self, kind: int, what: str):
        if kind in SCALAR_CODES:
            return self.scalar(SCALAR_CODES[kind], what)
        if kind == STRING:
            return self.string(what)
        if kind == ARRAY:
            item_kind = self.scalar("I", what)
            count = self.scalar("Q", what)
            if item_kind == STRING:
                return self.strings(count, what)
            if item_kind in SCALAR_CODES:
                code = SCALAR_CODES[item_kind]
                size = struct.calcsize(code) * count
                self.need(size, what)
                items = struct.unpack_from(f"{self.endian}{count}{code}", self.data, self.pos)
                self.pos += size
                return items
            return tuple(self.value(item_kind, f"item {i} of {what}") for i in range(count))
        raise GgufError(
            self.path,
            f"{what} has value type {kind}, which the GGUF specification does not define "
            "(0-12): the file is corrupt or from a newer GGUF version",
        )


def read_gguf_metadata_bytes(data, path="<bytes>") -> dict[str, object]:
    """All metadata key/values of a GGUF file's bytes (``data``), stopping before the tensors."""
    if len(data) < 4 or data[:4] != MAGIC:
        raise GgufError(
            path,
            f"not a GGUF file: it starts with {bytes(data[:4])!r}, not b'GGUF'. "
            "Pass a llama.cpp .gguf file (e.g. models/ggml-vocab-*.gguf).",
        )
    # A small version stored big-endian starts with zero bytes: the same layout, bytes swapped.
    reader = _Reader(data, path, ">" if data[4:6] == b"\0\0" else "<")
    reader.pos = 4
    version = reader.scalar("I", "the version")
    if version not in SUPPORTED_VERSIONS:
        raise GgufError(
            path,
            f"GGUF version {version} is not supported (the book reads versions "
            f"{', '.join(map(str, SUPPORTED_VERSIONS))}); convert the file with a current "
            "llama.cpp.",
        )
    reader.scalar("Q", "the tensor count")
    count = reader.scalar("Q", "the metadata count")
    metadata: dict[str, object] = {"GGUF.version": version}
    for index in range(count):
        key = reader.string(f"the key of metadata entry {index}")
        kind = reader.scalar("I", f"the value type of {key!r}")
        metadata[key] = reader.value(kind, repr(key))
    return metadata


def read_gguf_metadata(path: str | PathLike) -> dict[str, object]:
    """All metadata key/values of the GGUF file at ``path`` (its tensor data is never read).

    The key ``"GGUF.version"`` holds the file's format version.
    """
    path = Path(path)
    try:
        with open(path, "rb") as file:
            if path.stat().st_size == 0:
                return read_gguf_metadata_bytes(b"", path)
            # Memory-mapped: a multi-gigabyte model file costs only the pages the metadata uses.
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return read_gguf_metadata_bytes(data, path)
    except FileNotFoundError:
        raise GgufError(path, "no such file") from None


def _special_ids(metadata: dict[str, object]) -> dict[str, int]:
    """``tokenizer.ggml.<name>_token_id`` keys as {short name: id}."""
    found = {}
    for key, value in metadata.items():
        if key.startswith("tokenizer.ggml.") and key.endswith("_token_id"):
            name = key[len("tokenizer.ggml.") : -len("_token_id")]
            found[SPECIAL_NAMES.get(name, name)] = value
    return found


def _merges(raw, tokens: set[str], path) -> tuple[tuple[str, str], ...]:
    """Merge lines ``"left right"`` as pairs; each part must be a token."""
    merges = tuple(tuple(line.split(" ")) for line in raw)
    if all(len(pair) == 2 for pair in merges) and {p for pair in merges for p in pair} <= tokens:
        return merges  # the usual case, checked at C speed; below, the first fault is named
    for rank, pair in enumerate(merges):
        line = " ".join(pair)
        if len(pair) != 2:
            raise GgufError(
                path, f"merge {rank} ({line!r}) is not two tokens separated by one space"
            )
        for part in pair:
            if part not in tokens:
                raise GgufError(
                    path,
                    f"merge {rank} ({line!r}) names {part!r}, which is not a token of the "
                    "vocabulary: the merges do not belong to these tokens",
                )
    raise AssertionError("unreachable: a fault was found above")


def _check_unique(tokens: tuple[str, ...], path) -> set[str]:
    """The tokens as a set; a token listed twice is an error naming both ids."""
    unique = set(tokens)
    if len(unique) < len(tokens):
        first: dict[str, int] = {}
        for token_id, token in enumerate(tokens):
            if token in first:
                raise GgufError(
                    path,
                    f"duplicate token {token!r} at ids {first[token]} and {token_id}: "
                    "a token must have one id",
                )
            first[token] = token_id
    return unique


def read_gguf_vocabulary(path: str | PathLike) -> GgufVocabulary:
    """The tokenizer of the GGUF file at ``path``, checked: tokens unique, merges over tokens."""
    path = Path(path)
    metadata = read_gguf_metadata(path)
    if "tokenizer.ggml.model" not in metadata or "tokenizer.ggml.tokens" not in metadata:
        raise GgufError(
            path,
            "the file holds no tokenizer (no tokenizer.ggml.model or tokenizer.ggml.tokens "
            "key); pass a GGUF file converted with its vocabulary",
        )
    tokens = metadata["tokenizer.ggml.tokens"]
    unique = _check_unique(tokens, path)
    for key in ("tokenizer.ggml.scores", "tokenizer.ggml.token_type"):
        if key in metadata and len(metadata[key]) != len(tokens):
            raise GgufError(
                path, f"{key} has {len(metadata[key])} entries but there are {len(tokens)} tokens"
            )
    special_ids = _special_ids(metadata)
    for name, token_id in special_ids.items():
        if not 0 <= token_id < len(tokens):
            raise GgufError(
                path, f"the {name} token id {token_id} is outside the {len(tokens)} tokens"
            )
    return GgufVocabulary(
        path=path,
        version=metadata["GGUF.version"],
        model=metadata["tokenizer.ggml.model"],
        pre=metadata.get("tokenizer.ggml.pre"),
        tokens=tokens,
        scores=metadata.get("tokenizer.ggml.scores"),
        token_types=metadata.get("tokenizer.ggml.token_type"),
        merges=_merges(metadata.get("tokenizer.ggml.merges", ()), unique, path),
        special_ids=special_ids,
        add_bos=metadata.get("tokenizer.ggml.add_bos_token"),
        add_eos=metadata.get("tokenizer.ggml.add_eos_token"),
        add_space_prefix=metadata.get("tokenizer.ggml.add_space_prefix"),
        chat_template=metadata.get("tokenizer.chat_template"),
        metadata=metadata,
    )
