"""The GGUF reader on files built here byte by byte: every value type, both byte orders, and
each kind of bad file raising an error that names the file and the fault."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.tokenizers.formats.gguf import (
    ARRAY,
    BOOL,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    SCALAR_CODES,
    STRING,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    GgufError,
    read_gguf_metadata,
    read_gguf_metadata_bytes,
    read_gguf_vocabulary,
)


def encode_value(kind: int, value, endian: str = "<") -> bytes:
    """A GGUF value of type ``kind`` (without its type tag), laid out as the specification says."""
    if kind == STRING:
        raw = value.encode()
        return struct.pack(endian + "Q", len(raw)) + raw
    if kind == ARRAY:
        item_kind, items = value
        head = struct.pack(endian + "IQ", item_kind, len(items))
        return head + b"".join(encode_value(item_kind, item, endian) for item in items)
    return struct.pack(endian + SCALAR_CODES[kind], value)


def gguf_bytes(entries: list[tuple[str, int, object]], version: int = 3, endian="<") -> bytes:
    """A GGUF file holding metadata ``entries`` (key, type, value) and no tensors."""
    out = [b"GGUF", struct.pack(endian + "IQQ", version, 0, len(entries))]
    for key, kind, value in entries:
        out += [encode_value(STRING, key, endian), struct.pack(endian + "I", kind)]
        out.append(encode_value(kind, value, endian))
    return b"".join(out)


TOKENS = ["a", "b", "ab", "<s>"]


def vocabulary_entries(tokens=TOKENS, merges=("a b",)) -> list[tuple[str, int, object]]:
    return [
        ("general.architecture", STRING, "llama"),
        ("tokenizer.ggml.model", STRING, "gpt2"),
        ("tokenizer.ggml.pre", STRING, "llama-bpe"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, list(tokens))),
        ("tokenizer.ggml.token_type", ARRAY, (INT32, [1] * (len(tokens) - 1) + [3])),
        ("tokenizer.ggml.merges", ARRAY, (STRING, list(merges))),
        ("tokenizer.ggml.bos_token_id", UINT32, 3),
        ("tokenizer.ggml.seperator_token_id", UINT32, 2),
        ("tokenizer.ggml.add_bos_token", BOOL, True),
        ("tokenizer.chat_template", STRING, "{{ messages }}"),
    ]


def write(tmp_path, data: bytes, name="v.gguf"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


EVERY_TYPE = [
    ("u8", UINT8, 255),
    ("i8", INT8, -128),
    ("u16", UINT16, 65535),
    ("i16", INT16, -32768),
    ("u32", UINT32, 2**32 - 1),
    ("i32", INT32, -(2**31)),
    ("f32", FLOAT32, 0.5),
    ("bool", BOOL, True),
    ("str", STRING, "héllo ▁ 你好"),
    ("u64", UINT64, 2**64 - 1),
    ("i64", INT64, -(2**63)),
    ("f64", FLOAT64, -1.25),
    ("floats", ARRAY, (FLOAT32, [1.5, -2.0])),
    ("strings", ARRAY, (STRING, ["", "x y", "Ġthe"])),
    ("nested", ARRAY, (ARRAY, [(INT8, [1, 2]), (INT8, [])])),
]


def plain(kind, value):
    """What the reader returns for ``value``: arrays become tuples."""
    if kind != ARRAY:
        return value
    item_kind, items = value
    return tuple(plain(item_kind, item) for item in items)


@pytest.mark.parametrize("endian", ["<", ">"])
def test_every_value_type_is_read_in_both_byte_orders(endian):
    metadata = read_gguf_metadata_bytes(gguf_bytes(EVERY_TYPE, endian=endian))
    assert metadata == {"GGUF.version": 3} | {k: plain(t, v) for k, t, v in EVERY_TYPE}


def test_reading_stops_before_the_tensor_data(tmp_path):
    # Whatever follows the metadata (tensor infos, data) is never looked at.
    path = write(tmp_path, gguf_bytes(EVERY_TYPE[:2]) + b"\xff" * 64)
    assert read_gguf_metadata(path) == {"GGUF.version": 3, "u8": 255, "i8": -128}


def test_a_vocabulary_is_read_with_its_tokenizer_keys(tmp_path):
    vocab = read_gguf_vocabulary(write(tmp_path, gguf_bytes(vocabulary_entries(), version=2)))
    assert (vocab.version, vocab.model, vocab.pre) == (2, "gpt2", "llama-bpe")
    assert vocab.tokens == tuple(TOKENS) and vocab.merges == (("a", "b"),)
    assert vocab.token_types == (1, 1, 1, 3) and vocab.scores is None
    assert vocab.special_ids == {"bos": 3, "sep": 2}
    assert (vocab.add_bos, vocab.add_eos, vocab.add_space_prefix) == (True, None, None)
    assert vocab.chat_template == "{{ messages }}"
    assert vocab.metadata["general.architecture"] == "llama"
    assert "4 tokens, 1 merges" in repr(vocab)


@given(st.lists(st.text(max_size=8), max_size=20, unique=True))
def test_any_unique_tokens_come_back_in_id_order(tokens):
    entries = [
        ("tokenizer.ggml.model", STRING, "bert"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
    ]
    metadata = read_gguf_metadata_bytes(gguf_bytes(entries))
    assert metadata["tokenizer.ggml.tokens"] == tuple(tokens)


def error_for(tmp_path, data: bytes, reader=read_gguf_vocabulary) -> str:
    path = write(tmp_path, data, "bad.gguf")
    with pytest.raises(GgufError) as caught:
        reader(path)
    assert str(path) in str(caught.value)
    return str(caught.value)


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    assert "not a GGUF file" in error_for(tmp_path, b'{"model": {}}')
    assert "not a GGUF file" in error_for(tmp_path, b"")


def test_every_truncation_is_reported_as_such(tmp_path):
    data = gguf_bytes(vocabulary_entries())
    for cut in range(4, len(data)):
        message = error_for(tmp_path, data[:cut])
        assert "truncated" in message and "download or copy it again" in message


def test_an_unsupported_version_is_named(tmp_path):
    assert "GGUF version 1 is not supported" in error_for(tmp_path, gguf_bytes([], version=1))


def test_an_undefined_value_type_is_named(tmp_path):
    data = gguf_bytes([("k", UINT8, 1)])
    data = data[:-5] + struct.pack("<I", 13) + data[-1:]  # the type tag before the last byte
    assert "value type 13" in error_for(tmp_path, data)


def test_a_file_without_a_tokenizer_is_refused(tmp_path):
    data = gguf_bytes([("general.architecture", STRING, "llama")])
    assert "holds no tokenizer" in error_for(tmp_path, data)


def test_duplicate_tokens_are_refused(tmp_path):
    message = error_for(tmp_path, gguf_bytes(vocabulary_entries(tokens=["a", "b", "a", "<s>"])))
    assert "duplicate token 'a' at ids 0 and 2" in message


@pytest.mark.parametrize(
    "merge, fault", [("a c", "names 'c', which is not a token"), ("ab", "not two tokens")]
)
def test_a_merge_over_unknown_tokens_is_refused(tmp_path, merge, fault):
    assert fault in error_for(tmp_path, gguf_bytes(vocabulary_entries(merges=["a b", merge])))


def test_token_types_must_cover_every_token(tmp_path):
    entries = vocabulary_entries()
    entries[4] = ("tokenizer.ggml.token_type", ARRAY, (INT32, [1]))
    assert "token_type has 1 entries but there are 4 tokens" in error_for(
        tmp_path, gguf_bytes(entries)
    )


def test_a_special_id_outside_the_vocabulary_is_refused(tmp_path):
    entries = vocabulary_entries() + [("tokenizer.ggml.eos_token_id", UINT32, 9)]
    assert "eos token id 9 is outside the 4 tokens" in error_for(tmp_path, gguf_bytes(entries))


def test_bad_utf8_is_named(tmp_path):
    data = gguf_bytes(vocabulary_entries(tokens=["a", "b", "ab", "<\xff>"]))
    data = data.replace("<\xff>".encode(), b"<\xff\xfe")
    assert "item 3 of 'tokenizer.ggml.tokens' is not valid UTF-8" in error_for(tmp_path, data)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(GgufError, match="no such file"):
        read_gguf_vocabulary(tmp_path / "absent.gguf")
