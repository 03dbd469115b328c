"""Byte-pair encoding: character-level (chapter 04), byte-level (05), regex (06) and fast (09).

Every step is defined once in ``core``; the tokenizers, trainers and file handling build on it.
"""

from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.char_bpe import CharBPE
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.bpe.train import train_bpe

__all__ = ["ByteTokenizer", "CharBPE", "RegexTokenizer", "train_bpe"]
