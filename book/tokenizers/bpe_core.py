"""Byte-level BPE primitives shared by the byte tokenizer (chapter 05) and the regex one (06).

Conventions used everywhere in this module:

- text becomes ids through its UTF-8 bytes; ids 0-255 are the 256 single-byte tokens;
- merge number ``rank`` (0 = learned first) creates id ``256 + rank``, so ids grow with rank
  and "lowest-ranked pair" and "pair that makes the smallest new id" mean the same thing;
- ``merges`` is a list of ``(pair, count)`` in rank order, ``count`` being how often the pair
  occurred when training chose it (``None`` where unknown, e.g. merges recovered from tiktoken);
- ``ranks`` is the same information as a lookup table, ``{pair: rank}``.

>>> merges = [((104, 105), 2)]                 # 'h' 'i' -> 256, seen twice in training
>>> ranks = ranks_of(merges)
>>> merge_lowest_rank(list(b"hi hi"), ranks)
[256, 32, 256]
>>> build_vocab(merges)[256]
b'hi'
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Iterable, Mapping, Sequence

from book.tokenizers.errors import InvalidUTF8Error
from book.tokenizers.trace import Step, initial_step

N_BYTES = 256  # ids 0-255 are the byte tokens; the first merge creates id 256
NO_RANK = sys.maxsize  # "this pair is not a merge": larger than every real rank

Pair = tuple[int, int]
Merge = tuple[Pair, int | None]  # a merged pair and its count when training chose it


def get_pair_counts(ids: Sequence[int], counts: dict[Pair, int] | None = None) -> dict[Pair, int]:
    """Count adjacent pairs of ``ids``, in order of first occurrence (added to ``counts`` if given).

    Overlapping pairs all count: ``[7, 7, 7]`` holds ``(7, 7)`` twice.

    >>> get_pair_counts([1, 2, 3, 1, 2])
    {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    """
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids: Sequence[int], pair: Pair, new_id: int) -> list[int]:
    """Replace each occurrence of ``pair`` in ``ids``, left to right, by ``new_id``.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 256)
    [256, 3, 256]
    >>> merge([7, 7, 7], (7, 7), 256)  # left to right: the first two merge, the third is left
    [256, 7]
    """
    merged: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def ranks_of(merges: Iterable[Merge]) -> dict[Pair, int]:
    """The merges as a lookup table ``{pair: rank}``.

    >>> ranks_of([((104, 105), 2), ((256, 33), 1)])
    {(104, 105): 0, (256, 33): 1}
    """
    return {pair: rank for rank, (pair, _count) in enumerate(merges)}


def identity_byte_ids() -> list[int]:
    """The usual byte order: byte ``b`` is token ``b``.

    tiktoken's encodings give the 256 bytes the ids 0-255 too, but in another order (GPT-2
    lists printable characters first, so ``!`` is 0); ``byte_ids[b]`` is then byte b's id.
    """
    return list(range(N_BYTES))


def build_vocab(merges: Iterable[Merge], byte_ids: Sequence[int] | None = None) -> dict[int, bytes]:
    """The vocabulary ``{id: bytes}``: the 256 bytes, then each merge's two parts joined.

    >>> vocab = build_vocab([((104, 105), 2), ((256, 33), 1)])
    >>> vocab[104], vocab[256], vocab[257]
    (b'h', b'hi', b'hi!')
    """
    byte_ids = identity_byte_ids() if byte_ids is None else byte_ids
    vocab = {token_id: bytes([byte]) for byte, token_id in enumerate(byte_ids)}
    for rank, ((left, right), _count) in enumerate(merges):
        vocab[N_BYTES + rank] = vocab[left] + vocab[right]
    return vocab


def replay_merges(ids: Sequence[int], merges: Iterable[Merge]) -> list[int]:
    """Encode by applying every merge in training order (slow with many merges, but obvious).

    >>> replay_merges(list(b"hi hi!"), [((104, 105), 2), ((256, 33), 1)])
    [256, 32, 257]
    """
    ids = list(ids)
    for rank, (pair, _count) in enumerate(merges):
        if pair[0] in ids:  # cheap pre-check: most merges cannot apply to a given text
            ids = merge(ids, pair, N_BYTES + rank)
    return ids


def merge_lowest_rank(ids: Sequence[int], ranks: Mapping[Pair, int]) -> list[int]:
    """Encode by merging, again and again, the lowest-ranked pair present (leftmost first).

    Same result as :func:`replay_merges`: a merge can only create pairs of higher rank (they
    involve its new id), so the lowest-ranked pair present is the next merge that replay
    would apply. The cost depends on the text, not on the number of merges.

    >>> merge_lowest_rank(list(b"hi hi!"), {(104, 105): 0, (256, 33): 1})
    [256, 32, 257]
    """
    if len(ids) > LONG_SEQUENCE:
        return _merge_lowest_rank_heap(ids, ranks)
    # Keep the rank of every adjacent pair in a list (as tiktoken does): each step re-ranks
    # only the two neighbours of the merged pair, and min/index scan the list at C speed.
    ids = list(ids)
    pair_ranks = [ranks.get(pair, NO_RANK) for pair in zip(ids, ids[1:])]
    while pair_ranks:
        rank = min(pair_ranks)
        if rank == NO_RANK:
            break
        i = pair_ranks.index(rank)  # the leftmost occurrence, as in merge()
        ids[i : i + 2] = [N_BYTES + rank]
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = ranks.get((ids[i - 1], ids[i]), NO_RANK)
        if i < len(pair_ranks):
            pair_ranks[i] = ranks.get((ids[i], ids[i + 1]), NO_RANK)
    return ids


# Above this many ids the list scan (quadratic) loses to a heap (n log n); the crossover
# measured on English text with 3,744 merges is between 16 and 32 ids.
LONG_SEQUENCE = 32


def _merge_lowest_rank_heap(ids: Sequence[int], ranks: Mapping[Pair, int]) -> list[int]:
    """:func:`merge_lowest_rank` for long sequences: a linked list of tokens and a heap of pairs.

    The heap holds ``(rank, node)`` for pairs as they were when pushed; an entry whose node
    now starts a different pair is stale and skipped (a rank names exactly one pair).

    >>> _merge_lowest_rank_heap([7, 7, 7, 8], {(7, 7): 0, (256, 8): 2, (7, 8): 1})
    [256, 257]
    """
    tokens = list(ids)
    size = len(tokens)
    next_ = [*range(1, size), -1]
    prev = list(range(-1, size - 1))
    heap = [(ranks[pair], i) for i, pair in enumerate(zip(tokens, tokens[1:])) if pair in ranks]
    heapq.heapify(heap)
    while heap:
        rank, node = heapq.heappop(heap)
        right = next_[node]
        if tokens[node] < 0 or right < 0 or ranks.get((tokens[node], tokens[right])) != rank:
            continue
        new_id, after, before = N_BYTES + rank, next_[right], prev[node]
        tokens[node], tokens[right], next_[node] = new_id, -1, after
        if after >= 0:
            prev[after] = node
            pushed = ranks.get((new_id, tokens[after]))
            if pushed is not None:
                heapq.heappush(heap, (pushed, node))
        if before >= 0:
            pushed = ranks.get((tokens[before], new_id))
            if pushed is not None:
                heapq.heappush(heap, (pushed, before))
    return [token for token in tokens if token >= 0]


def trace_chunks(
    chunks: Sequence[Sequence[int]], merges: Sequence[Merge], vocab: Mapping[int, bytes]
) -> list[Step]:
    """The pieces of all ``chunks`` before any merge and after each merge that changed them.

    Lowest rank first: each step finds the lowest-ranked pair present in any chunk and merges
    it in every chunk, so the cost grows with the text, not with the number of merges.

    >>> merges = [((104, 105), 2), ((256, 33), 1)]
    >>> steps = trace_chunks([list(b"hi!")], merges, build_vocab(merges))
    >>> [(step.rank, step.count, step.pieces) for step in steps]
    [(None, None, (b'h', b'i', b'!')), (0, 2, (b'hi', b'!')), (1, 1, (b'hi!',))]
    """
    ranks = ranks_of(merges)
    chunks = [list(chunk) for chunk in chunks]

    def pieces() -> tuple[bytes, ...]:
        return tuple(vocab[token_id] for chunk in chunks for token_id in chunk)

    steps = [initial_step(pieces())]
    while True:
        rank = min((ranks.get(p, NO_RANK) for c in chunks for p in zip(c, c[1:])), default=NO_RANK)
        if rank == NO_RANK:
            return steps
        pair, count = merges[rank]
        new_id = N_BYTES + rank
        chunks = [merge(chunk, pair, new_id) for chunk in chunks]
        parts = (vocab[pair[0]], vocab[pair[1]])
        steps.append(Step(rank, parts, vocab[new_id], count, pieces()))


def utf8_bytes(text: str) -> bytes:
    """``text.encode("utf-8")``, with a clear error for text that holds a lone surrogate.

    >>> utf8_bytes("é")
    b'\\xc3\\xa9'
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise surrogate_error(text) from None


