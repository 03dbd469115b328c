"""Byte-level BPE from a GGUF vocabulary (``tokenizer.ggml.model == "gpt2"``) as a RegexTokenizer.

GGUF files store a byte-level BPE as Hugging Face does: each token and each merge in GPT-2's
byte-to-unicode form (``Ġthe`` for the bytes `` the``), merges in rank order, and a type for
each token (``TOKEN_TYPES``). Normal tokens are the bytes and what the merges make; control
tokens (``<|endoftext|>``) become the tokenizer's special tokens; user-defined tokens (Hugging
Face's added tokens that are not special) become added tokens, matched in any text. The split
pattern is the book's for the file's ``tokenizer.ggml.pre`` (``GGUF_PRE_PATTERNS``).

>>> from book.tokenizers.bpe.patterns import GGUF_PRE_PATTERNS
>>> "llama-bpe" in GGUF_PRE_PATTERNS and "qwen2" in GGUF_PRE_PATTERNS
True
"""

from __future__ import annotations

from book.tokenizers.bpe.patterns import GGUF_PRE_PATTERNS
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.formats.gguf import TOKEN_TYPES, GgufError, GgufVocabulary
from book.tokenizers.formats.gpt2_files import token_bytes_of, unicode_to_bytes

TYPE = {name: code for code, name in TOKEN_TYPES.items()}

# Pre-tokenizer names for which llama.cpp sets ignore_merges (src/llama-vocab.cpp), as Hugging
# Face's BPE(ignore_merges=True) in the model's tokenizer.json: a chunk that is a token is that
# token, whatever the merges would make of it.
IGNORE_MERGES = frozenset({"llama-bpe"})


def byte_level_bpe(vocab: GgufVocabulary, pre: str | None = None) -> RegexTokenizer:
    """The tokenizer of a GGUF byte-level BPE vocabulary, ids exactly the file's.

    ``pre`` overrides the file's ``tokenizer.ggml.pre``; a file without one gets llama.cpp's
    ``"default"``, as llama.cpp gives it.
    """
    pre = pre or vocab.pre or "default"
    if pre not in GGUF_PRE_PATTERNS:
        raise GgufError(
            vocab.path,
            f"the book has no split pattern for the pre-tokenizer {pre!r} "
            f"(tokenizer.ggml.pre); it knows {', '.join(sorted(GGUF_PRE_PATTERNS))}",
        )
    types = vocab.token_types or (TYPE["normal"],) * len(vocab.tokens)
    learned: dict[str, int] = {}  # normal tokens, in byte-to-unicode form
    specials: dict[str, int] = {}
    added: dict[str, int] = {}
    for token_id, (token, kind) in enumerate(zip(vocab.tokens, types)):
        if kind == TYPE["control"]:
            specials[token] = token_id
        elif kind == TYPE["user_defined"]:
            added[token] = token_id  # stored as its text, not in byte-to-unicode form
        elif not token.translate(_DELETE_BYTE_LEVEL):
            learned[token] = token_id
        # Else a token not in byte-to-unicode form (Command-R's 1,403 emoji parts): no text
        # reaches it, and it is left out (decode refuses its id).
    made = set(_BYTE_LEVEL) | {left + right for left, right in vocab.merges}
    for token in [token for token in learned if token not in made]:
        # No merge makes it: if its text is ASCII, a special token in all but name (Aquila's
        # <|endoftext|>); none of another kind exists in llama.cpp's files.
        token_id = learned.pop(token)
        if token_bytes_of(token).isascii():
            specials[token_bytes_of(token).decode()] = token_id
    tok = _from_merges(vocab, learned, pre)
    if pre in IGNORE_MERGES:
        tok._whole = dict(tok.token_to_id)  # every learned token is taken whole
    tok.register_special_tokens(specials)
    tok.register_added_tokens(added)
    return tok


_BYTE_LEVEL = unicode_to_bytes()  # GPT-2's byte-to-unicode characters -> their bytes
# str.translate with this table deletes them: what is left is not in byte-to-unicode form.
_DELETE_BYTE_LEVEL = dict.fromkeys(map(ord, _BYTE_LEVEL))


def _from_merges(vocab: GgufVocabulary, ids: dict[str, int], pre: str) -> RegexTokenizer:
    """The tokenizer of the file's merges, in the file's rank order.

    Llama 3's 280,147 merges (converted by Hugging Face from tiktoken's ranks) make 127,744
    tokens: every split of a token into two tokens is a merge, at the token's rank, so a merge
    may join a token made only later. The book's BPE takes them as they are. Merges are looked
    up by their text in byte-to-unicode form: no token needs converting.
    """
    # Bytes that are in no UTF-8 text (0xc0, 0xf5-0xff) and, in Falcon's, some control bytes
    # have no token; they get ids after the file's, so that every text encodes.
    next_id = len(vocab.tokens)
    byte_ids = []
    for char in sorted(_BYTE_LEVEL, key=_BYTE_LEVEL.get):
        if char not in ids:
            ids[char] = next_id
            next_id += 1
        byte_ids.append(ids[char])
    try:
        id_merges = [((ids[left], ids[right]), None) for left, right in vocab.merges]
        new_ids = [ids[left + right] for left, right in vocab.merges]
    except KeyError as error:
        raise GgufError(
            vocab.path, f"a merge joins or makes {error.args[0]!r}, which is not a normal token"
        ) from None
    return RegexTokenizer(id_merges, GGUF_PRE_PATTERNS[pre], {}, byte_ids, new_ids)
