"""The tokenizers: pure logic, text in and ids out (no display, no grading, no files but their own).

One interface, :class:`Tokenizer`, and the book's reference tokenizers, one module each:

- ``characters.CharTokenizer`` (chapter 02) and ``words.WordTokenizer`` (chapter 03);
- ``char_bpe.CharBPE`` (04), ``byte_bpe.ByteTokenizer`` (05), ``regex_bpe.RegexTokenizer`` (06),
  all three on one BPE core, ``bpe_core``;
- ``patterns`` (split patterns), ``errors`` (the exceptions every tokenizer raises).

>>> tok = ByteTokenizer.train("low lower lowest", vocab_size=258)
>>> isinstance(tok, Tokenizer), tok.n_vocab, tok.decode(tok.encode("slow"))
(True, 258, 'slow')
"""

from book.tokenizers.base import UNK, Tokenizer
from book.tokenizers.bpe_train import train_bpe
from book.tokenizers.byte_bpe import ByteTokenizer
from book.tokenizers.char_bpe import CharBPE
from book.tokenizers.characters import CharTokenizer
from book.tokenizers.regex_bpe import RegexTokenizer
from book.tokenizers.words import WordTokenizer

__all__ = [
    "UNK",
    "ByteTokenizer",
    "CharBPE",
    "CharTokenizer",
    "RegexTokenizer",
    "Tokenizer",
    "WordTokenizer",
    "train_bpe",
]
