"""The merge-stepper examples of chapters 05 and 06 show what the chapters say they show."""

from __future__ import annotations

import functools

from book.encodings import get_encoding
from book.show import showcase
from book.tokenizers import ByteTokenizer, RegexTokenizer
from book.tokenizers.bpe.patterns import split


@functools.cache
def parallel_byte_bpe() -> ByteTokenizer:
    """Chapter 05's multilingual tokenizer, made as the chapter makes it."""
    return ByteTokenizer.train(showcase.parallel_text(), showcase.PARALLEL_VOCAB_SIZE)


def is_whole_text(piece: bytes) -> bool:
    try:
        piece.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_parallel_tokenizer_is_the_chapter_recipe():
    tok = parallel_byte_bpe()
    assert tok.n_vocab == showcase.PARALLEL_VOCAB_SIZE
    assert showcase.parallel_text().count("\n") == 21


def test_byte_stepper_example_shows_partial_characters_and_an_unseen_emoji():
    tok = parallel_byte_bpe()
    trace = tok.trace(showcase.BYTE_STEPPER_TEXT)
    assert 2 <= len(trace) - 1 <= 40  # a sentence: a few dozen steps keep the page small
    assert any(not is_whole_text(step.new) for step in trace[1:])
    assert trace[-1].pieces[-4:] == tuple(bytes([b]) for b in "🌊".encode())
    assert "🌊" not in showcase.parallel_text()


def test_regex_stepper_example_ends_in_tiktokens_ids_and_respects_chunks():
    tok = RegexTokenizer.from_tiktoken(showcase.REGEX_STEPPER_ENCODING)  # as chapter 06 does
    trace = tok.trace(showcase.REGEX_STEPPER_TEXT)
    assert 2 <= len(trace) - 1 <= 60
    ids = get_encoding(showcase.REGEX_STEPPER_ENCODING).encode(showcase.REGEX_STEPPER_TEXT)
    assert list(trace[-1].pieces) == [tok.vocab[i] for i in ids]
    chunks = [chunk.encode("utf-8") for chunk in split(showcase.REGEX_STEPPER_TEXT, tok.pattern)]
    boundaries = {sum(map(len, chunks[:k])) for k in range(len(chunks) + 1)}
    for step in trace:
        ends = {sum(map(len, step.pieces[:k])) for k in range(len(step.pieces) + 1)}
        assert boundaries <= ends  # every chunk boundary is a token boundary at every step
