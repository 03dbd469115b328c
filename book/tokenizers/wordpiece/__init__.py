"""WordPiece, BERT's tokenizer (chapter 10), as Hugging Face tokenizers' stages: normalizer,
pre-tokenizer, model (greedy longest match) and decoder, and a trainer.
"""

from book.tokenizers.wordpiece.wordpiece import WordPiece

__all__ = ["WordPiece"]
