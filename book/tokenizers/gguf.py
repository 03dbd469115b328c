"""A tokenizer from a GGUF file (llama.cpp's format), by the file's model type.

``tokenizer.ggml.model`` says which kind of tokenizer the vocabulary is; ``BUILDERS`` maps each
kind the book reads to the function that builds the book's own tokenizer from it. Another kind
is refused with a message that names it.

>>> sorted(BUILDERS)
['bert', 'gemma4', 'gpt2', 'llama', 't5']
"""

from __future__ import annotations

from collections.abc import Callable
from os import PathLike

from book.tokenizers.bpe.gguf_bpe import byte_level_bpe
from book.tokenizers.formats.gguf import GgufError, GgufVocabulary, read_gguf_vocabulary
from book.tokenizers.sentencepiece_bpe import SentencePieceBPE
from book.tokenizers.unigram import Unigram
from book.tokenizers.wordpiece import WordPiece

# model type -> builder(vocabulary) -> tokenizer
BUILDERS: dict[str, Callable[[GgufVocabulary], object]] = {
    "gpt2": byte_level_bpe,  # byte-level BPE, as GPT-2 (Llama 3, Qwen, DeepSeek, ...)
    "llama": SentencePieceBPE.from_gguf,  # SentencePiece BPE by scores (Llama 2, Phi-3, Baichuan)
    "gemma4": SentencePieceBPE.from_gguf,  # BPE by merges over ▁ pieces (Gemma 4)
    "bert": WordPiece.from_gguf,  # WordPiece (BERT, bge)
    "t5": Unigram.from_gguf,  # Unigram (T5, XLM-R)
}


def from_gguf(vocab: GgufVocabulary):
    """The book's tokenizer for a GGUF vocabulary read with ``read_gguf_vocabulary``."""
    builder = BUILDERS.get(vocab.model)
    if builder is None:
        raise GgufError(
            vocab.path,
            f"the book cannot read the tokenizer model {vocab.model!r} "
            f"(tokenizer.ggml.model); it reads {', '.join(sorted(BUILDERS))}",
        )
    return builder(vocab)


def load_gguf(path: str | PathLike):
    """The book's tokenizer for the GGUF file at ``path``."""
    return from_gguf(read_gguf_vocabulary(path))