def surrogate_error(text: str) -> UnicodeEncodeError:
    """The error for ``text`` holding a lone surrogate, which has no UTF-8 bytes (so no tokens)."""
    position = next(i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff")
    reason = (
        f"lone surrogate U+{ord(text[position]):04X} at position {position} is not a character, "
        "so it has no UTF-8 bytes and no tokens. It comes from text decoded wrongly (e.g. half "
        "of a JSON '\\ud83d\\ude00' escape pair). Repair the text first, e.g. with "
        "text.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace'), which is what "
        "tiktoken does silently"
    )
    return UnicodeEncodeError("utf-8", text, position, position + 1, reason)


def decode_utf8(pieces: Sequence[bytes], errors: str = "replace") -> str:
    """Join the tokens' bytes and decode them as UTF-8.

    ``errors="replace"`` (the default) turns bytes that are not valid UTF-8 into U+FFFD, which
    is what a model's output needs: any id list must be displayable, and a list cut in the
    middle of a multi-byte character is normal while generating. ``errors="strict"`` raises
    :class:`InvalidUTF8Error` naming the tokens that hold the bad bytes.

    >>> decode_utf8([b"caf", b"\\xc3"])
    'caf\\ufffd'
    >>> decode_utf8([b"caf", b"\\xc3\\xa9"], errors="strict")
    'café'
    """
    data = b"".join(pieces)
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as error:
        raise InvalidUTF8Error.from_decode_error(error, pieces) from None


def train_naive(chunks: Sequence[Sequence[int]], num_merges: int) -> list[Merge]:
    """Learn up to ``num_merges`` merges the obvious way: count all pairs, merge the best, repeat.

    Pairs never span two chunks. Ties go to the pair that occurs first in the data: the
    counts dict is built in order of first occurrence and ``max`` returns the first of equal
    maxima. Stops early once no pair is left. Takes time ``num_merges * len(data)``: fine for
    a page of text, see :func:`book.tokenizers.byte_bpe.train_merges` for real corpora.

    >>> train_naive([list(b"aaab"), list(b"ab")], 2)
    [((97, 97), 2), ((97, 98), 2)]
    """
    chunks = [list(chunk) for chunk in chunks]
    merges: list[Merge] = []
    for rank in range(num_merges):
        counts: dict[Pair, int] = {}
        for chunk in chunks:
            get_pair_counts(chunk, counts)
        if not counts:
            break
        best = max(counts, key=counts.get)  # first of equal maxima: the book's tie-break
        merges.append((best, counts[best]))
        chunks = [merge(chunk, best, N_BYTES + rank) for chunk in chunks]
    return merges
