"""SentencePiece's compiled normalization rules (``nmt_nfkc`` and the like), applied.

A SentencePiece model that normalizes text (XLM-R's, T5's) stores its rules compiled: a
``precompiled_charsmap`` blob, the ``NormalizerSpec`` field that Hugging Face's
``normalizers.Precompiled`` and llama.cpp's Unigram tokenizer read too. The blob is::

    uint32 trie size (little-endian)  trie: that many bytes  replacements: NUL-terminated strings

The trie (a Darts-clone double array, ``normalizer.cc``) holds the UTF-8 byte strings that
normalization changes; each leaf gives the offset of its replacement. Normalizing takes, at
each place, the longest string of the trie that starts there and writes its replacement, or
copies one character when none starts there.

Each 32-bit unit packs ``BASE`` (bits 10-30, shifted 8 more when bit 9 is set), ``LABEL`` (bits
0-7, with bit 31 set on value units so that no byte matches them) and ``HAS_LEAF`` (bit 8); the
child for byte ``c`` of the unit at ``i`` is at ``i ^ BASE(i) ^ c``, and a leaf's value is at
``i ^ BASE(i)`` (the ``xcda_array_view`` of llama.cpp's ``llama-vocab.cpp``).

>>> PrecompiledCharsmap(b"\\x08\\0\\0\\0")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: the precompiled charsmap gives a trie of 8 bytes, which does not fit its 4 bytes...
"""

from __future__ import annotations

import struct


class PrecompiledCharsmap:
    """Compiled normalization rules (``precompiled_charsmap``), as SentencePiece applies them."""

    def __init__(self, blob: bytes):
        blob = bytes(blob)
        if len(blob) < 4:
            raise ValueError(
                f"a precompiled charsmap starts with a 4-byte trie size; this one has "
                f"{len(blob)} bytes: pass the model's whole normalizer blob"
            )
        (size,) = struct.unpack_from("<I", blob)
        if size % 4 or 4 + size >= len(blob):
            raise ValueError(
                f"the precompiled charsmap gives a trie of {size} bytes, which does not fit "
                f"its {len(blob)} bytes in whole 32-bit units: the blob is truncated or not "
                "a charsmap"
            )
        self.units = struct.unpack_from(f"<{size // 4}I", blob, 4)
        self.replacements = blob[4 + size :]

    def _base(self, index: int) -> int:
        unit = self.units[index]
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    def _longest_match(self, data: bytes, start: int) -> tuple[int, int]:
        """(length, replacement offset) of the longest rule at ``data[start:]``; length 0: none."""
        units, found = self.units, (0, 0)
        node = self._base(0)
        for end in range(start, len(data)):
            byte = data[end]
            if byte == 0:
                break
            node ^= byte
            if node >= len(units) or units[node] & ((1 << 31) | 0xFF) != byte:
                break
            has_leaf = (units[node] >> 8) & 1
            node ^= self._base(node)
            if has_leaf:
                found = (end - start + 1, units[node] & ((1 << 31) - 1))
        return found

    def _replacement(self, offset: int) -> str:
        end = self.replacements.find(b"\0", offset)
        if offset >= len(self.replacements) or end < 0:
            raise ValueError(
                f"the precompiled charsmap's replacement at offset {offset} is outside its "
                f"{len(self.replacements)} bytes or unterminated: the blob is corrupt"
            )
        return self.replacements[offset:end].decode("utf-8")

    def normalize_parts(self, text: str) -> list[str]:
        """What each stretch of ``text`` becomes: a rule's replacement, or a character kept."""
        data = text.encode("utf-8")
        parts, pos = [], 0
        while pos < len(data):
            length, offset = self._longest_match(data, pos)
            if length:
                parts.append(self._replacement(offset))
            else:
                length = _char_length(data[pos])
                parts.append(data[pos : pos + length].decode("utf-8"))
            pos += length
        return parts

    def normalize(self, text: str) -> str:
        """``text`` with the rules applied (whitespace is the caller's: see ``normalize``)."""
        return "".join(self.normalize_parts(text))


def _char_length(lead: int) -> int:
    """The byte length of the UTF-8 character starting with byte ``lead`` (text is valid)."""
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
