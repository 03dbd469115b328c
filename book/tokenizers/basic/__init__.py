"""Tokenizers whose tokens are whole units of the text: characters (chapter 02), words (03).

They learn no merges: the vocabulary is the characters or words seen in training.
"""

from book.tokenizers.basic.characters import CharTokenizer
from book.tokenizers.basic.words import WordTokenizer

__all__ = ["CharTokenizer", "WordTokenizer"]
