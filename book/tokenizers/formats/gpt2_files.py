"""GPT-2's tokenizer files, ``vocab.json`` and ``merges.txt``, and their byte-to-unicode table.

GPT-2 (2019) stored its byte-level BPE as text. Tokens are bytes, and many bytes are not
printable, so each byte is written as one printable character: the 188 printable Latin-1
bytes as themselves, the other 68 (controls, space, ...) shifted past 255 in byte order, so
a space is ``Ġ`` and a newline ``Ċ``. ``vocab.json`` maps each token written that way to its
id; ``merges.txt`` lists the merges in rank order, one ``left right`` pair per line, after a
``#version: 0.2`` line. Hugging Face ``tokenizers`` reads the same two files.

>>> token_text(b" the"), token_bytes_of("Ġthe")
('Ġthe', b' the')
>>> print(merges_text([(b" ", b"t"), (b"h", b"e")]), end="")
#version: 0.2
Ġ t
h e
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

from book.tokenizers.errors import BPEFileError

MERGES_HEADER = "#version: 0.2"
VOCAB_FILE, MERGES_FILE = "vocab.json", "merges.txt"


@cache
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from bytes to printable characters (space -> 'Ġ').

    >>> table = bytes_to_unicode()
    >>> table[ord("a")], table[32], table[10], len(set(table.values()))
    ('a', 'Ġ', 'Ċ', 256)
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    table = {byte: chr(byte) for byte in printable}
    # The remaining bytes (controls, space, ...) are shifted past 255, in byte order.
    for offset, byte in enumerate(b for b in range(256) if b not in table):
        table[byte] = chr(256 + offset)
    return table


@cache
def unicode_to_bytes() -> dict[str, int]:
    """The inverse table: character -> byte.

    >>> unicode_to_bytes()["Ġ"]
    32
    """
    return {char: byte for byte, char in bytes_to_unicode().items()}


def token_text(token: bytes) -> str:
    """A token as GPT-2's files write it: one character per byte.

    >>> token_text("é".encode())
    'Ã©'
    """
    table = bytes_to_unicode()
    return "".join(table[byte] for byte in token)


def token_bytes_of(text: str) -> bytes:
    """The bytes a token written in GPT-2's files stands for; KeyError names a stray character.

    >>> token_bytes_of("Ã©").decode()
    'é'
    """
    table = unicode_to_bytes()
    try:
        return bytes(table[char] for char in text)
    except KeyError as error:
        char = error.args[0]
        raise KeyError(f"{char!r} (U+{ord(char):04X}) is not in GPT-2's byte table") from None


def vocab_text(vocab: Mapping[int, bytes]) -> str:
    """``vocab.json``: ``{token as text: id}`` in id order, as GPT-2's ``encoder.json`` has it."""
    return json.dumps({token_text(vocab[token_id]): token_id for token_id in sorted(vocab)})


def merges_text(merges: Sequence[tuple[bytes, bytes]]) -> str:
    """``merges.txt``: the version line, then ``left right`` per merge in rank order."""
    lines = [MERGES_HEADER, *(f"{token_text(a)} {token_text(b)}" for a, b in merges)]
    return "\n".join(lines) + "\n"


def write_gpt2_files(
    directory: str | Path, vocab: Mapping[int, bytes], merges: Sequence[tuple[bytes, bytes]]
) -> tuple[Path, Path]:
    """Write ``vocab.json`` and ``merges.txt`` into ``directory``; their paths."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    vocab_path, merges_path = folder / VOCAB_FILE, folder / MERGES_FILE
    vocab_path.write_text(vocab_text(vocab), encoding="utf-8")
    merges_path.write_text(merges_text(merges), encoding="utf-8")
    return vocab_path, merges_path


def read_gpt2_files(
    vocab_path: str | Path, merges_path: str | Path
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """``(vocab, merges)`` as bytes from GPT-2-style files; a bad line is a :class:`BPEFileError`.

    >>> import tempfile
    >>> paths = write_gpt2_files(tempfile.mkdtemp(), {0: b"a", 1: b"b", 2: b"ab"}, [(b"a", b"b")])
    >>> read_gpt2_files(*paths)
    ({0: b'a', 1: b'b', 2: b'ab'}, [(b'a', b'b')])
    """
    entries = _read_json(vocab_path)
    vocab: dict[int, bytes] = {}
    for text, token_id in entries.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise BPEFileError(vocab_path, None, f"the id of {text!r} must be an int >= 0")
        vocab[token_id] = _token(vocab_path, None, text)
    merges = []
    for number, line in enumerate(_read_text(merges_path).splitlines(), start=1):
        if not line.strip() or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise BPEFileError(
                merges_path, number, f"expected two tokens separated by one space: {line[:60]!r}"
            )
        merges.append(
            (_token(merges_path, number, parts[0]), _token(merges_path, number, parts[1]))
        )
    return vocab, merges


def _read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise BPEFileError(
            path, None, f"not UTF-8 text (byte {error.start}): {error.reason}"
        ) from None


def _read_json(path: str | Path) -> dict:
    try:
        entries = json.loads(_read_text(path))
    except json.JSONDecodeError as error:
        raise BPEFileError(path, error.lineno, f"not valid JSON: {error.msg}") from None
    if not isinstance(entries, dict):
        raise BPEFileError(path, None, "expected a JSON object {token: id}")
    return entries


def _token(path, line: int | None, text: str) -> bytes:
    """The bytes of one token written in a file, or an error that says where and why."""
    try:
        return token_bytes_of(text)
    except KeyError as error:
        raise BPEFileError(
            path,
            line,
            f"token {text!r}: {error.args[0]}, so this is not a GPT-2-style byte-level "
            "vocabulary (every character must stand for one byte)",
        ) from None
