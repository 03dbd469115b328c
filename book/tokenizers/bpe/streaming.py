"""Encoding text that does not fit in memory: parts in, ids out, the same ids as one ``encode``.

:func:`encode_iterable` takes text in parts (a file's lines, say) and encodes the text up to
the last place where it may be cut: a place where the chunks of each side, and the special
tokens found in them, are those of the whole text (``pretokenize.is_cut``). Only the text
after that place is kept for the next part, so the text held is at most a batch (``BATCH``
characters) plus the longest stretch without such a place. For OpenAI's patterns that is a
few words wherever spaces or punctuation occur; a stretch with neither (a long run of
letters, digits, punctuation or whitespace) is held until it ends. With any other pattern no
place is known to be safe, and the whole text is held. :func:`encode_file` does the same for
a file, in blocks encoded by several processes.

>>> from book.tokenizers import RegexTokenizer
>>> tok = RegexTokenizer.train("the cat sat on the mat", 270)
>>> parts = ["the c", "at s", "at on the", " mat"]
>>> list(encode_iterable(tok, parts)) == tok.encode("".join(parts))
True
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Literal

from book.tokenizers.bpe.blocks import (
    Block,
    block_size,
    check_workers,
    choose_workers,
    file_blocks,
    map_blocks,
    read_block,
)
from book.tokenizers.bpe.core import surrogate_error
from book.tokenizers.bpe.pretokenize import CUT_PATTERNS, last_cut
from book.tokenizers.errors import DisallowedSpecialTokenError

Specials = Collection[str] | Literal["all"]
BATCH = 1 << 14  # characters gathered before looking for a cut: one encode call per batch


def encode_iterable(
    tokenizer,
    parts: Iterable[str],
    allowed_special: Specials = frozenset(),
    disallowed_special: Specials = "all",
) -> Iterator[int]:
    """The ids of the text ``"".join(parts)``, yielded as soon as they are certain.

    ``tokenizer`` is a :class:`~book.tokenizers.bpe.regex_bpe.RegexTokenizer`; special tokens
    work as in its ``encode``. With a pattern other than OpenAI's
    (``pretokenize.CUT_PATTERNS``), no place is known to be safe, and the text is encoded
    once it has all been read.
    """
    names = list(tokenizer.special_tokens)
    longest = max(map(len, names), default=1)
    if tokenizer.pattern not in CUT_PATTERNS:
        parts = ["".join(parts)]
    buffer, offset, checked = "", 0, 1  # places in buffer before `checked` cannot be cut
    for part in parts:
        if not isinstance(part, str):
            kind = type(part).__name__
            raise TypeError(f"encode_iterable needs parts of text (str), got {kind}")
        buffer += part
        if len(buffer) < BATCH:
            continue
        # A cut needs the characters around it, and every special token that could span it.
        end = len(buffer) - longest
        cut = last_cut(buffer, end, tokenizer.pattern, names, start=checked)
        if cut is None:
            checked = max(checked, end + 1)
            continue
        yield from _encode(tokenizer, buffer[:cut], offset, allowed_special, disallowed_special)
        buffer, offset, checked = buffer[cut:], offset + cut, max(1, end + 1 - cut)
    yield from _encode(tokenizer, buffer, offset, allowed_special, disallowed_special)


def _encode(tokenizer, text: str, offset: int, allowed, disallowed) -> list[int]:
    """``tokenizer.encode(text)``, reporting errors at their place in the whole text."""
    try:
        return tokenizer.encode(text, allowed_special=allowed, disallowed_special=disallowed)
    except DisallowedSpecialTokenError as error:
        raise DisallowedSpecialTokenError(error.token, offset + error.position) from error
    except UnicodeEncodeError:
        raise surrogate_error(text, offset) from None


def encode_file(
    tokenizer,
    path: str | Path,
    workers: int | None = None,
    allowed_special: Specials = frozenset(),
    disallowed_special: Specials = "all",
) -> Iterator[int]:
    """The ids of a UTF-8 file, yielded in order; blocks are encoded by ``workers`` processes.

    The file is cut into blocks where the text may be cut (``blocks.file_blocks``), each block
    read, decoded and encoded by a worker; at most two blocks per worker are in memory. A byte
    that is not UTF-8 raises :class:`~book.tokenizers.bpe.blocks.NotUTF8Error` with its place.
    ``workers=None``: one process for a small file, else every CPU.
    """
    total = os.path.getsize(path)
    workers = choose_workers(check_workers(workers), total)
    names = list(tokenizer.special_tokens)
    blocks = file_blocks(path, tokenizer.pattern, names, block_size(total, workers), False)
    setup = (tokenizer, str(path), allowed_special, disallowed_special)
    for ids in map_blocks(_encode_block, blocks, workers, _set_up_encoding, setup):
        yield from ids


_ENCODING: tuple = (None, "", frozenset(), "all")  # what a worker process encodes, and how


def _set_up_encoding(tokenizer, path: str, allowed, disallowed) -> None:
    """Remember the tokenizer and the file, once per worker process."""
    global _ENCODING
    _ENCODING = (tokenizer, path, allowed, disallowed)


def _encode_block(block: Block) -> array:
    """The ids of one block, as a compact array (runs in a worker process)."""
    tokenizer, path, allowed, disallowed = _ENCODING
    text = read_block(path, block)
    return array("I", _encode(tokenizer, text, 0, allowed, disallowed))
