"""SentencePiece's BPE over ``▁`` pieces with byte fallback: Llama 2, Phi-3, Baichuan, Gemma 4.

Merged by piece scores (SentencePiece) or by a merge list (Gemma 4), on ``bpe.core``'s steps.
"""

from book.tokenizers.sentencepiece_bpe.sentencepiece_bpe import SentencePieceBPE

__all__ = ["SentencePieceBPE"]
