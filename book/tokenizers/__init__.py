"""The tokenizers: pure logic, text in and ids out (no display, no grading, no files but their own).

One interface, :class:`Tokenizer` (``base``, with the members the tokenizers share), and the
book's tokenizers by family, each a folder:

- ``basic``: ``CharTokenizer`` (chapter 02) and ``WordTokenizer`` (03);
- ``bpe``: ``CharBPE`` (04), ``ByteTokenizer`` (05), ``RegexTokenizer`` (06), ``train_bpe`` (09),
  all on one core (``bpe.core``: each step once);
- ``wordpiece``: ``WordPiece`` (10) with Hugging Face's stages ``BertNormalizer``,
  ``BertPreTokenizer`` and ``WordPieceDecoder``;
- ``unigram``: ``Unigram`` (10), SentencePiece style;
- ``sentencepiece_bpe``: ``SentencePieceBPE``, SentencePiece's BPE with scores and byte
  fallback (Llama 2, Phi-3, Baichuan) and Gemma 4's BPE over ``▁`` pieces;
- ``formats``: the files they are stored in (the book's own, GPT-2's, SentencePiece's,
  Hugging Face's ``tokenizer.json``);
- ``errors``: every tokenizer's exceptions, whose messages say what to do.

>>> tok = ByteTokenizer.train("low lower lowest", vocab_size=258)
>>> isinstance(tok, Tokenizer), tok.n_vocab, tok.decode(tok.encode("slow"))
(True, 258, 'slow')
"""

from book.tokenizers.base import UNK_TOKEN, Tokenizer
from book.tokenizers.basic import CharTokenizer, WordTokenizer
from book.tokenizers.bpe import ByteTokenizer, CharBPE, RegexTokenizer, train_bpe
from book.tokenizers.sentencepiece_bpe import SentencePieceBPE
from book.tokenizers.unigram import Unigram
from book.tokenizers.wordpiece import BertNormalizer, BertPreTokenizer, WordPiece, WordPieceDecoder

__all__ = [
    "UNK_TOKEN",
    "BertNormalizer",
    "BertPreTokenizer",
    "ByteTokenizer",
    "CharBPE",
    "CharTokenizer",
    "RegexTokenizer",
    "SentencePieceBPE",
    "Tokenizer",
    "Unigram",
    "WordPiece",
    "WordPieceDecoder",
    "WordTokenizer",
    "train_bpe",
]
