"""A GGUF vocabulary's tokens as SentencePiece pieces: text, score and kind by id.

llama.cpp stores a SentencePiece model's pieces as three arrays by id (``tokens``, ``scores``,
``token_type``) whose token types are SentencePiece's piece types with the same numbers
(``llama_token_type``: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte);
type 0, "undefined", is read as normal, as llama.cpp reads it.

>>> from types import SimpleNamespace
>>> vocabulary = SimpleNamespace(
...     path="v.gguf", tokens=("<unk>", "▁a"), scores=(0.0, -1.5), token_types=(2, 1)
... )
>>> [(p.piece, p.score, p.kind) for p in gguf_pieces(vocabulary)]
[('<unk>', 0.0, 'unknown'), ('▁a', -1.5, 'normal')]
"""

from __future__ import annotations

from book.tokenizers.formats.gguf import TOKEN_TYPES, GgufError, GgufVocabulary
from book.tokenizers.formats.sentencepiece_model import ModelPiece


def gguf_pieces(vocabulary: GgufVocabulary) -> list[ModelPiece]:
    """The pieces of ``vocabulary`` in id order (score 0.0 and kind normal where it has none)."""
    count = len(vocabulary.tokens)
    scores = vocabulary.scores or (0.0,) * count
    types = vocabulary.token_types or (1,) * count
    pieces = []
    for token, score, token_type in zip(vocabulary.tokens, scores, types):
        kind = TOKEN_TYPES.get(token_type)
        if kind is None:
            raise GgufError(
                vocabulary.path,
                f"token {len(pieces)} ({token!r}) has token type {token_type}, which llama.cpp "
                f"does not define (0-6): the file is corrupt or from a newer llama.cpp",
            )
        pieces.append(ModelPiece(token, score, "normal" if kind == "undefined" else kind))
    return pieces
