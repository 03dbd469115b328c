"""WordPiece's model: cut one word into the longest vocabulary entries, left to right.

The model keeps no merge list, only the vocabulary. It takes the longest entry that starts the
word, then the longest that continues it (looked up with the prefix ``##``), and so on; if at
some point no entry fits, or the word is too long, the whole word is the unknown token. This
is Hugging Face ``tokenizers``' ``models.WordPiece``, with its options and defaults.

>>> vocab = {"un", "##aff", "##able", "##a"}
>>> greedy_longest_match("unaffable", vocab), greedy_longest_match("unaffable!", vocab)
(['un', '##aff', '##able'], ['[UNK]'])
"""

from __future__ import annotations

from collections.abc import Container

BERT_UNK_TOKEN = "[UNK]"  # BERT's unknown token, WordPiece's default (as in tokenizers)
CONTINUING_SUBWORD_PREFIX = "##"  # marks a piece that continues a word
MAX_INPUT_CHARS_PER_WORD = 100  # a longer word is unknown as a whole


def greedy_longest_match(
    word: str,
    vocab: Container[str],
    *,
    unk_token: str = BERT_UNK_TOKEN,
    continuing_subword_prefix: str = CONTINUING_SUBWORD_PREFIX,
    max_input_chars_per_word: int = MAX_INPUT_CHARS_PER_WORD,
) -> list[str]:
    """The pieces of one word: the longest entry that fits, again and again; else ``[unk_token]``.

    A piece after the first is looked up with the prefix. If at some point no entry fits, or the
    word is longer than ``max_input_chars_per_word`` characters, the whole word is unknown.

    >>> greedy_longest_match("xable", {"x", "##ab", "##a", "##ble"})  # greedy: ##ab, then stuck
    ['[UNK]']
    """
    if len(word) > max_input_chars_per_word:
        return [unk_token]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else continuing_subword_prefix + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return [unk_token]
    return pieces
