"""WordPiece, BERT's tokenizer (chapter 11), as Hugging Face tokenizers' stages: normalizer,
pre-tokenizer, model (greedy longest match) and decoder, put together in ``wordpiece``; a trainer.
"""

from book.tokenizers.wordpiece.decoder import WordPieceDecoder
from book.tokenizers.wordpiece.normalizer import BertNormalizer
from book.tokenizers.wordpiece.pre_tokenizer import BertPreTokenizer
from book.tokenizers.wordpiece.wordpiece import WordPiece

__all__ = ["BertNormalizer", "BertPreTokenizer", "WordPiece", "WordPieceDecoder"]
