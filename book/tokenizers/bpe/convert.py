"""A BPE given as others give it: tiktoken's ranks, or ``{id: bytes}`` and merges of bytes.

tiktoken stores ``{token bytes: rank}`` and no merges; :func:`recover_merges` finds them.
CS336 and Hugging Face give a vocabulary ``{id: bytes}`` and merges as pairs of bytes.

The book's tokenizers hold merges as pairs of ids. :func:`model_from_vocab_merges` turns a
vocabulary and merges of bytes into that form, keeping every id exactly as the vocabulary
numbers it (GPT-2's vocabulary is not in byte order; CS336's puts a special token at 0), and
checks that they make a BPE: every byte present, every merge joining two tokens made before
it into a token of the vocabulary, no token listed twice.

>>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"hi", 257: b"<|eot|>"}
>>> model = model_from_vocab_merges(vocab, [(b"h", b"i")], ["<|eot|>"])
>>> model.merges, model.new_ids, model.special_tokens
([((104, 105), None)], [256], {'<|eot|>': 257})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from book.tokenizers.base import N_BYTES
from book.tokenizers.bpe.core import Merge, merge_lowest_rank
from book.tokenizers.bpe.patterns import check_special_names


class BPEModel(NamedTuple):
    """The book's form of a byte-level BPE: what ``RegexTokenizer(...)`` is built from."""

    merges: list[Merge]  # pairs of ids, in rank order (counts unknown: None)
    byte_ids: list[int]  # byte b -> its id
    new_ids: list[int]  # rank -> the id that merge makes
    special_tokens: dict[str, int]


def model_from_vocab_merges(
    vocab: Mapping[int, bytes],
    merges: Sequence[tuple[bytes, bytes]],
    special_tokens: Iterable[str] | None = None,
) -> BPEModel:
    """Ids, merges of ids and special tokens from ``{id: bytes}`` and merges of bytes.

    ``special_tokens`` (names) already in the vocabulary keep their ids; the others are added
    after the largest id, as CS336's tokenizer does. With ``None``, the vocabulary's entries
    that neither a byte nor a merge makes are the special tokens. A merge whose parts are not
    tokens made before it, a vocabulary without some byte, or a token listed twice is an error.

    >>> vocab = {0: b"<|eot|>", **{1 + i: bytes([i]) for i in range(256)}, 257: b"ab"}
    >>> model_from_vocab_merges(vocab, [(b"a", b"b")]).special_tokens
    {'<|eot|>': 0}
    """
    ids: dict[bytes, int] = {}
    for token_id, token in vocab.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise ValueError(f"vocabulary ids must be ints >= 0, got {token_id!r}")
        if not isinstance(token, bytes) or not token:
            raise ValueError(f"vocabulary entry {token_id} must be non-empty bytes, got {token!r}")
        if token in ids:
            raise ValueError(
                f"the vocabulary lists {token!r} twice (ids {ids[token]} and {token_id}): a "
                "token must have one id, or encode could not choose"
            )
        ids[token] = token_id
    missing = [byte for byte in range(N_BYTES) if bytes([byte]) not in ids]
    if missing:
        raise ValueError(
            f"the vocabulary has no token for byte 0x{missing[0]:02x} ({len(missing)} of the "
            "256 bytes are missing): byte-level BPE starts from all 256 single bytes, or a "
            "text holding that byte could not be encoded"
        )
    byte_ids = [ids[bytes([byte])] for byte in range(N_BYTES)]
    made = {bytes([byte]) for byte in range(N_BYTES)}
    id_merges: list[Merge] = []
    new_ids: list[int] = []
    for rank, (left, right) in enumerate(merges):
        _check_merge(rank, left, right, ids, made)
        made.add(left + right)
        id_merges.append(((ids[left], ids[right]), None))
        new_ids.append(ids[left + right])
    return BPEModel(id_merges, byte_ids, new_ids, _specials(vocab, ids, made, special_tokens))


def _check_merge(rank: int, left: bytes, right: bytes, ids: Mapping, made: set) -> None:
    """A merge must join two tokens of the vocabulary, made before it, into a third one."""
    where = f"merge {rank} ({left!r}, {right!r})"
    for part in (left, right):
        if not isinstance(part, bytes):
            raise ValueError(f"{where}: the parts of a merge must be bytes, got {part!r}")
        if part not in ids:
            raise ValueError(f"{where}: {part!r} is not in the vocabulary")
        if part not in made:
            raise ValueError(
                f"{where}: no byte or earlier merge makes {part!r}, so this merge could "
                "never apply; merges must be listed in the order they were learned"
            )
    if left + right not in ids:
        raise ValueError(f"{where} makes {left + right!r}, which is not in the vocabulary")
    if left + right in made:
        raise ValueError(f"{where} makes {left + right!r}, which a byte or earlier merge makes")


