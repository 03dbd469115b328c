"""The Unigram language-model tokenizer in SentencePiece's conventions (chapter 11): the
lattice and Viterbi, EM training, and SentencePiece's text and script rules.
"""

from book.tokenizers.unigram.unigram import Unigram

__all__ = ["Unigram"]
