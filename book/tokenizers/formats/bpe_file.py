"""The tokenizer file: plain UTF-8 text that a person can read and diff.

One item per line::

    tokenization-from-scratch bpe v1          format name and version
    pattern: "'(?:[sdmt]|ll|ve|re)| ?..."    split pattern as a JSON string, or null
    special_tokens: {"<|endoftext|>": 50256}  JSON object, name -> id ({} if none)
    byte_ids: identity                        or the ids of bytes 0..255, space-separated
    merges: 50000                             how many merge lines follow
    256 32 116 1523                           new id, left id, right id, count ("-" if unknown)
    ...

Merge lines are in rank order, so the file reads top to bottom like training, and their new
ids increase line by line (256, 257, ... for a tokenizer the book trained). Reading checks
everything; a wrong, corrupt or truncated file raises :class:`BPEFileError` naming the file
and line, what is wrong and what to do.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import regex

from book.tokenizers.base import N_BYTES
from book.tokenizers.errors import BPEFileError

IdPair = tuple[int, int]
IdMerge = tuple[IdPair, int | None]  # (left id, right id), and the count if known
IDENTITY = list(range(N_BYTES))  # byte_ids when byte b has id b

FORMAT_HEADER = "tokenization-from-scratch bpe v1"


class SavedBPE(NamedTuple):
    """The contents of a tokenizer file."""

    pattern: str | None
    special_tokens: dict[str, int]
    byte_ids: list[int]
    merges: list[IdMerge]
    new_ids: list[int]


def write_bpe_file(
    path: str | Path,
    pattern: str | None,
    special_tokens: Mapping[str, int],
    byte_ids: Sequence[int],
    merges: Sequence[IdMerge],
    new_ids: Sequence[int] | None = None,
) -> None:
    """Write a tokenizer file (format in the module docstring).

    A merge's new id is ``256 + rank`` unless ``new_ids`` says otherwise; they must increase
    with rank (so that a reordered file is caught when read).
    """
    new_ids = list(range(N_BYTES, N_BYTES + len(merges))) if new_ids is None else list(new_ids)
    if any(a >= b for a, b in zip(new_ids, new_ids[1:])):
        raise ValueError(
            "this tokenizer's merges make ids that do not increase with rank, which the "
            "tokenizer file cannot hold; save it with save_gpt2_files instead"
        )
    identity = list(byte_ids) == IDENTITY
    lines = [
        FORMAT_HEADER,
        f"pattern: {json.dumps(pattern)}",
        # JSON's ASCII escapes keep every value on one line, whatever characters it holds.
        f"special_tokens: {json.dumps(dict(special_tokens))}",
        "byte_ids: " + ("identity" if identity else " ".join(map(str, byte_ids))),
        f"merges: {len(merges)}",
    ]
    for new_id, ((left, right), count) in zip(new_ids, merges):
        lines.append(f"{new_id} {left} {right} {'-' if count is None else count}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


def read_bpe_file(path: str | Path) -> SavedBPE:
    """Read and check a tokenizer file; any problem raises :class:`BPEFileError` with its line.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "hi.bpe")
    >>> write_bpe_file(path, None, {}, range(256), [((104, 105), 2)])
    >>> print(open(path).read().splitlines()[-1])
    256 104 105 2
    >>> read_bpe_file(path).merges, read_bpe_file(path).new_ids
    ([((104, 105), 2)], [256])
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        problem = "not a text file (not UTF-8): not a saved tokenizer"
        raise BPEFileError(path, None, problem) from None
    lines = text.splitlines()
    if not text.strip():
        raise BPEFileError(path, 1, "the file is empty: not a saved tokenizer (or saving failed)")
    if lines[0].strip() != FORMAT_HEADER:
        found = repr(lines[0][:60])
        raise BPEFileError(
            path,
            1,
            f"expected the header {FORMAT_HEADER!r}, found {found}. This is not a tokenizer "
            "file written by save() of this version; save the tokenizer again.",
        )
    fields = [_field(path, lines, number, key) for number, key in enumerate(_KEYS, start=2)]
    pattern = _json_field(path, 2, fields[0], (str, type(None)), "a JSON string or null")
    specials = _json_field(path, 3, fields[1], dict, 'a JSON object such as {"<|eot|>": 300}')
    byte_ids = _byte_ids_field(path, fields[2])
    num_merges = _int(path, 5, fields[3], "the number of merges")
    merge_lines = lines[len(_KEYS) + 1 :]
    if len(merge_lines) < num_merges:
        raise BPEFileError(
            path,
            len(lines),
            f"the file ends after {len(merge_lines)} of {num_merges} merges: it is truncated. "
            "Save the tokenizer again.",
        )
    if any(line.strip() for line in merge_lines[num_merges:]):
        raise BPEFileError(
            path,
            len(_KEYS) + 2 + num_merges,
            f"unexpected text after the {num_merges} merges announced on line 5",
        )
    merges, new_ids = _merges(path, merge_lines[:num_merges], len(_KEYS) + 2, byte_ids)
    _check_specials(path, specials, {*byte_ids, *new_ids})
    _check_pattern(path, pattern)
    return SavedBPE(pattern, specials, byte_ids, merges, new_ids)


