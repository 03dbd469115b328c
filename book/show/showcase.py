"""The tokenizers and texts the chapters show, in one place so a chapter and its tests agree.

Each chapter with a merge stepper trains (or loads) its tokenizer and picks the text to step
through here; the browser test recomputes the same traces from here.

>>> len(STEPPER_TEXT.split()), ENGLISH_MERGES
(12, 2000)
"""

from __future__ import annotations

import functools

from book import corpora
from book.tokenizers.bpe.char_bpe import CharBPE

# Chapter 04: how many merges to learn from corpora.english("train"), and the stepper's text
# (from The Tempest, the held-out play; every character of it occurs in training).
ENGLISH_MERGES = 2000
STEPPER_TEXT = "Full fathom five thy father lies; Of his bones are coral made;"


@functools.cache
def english_char_bpe() -> CharBPE:
    """Chapter 04's tokenizer: ``ENGLISH_MERGES`` merges learned on ``corpora.english("train")``.

    Its vocabulary: the characters of the training words, ``</w>``, one token per merge.
    """
    text = corpora.english("train")
    alphabet = set("".join(text.split()))
    return CharBPE.train(text, vocab_size=len(alphabet) + 1 + ENGLISH_MERGES)


# Chapter 05: a byte-level BPE trained on the parallel passage (21 languages, one per line),
# and the stepper's text: Russian, two bytes per letter, and an emoji that training never saw.
PARALLEL_VOCAB_SIZE = 512
BYTE_STEPPER_TEXT = "Старая библиотека стоит на берегу 🌊"


def parallel_text() -> str:
    """The parallel passage as one text, one language per line, in ``corpora.parallel()`` order."""
    return "".join(text + "\n" for text in corpora.parallel().values())


# Chapter 06: GPT-4's merges (cl100k_base, loaded into our RegexTokenizer), stepped through
# on one sentence with a contraction, a number, punctuation and an emoji.
REGEX_STEPPER_ENCODING = "cl100k_base"
REGEX_STEPPER_TEXT = "Tokenizers aren't magic: 12345 bytes, one merge at a time! 🙂"
