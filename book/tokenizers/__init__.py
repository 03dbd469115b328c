"""The tokenizers: pure logic, text in and ids out (no display, no grading, no files but their own).

One interface, :class:`Tokenizer` (``base``), and the book's tokenizers, each a module:

- ``characters.CharTokenizer`` (chapter 02) and ``words.WordTokenizer`` (chapter 03);
- BPE: ``char_bpe.CharBPE`` (04), ``byte_bpe.ByteTokenizer`` (05), ``regex_bpe.RegexTokenizer``
  (06), all on one core: ``bpe_core`` (each step once), ``bpe_train`` (the fast trainer and
  ``train_bpe``), ``pretokenize`` and ``patterns`` (split patterns), ``bpe_vocab`` (tiktoken's
  ranks, CS336's vocab and merges), ``gpt2_files``, ``bpe_file`` (save/load), ``blocks`` and
  ``streaming`` (big files, chapter 09), ``dask_counts`` (counting on a Dask cluster);
- WordPiece (chapter 10): ``wordpiece.WordPiece`` on ``bert_pretokenizer``;
- Unigram (chapter 10): ``unigram.Unigram`` on ``lattice`` (Viterbi, n-best), trained by
  ``unigram_train``, with SentencePiece's ``sentencepiece_text`` conventions, its
  ``sentencepiece_model`` files (read with ``protobuf``) and ``scripts`` (Unicode scripts);
- ``trace`` and ``train_trace`` (what the steppers show), ``errors`` (every tokenizer's
  exceptions, whose messages say what to do).

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
from book.tokenizers.unigram import Unigram
from book.tokenizers.wordpiece import WordPiece
from book.tokenizers.words import WordTokenizer

__all__ = [
    "UNK",
    "ByteTokenizer",
    "CharBPE",
    "CharTokenizer",
    "RegexTokenizer",
    "Tokenizer",
    "Unigram",
    "WordPiece",
    "WordTokenizer",
    "train_bpe",
]