_KEYS = ("pattern", "special_tokens", "byte_ids", "merges")


def _field(path, lines: list[str], number: int, key: str) -> str:
    """The value of header line ``number`` (1-based), which must read ``key: value``."""
    if number > len(lines):
        raise BPEFileError(path, number, f"the file ends before the '{key}: ...' line: truncated")
    name, sep, value = lines[number - 1].partition(": ")
    if name != key or not sep:
        raise BPEFileError(path, number, f"expected '{key}: ...', found {lines[number - 1][:60]!r}")
    return value


def _json_field(path, number: int, value: str, types, wanted: str):
    """Parse a JSON header value of the expected type."""
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as error:
        raise BPEFileError(path, number, f"expected {wanted}: {error}") from None
    if not isinstance(parsed, types):
        raise BPEFileError(path, number, f"expected {wanted}, found {value[:60]!r}")
    return parsed


def _int(path, number: int, value: str, what: str) -> int:
    """A non-negative decimal integer, or a clear error."""
    if not value.strip().isdigit():
        raise BPEFileError(path, number, f"{what} must be a non-negative integer, found {value!r}")
    return int(value)


def _byte_ids_field(path, value: str) -> list[int]:
    """``identity`` or 256 distinct ids, the id of byte 0 first."""
    if value.strip() == "identity":
        return list(IDENTITY)
    ids = [_int(path, 4, item, "each byte id") for item in value.split()]
    if len(ids) != N_BYTES or len(set(ids)) != N_BYTES:
        raise BPEFileError(
            path, 4, "byte_ids must be 'identity' or 256 distinct ids (bytes 0..255), each once"
        )
    return ids


def _merges(
    path, lines: list[str], first_line: int, byte_ids: list[int]
) -> tuple[list[IdMerge], list[int]]:
    """Parse merge lines ``new left right count``; new ids increase, parts exist before."""
    merges: list[IdMerge] = []
    new_ids: list[int] = []
    known = set(byte_ids)
    seen: set[IdPair] = set()
    for offset, line in enumerate(lines):
        number = first_line + offset
        items = line.split()
        if len(items) != 4:
            raise BPEFileError(
                path, number, f"expected 'new_id left_id right_id count', found {line[:60]!r}"
            )
        new, left, right = (_int(path, number, item, "an id") for item in items[:3])
        count = None if items[3] == "-" else _int(path, number, items[3], "the count")
        previous = new_ids[-1] if new_ids else None
        if previous is not None and new <= previous:
            raise BPEFileError(
                path,
                number,
                f"this merge creates id {new}, but merges are listed in rank order with "
                f"increasing ids: expected an id above {previous} here. The file was edited or "
                "reordered.",
            )
        if new in known:
            raise BPEFileError(path, number, f"this merge creates id {new}, already a byte's id")
        if left not in known or right not in known:
            missing = left if left not in known else right
            raise BPEFileError(
                path,
                number,
                f"merge {new} joins ids {left} and {right}, but id {missing} does not exist at "
                "this point: a merge can only join bytes and tokens made before it",
            )
        if (left, right) in seen:
            raise BPEFileError(path, number, f"the pair ({left}, {right}) is merged twice")
        seen.add((left, right))
        known.add(new)
        merges.append(((left, right), count))
        new_ids.append(new)
    return merges, new_ids


def _check_specials(path, specials: dict, learned: set[int]) -> None:
    """Special token ids must be ints that no learned token has, each used once."""
    for name, token_id in specials.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise BPEFileError(
                path, 3, f"special token {name!r} has id {token_id!r}; ids are integers >= 0"
            )
        if token_id in learned:
            raise BPEFileError(
                path,
                3,
                f"special token {name!r} has id {token_id}, which is a learned token's id; "
                f"special ids come after the learned tokens (from {max(learned) + 1})",
            )
    if len(set(specials.values())) != len(specials):
        raise BPEFileError(path, 3, "two special tokens share an id")


def _check_pattern(path, pattern: str | None) -> None:
    """The split pattern must compile with the ``regex`` module."""
    if pattern is None:
        return
    try:
        regex.compile(pattern)
    except regex.error as error:
        raise BPEFileError(path, 2, f"the split pattern does not compile: {error}") from None
