"""WordPiece's decoder: glue ``##`` pieces to the word before, separate words by spaces.

This is Hugging Face ``tokenizers``' ``decoders.WordPiece``, with its options and defaults: with
``cleanup`` (the default) it also removes the space that joining put before punctuation and
contractions, token by token, as ``tokenizers`` does. What the normalizer changed (case,
accents) stays changed, and an unknown word stays ``[UNK]``.

>>> WordPieceDecoder().decode(["play", "##ing", "games", "!", "[UNK]"])
'playing games! [UNK]'
>>> WordPieceDecoder(cleanup=False).decode(["play", "##ing", "games", "!"])
'playing games !'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from book.tokenizers.wordpiece.model import CONTINUING_SUBWORD_PREFIX

# What ``cleanup`` replaces in each token, in this order (tokenizers' ``decoders::wordpiece``).
CLEANUP = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" do not", " don't"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)


@dataclass(frozen=True)
class WordPieceDecoder:
    """``tokenizers``' ``decoders.WordPiece``: ``prefix`` is the continuing-subword prefix."""

    prefix: str = CONTINUING_SUBWORD_PREFIX
    cleanup: bool = True

    def decode(self, tokens: Iterable[str]) -> str:
        """The text of ``tokens``: a piece with the prefix continues the word before it.

        >>> WordPieceDecoder().decode(["do", "##n", "'", "t", "stop", "."])
        "don ' t stop."
        """
        out = []
        for i, token in enumerate(tokens):
            if i > 0:
                continued = token.startswith(self.prefix)
                token = token[len(self.prefix) :] if continued else " " + token
            if self.cleanup:
                for dirty, clean in CLEANUP:
                    token = token.replace(dirty, clean)
            out.append(token)
        return "".join(out)