def _specials(
    vocab: Mapping[int, bytes],
    ids: Mapping[bytes, int],
    made: set[bytes],
    special_tokens: Iterable[str] | None,
) -> dict[str, int]:
    """The special tokens ``{name: id}``; every other entry must be made by a byte or merge."""
    others = [token for token in ids if token not in made]
    if special_tokens is None:
        names = []
        for token in others:
            try:
                names.append(token.decode("utf-8"))
            except UnicodeDecodeError:
                raise ValueError(
                    f"vocabulary entry {ids[token]} ({token!r}) is made by no merge and is not "
                    "UTF-8 text, so it is not a special token either; remove it"
                ) from None
    else:
        names = check_special_names(special_tokens)
    specials: dict[str, int] = {}
    next_id = max(vocab, default=-1) + 1
    for name in names:
        token = name.encode("utf-8")
        if token in made:
            raise ValueError(
                f"special token {name!r} is also a learned token (a byte or a merge makes "
                "it): its text would have two ids"
            )
        if token in ids:
            specials[name] = ids[token]
        else:  # added after the vocabulary, as CS336's tokenizer does
            specials[name] = next_id
            next_id += 1
    unexplained = [token for token in others if token.decode("utf-8", "replace") not in specials]
    if unexplained:
        token = unexplained[0]
        raise ValueError(
            f"vocabulary entry {ids[token]} ({token!r}) is made by no merge and is not one of "
            f"the special tokens {sorted(specials)}: add it to special_tokens if it is one "
            "(or pass special_tokens=None to take every such entry as one)"
        )
    return specials


def vocab_and_merges(
    byte_ids: Sequence[int],
    merges: Sequence[Merge],
    new_ids: Sequence[int],
    special_tokens: Mapping[str, int],
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """The other way: ``({id: bytes}, [(left bytes, right bytes), ...])``, specials included.

    >>> vocab, merges = vocab_and_merges(range(256), [((104, 105), 3)], [256], {"<|eot|>": 257})
    >>> vocab[256], vocab[257], merges
    (b'hi', b'<|eot|>', [(b'h', b'i')])
    """
    vocab = {token_id: bytes([byte]) for byte, token_id in enumerate(byte_ids)}
    pairs = []
    for new_id, ((left, right), _count) in zip(new_ids, merges):
        pairs.append((vocab[left], vocab[right]))
        vocab[new_id] = vocab[left] + vocab[right]
    for name, token_id in special_tokens.items():
        vocab[token_id] = name.encode("utf-8")
    return dict(sorted(vocab.items())), pairs


def recover_merges(mergeable_ranks: Mapping[bytes, int]) -> tuple[list[int], list[Merge]]:
    """``byte_ids`` and ``merges`` equivalent to tiktoken's ``{token bytes: rank}``.

    Token ids are the ranks: the 256 single bytes have ranks 0-255 (in their own order) and
    the token of rank ``r`` is merge number ``r - 256``. Its two parts are what BPE makes of
    its bytes with the merges recovered before it (the lower ranks): exactly two tokens, or
    the ranks are not those of a BPE. Counts are unknown (``None``).

    >>> recover_merges({bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257})[1]
    [((97, 98), None), ((256, 99), None)]
    """
    tokens = sorted(mergeable_ranks, key=mergeable_ranks.get)
    if [mergeable_ranks[token] for token in tokens] != list(range(len(tokens))):
        raise ValueError("the ranks must be 0, 1, 2, ... without gaps or repeats")
    if any(len(token) != 1 for token in tokens[:N_BYTES]) or len(tokens) < N_BYTES:
        raise ValueError("ranks 0-255 must be the 256 single bytes")
    byte_ids = [mergeable_ranks[bytes([byte])] for byte in range(N_BYTES)]
    ranks: dict = {}
    merges: list[Merge] = []
    for rank, token in enumerate(tokens[N_BYTES:]):
        parts = merge_lowest_rank([byte_ids[byte] for byte in token], ranks)
        if len(parts) != 2:
            raise ValueError(
                f"token {token!r} (rank {N_BYTES + rank}) cannot be built by merging two "
                "lower-ranked tokens, so no list of merges reproduces this encoding"
            )
        ranks[tuple(parts)] = rank
        merges.append((tuple(parts), None))
    return byte_ids, merges
