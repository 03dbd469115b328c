"""The steps of BPE, each defined once, for every BPE tokenizer of the book.

A sequence holds *symbols*: characters and merged strings for character-level BPE (chapter 04),
token ids for byte-level and regex BPE (chapters 05, 06). Every step here works on either:

- :func:`get_pair_counts` counts adjacent pairs, :func:`merge` replaces a pair by a new symbol;
- :func:`best_pair` picks the pair to merge (the tie-break rule); :func:`training_rounds`
  repeats the three, the obvious trainer, and :func:`train_naive` keeps its merges
  (``book.tokenizers.bpe.train`` is the fast trainer);
- :func:`ranks_of`, :func:`replay_merges` and :func:`merge_lowest_rank` encode with merges;
  :func:`merge_best_first` encodes as SentencePiece does, by scores (or ranks) with ties;
- :func:`trace_chunks` records each merge that changes a text, for the merge stepper.

A merge is ``(pair, count)``: the pair merged and how often it occurred when training chose it
(``None`` where unknown, e.g. merges recovered from tiktoken): the count is BPE's score.
``merges`` lists them in rank order (rank 0 was learned first). Byte-level convention: ids
0-255 are the bytes and merge number ``rank`` creates id ``256 + rank`` (``NEXT_IDS[rank]``),
unless a tokenizer says otherwise (a vocabulary loaded from elsewhere can number its tokens in
any order).

>>> merges = train_naive([list(b"hi hi")], 1)
>>> merges
[((104, 105), 2)]
>>> merge_lowest_rank(list(b"hi hi!"), ranks_of(merges))
[256, 32, 256, 33]
>>> build_vocab(merges)[256]
b'hi'
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Literal, NamedTuple, TypeAlias, TypeVar

from book.tokenizers.base import N_BYTES
from book.tokenizers.bpe.trace import Piece, Step, initial_step
from book.tokenizers.errors import InvalidUTF8Error

S = TypeVar("S", bound=Hashable)  # a symbol: a token id (int) or a token string (str)

Pair: TypeAlias = tuple[S, S]
Merge: TypeAlias = tuple[Pair[S], int | None]  # a merged pair, and its count when chosen
NewSymbol: TypeAlias = Callable[[int, Pair[S]], S]  # (rank, pair) -> the symbol the merge makes
TieBreak: TypeAlias = Literal["first", "lexicographic"]

NO_RANK = sys.maxsize  # "this pair is not a merge": larger than every real rank
NEXT_IDS = range(N_BYTES, sys.maxsize)  # the byte-level convention: NEXT_IDS[rank] = 256 + rank
TIE_BREAKS = ("first", "lexicographic")


def next_id(rank: int, pair: Pair[int]) -> int:
    """The id merge ``rank`` creates in byte-level BPE: ``256 + rank`` (the pair plays no part).

    >>> next_id(0, (104, 105))
    256
    """
    return N_BYTES + rank


def joined(rank: int, pair: Pair[str]) -> str:
    """The symbol a merge creates in character-level BPE: its two strings joined.

    >>> joined(0, ("u", "g"))
    'ug'
    """
    return pair[0] + pair[1]


def get_pair_counts(
    symbols: Sequence[S], counts: dict[Pair[S], int] | None = None, weight: int = 1
) -> dict[Pair[S], int]:
    """Count adjacent pairs, in order of first occurrence; each adds ``weight`` (to ``counts``).

    Overlapping pairs all count: ``[7, 7, 7]`` holds ``(7, 7)`` twice. ``weight`` is how often
    the whole sequence occurs, e.g. a word's frequency.

    >>> get_pair_counts([1, 2, 3, 1, 2])
    {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    >>> get_pair_counts(("h", "u", "g"), weight=10)
    {('h', 'u'): 10, ('u', 'g'): 10}
    """
    counts = {} if counts is None else counts
    for pair in zip(symbols, symbols[1:]):
        counts[pair] = counts.get(pair, 0) + weight
    return counts


def merge(symbols: Sequence[S], pair: Pair[S], new: S) -> list[S]:
    """Replace each occurrence of ``pair``, left to right, by the symbol ``new``.

    >>> merge([1, 2, 3, 1, 2], (1, 2), 256)
    [256, 3, 256]
    >>> merge([7, 7, 7], (7, 7), 256)  # left to right: the first two merge, the third is left
    [256, 7]
    >>> merge(["h", "u", "g"], ("u", "g"), "ug")
    ['h', 'ug']
    """
    first, second = pair
    merged: list[S] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            merged.append(new)
            i += 2
        else:
            merged.append(symbols[i])
            i += 1
    return merged


def check_tie_break(tie_break: object) -> TieBreak:
    """``tie_break`` if it names a rule, else a ValueError listing the rules."""
    if tie_break not in TIE_BREAKS:
        raise ValueError(
            f"tie_break must be 'first' (the book's rule: among equally frequent pairs, the one "
            f"that occurs first in the training data) or 'lexicographic' (the pair whose bytes "
            f"are greater, as CS336's handout and subword-nmt do); got {tie_break!r}"
        )
    return tie_break  # type: ignore[return-value]


def symbol_bytes(symbol: int | str | bytes) -> bytes:
    """The bytes of a symbol before any merge: id ``b`` < 256 is byte ``b``; a str its UTF-8;
    bytes themselves (CS336 spells symbols so).

    Merged symbols are spelled by joining their parts' bytes (trainers keep that table).

    >>> symbol_bytes(104), symbol_bytes("</w>"), symbol_bytes(b"h")
    (b'h', b'</w>', b'h')
    """
    if isinstance(symbol, str):
        return symbol.encode("utf-8")
    if isinstance(symbol, bytes):
        return symbol
    return bytes([symbol])


def best_pair(
    counts: Mapping[Pair[S], int],
    tie_break: TieBreak = "first",
    spelled: Mapping[S, bytes] | None = None,
) -> Pair[S]:
    """The pair to merge next: the most frequent; among equals, the tie-break decides.

    ``"first"`` (the book's rule): the pair that occurs first in the data. ``counts`` is in
    order of first occurrence and ``max`` returns the first of equal maxima, so this is just
    ``max(counts, key=counts.get)``. ``"lexicographic"``: the pair whose bytes (``spelled``,
    symbol -> bytes) compare greater, first part first, as CS336's reference trainer does.

    >>> counts = {(98, 99): 2, (97, 98): 2}
    >>> best_pair(counts), best_pair(counts, "lexicographic", {97: b"a", 98: b"b", 99: b"c"})
    ((98, 99), (98, 99))
    >>> best_pair({("b", "a"): 1, ("a", "b"): 1}, "lexicographic", {"a": b"a", "b": b"b"})
    ('b', 'a')
    """
    if tie_break == "first":
        return max(counts, key=counts.__getitem__)
    check_tie_break(tie_break)
    return max(counts, key=lambda pair: (counts[pair], spelled[pair[0]], spelled[pair[1]]))


def weighted(
    sequences: Mapping[Sequence[S], int] | Iterable[Sequence[S]],
) -> list[tuple[list[S], int]]:
    """``[(symbols, weight)]`` from ``{sequence: count}`` or from sequences that count once each.

    >>> weighted({b"ab": 3}), weighted([b"ab", b"c"])
    ([([97, 98], 3)], [([97, 98], 1), ([99], 1)])
    """
    if isinstance(sequences, Mapping):
        return [(list(symbols), count) for symbols, count in sequences.items()]
    return [(list(symbols), 1) for symbols in sequences]


class TrainingRound(NamedTuple):
    """One round of the obvious trainer: what it counted, what it merged, what it left."""

    rank: int  # the merge's rank: 0 for the first one learned
    counts: dict  # every pair's count before the merge, in order of first occurrence
    merge: tuple  # (pair, count): the pair chosen by the tie-break, and its count
    new: Hashable  # the symbol the merge made
    sequences: list  # [(symbols, weight)] after the merge


def training_rounds(
    sequences: Mapping[Sequence[S], int] | Iterable[Sequence[S]],
    new_symbol: NewSymbol = next_id,
    *,
    tie_break: TieBreak = "first",
) -> Iterator[TrainingRound]:
    """Train the obvious way, one round at a time: count all pairs, merge the best, repeat.

    ``sequences`` is ``{sequence: count}`` (e.g. word frequencies, chunk counts, in order of
    first occurrence) or an iterable of sequences. Pairs never span two sequences. The rounds
    stop once no pair is left; each round is computed when asked for.

    >>> [(r.rank, r.merge, r.new) for r in training_rounds([list(b"aaab"), list(b"ab")])]
    [(0, ((97, 97), 2), 256), (1, ((97, 98), 2), 257), (2, ((256, 257), 1), 258)]
    """
    check_tie_break(tie_break)
    data = weighted(sequences)
    spelled = {symbol: symbol_bytes(symbol) for symbols, _ in data for symbol in symbols}
    rank = 0
    while True:
        counts: dict[Pair[S], int] = {}
        for symbols, weight in data:
            get_pair_counts(symbols, counts, weight)
        if not counts:
            return
        pair = best_pair(counts, tie_break, spelled)
        new = new_symbol(rank, pair)
        spelled.setdefault(new, spelled[pair[0]] + spelled[pair[1]])
        data = [(merge(symbols, pair, new), weight) for symbols, weight in data]
        yield TrainingRound(rank, counts, (pair, counts[pair]), new, data)
        rank += 1


def train_naive(
    sequences: Mapping[Sequence[S], int] | Iterable[Sequence[S]],
    num_merges: int,
    new_symbol: NewSymbol = next_id,
    *,
    tie_break: TieBreak = "first",
) -> list[Merge[S]]:
    """The first ``num_merges`` merges of :func:`training_rounds` (fewer if the pairs run out).

    Takes time ``num_merges * len(data)``: the reference that the fast trainer,
    :func:`book.tokenizers.bpe.train.train_merges`, is tested against.

    >>> train_naive([list(b"aaab"), list(b"ab")], 2)
    [((97, 97), 2), ((97, 98), 2)]
    >>> train_naive({("h", "u", "g"): 10, ("p", "u", "g"): 5}, 2, joined)
    [(('u', 'g'), 15), (('h', 'ug'), 10)]
    """
    check_num_merges(num_merges)
    rounds = training_rounds(sequences, new_symbol, tie_break=tie_break)
    return [done.merge for done in islice(rounds, num_merges)]


def check_num_merges(num_merges: object) -> int:
    """``num_merges`` if it is an int >= 0; else a ValueError that says so."""
    if isinstance(num_merges, bool) or not isinstance(num_merges, int) or num_merges < 0:
        raise ValueError(f"num_merges must be an int >= 0, got {num_merges!r}")
    return num_merges


def ranks_of(merges: Iterable[Merge[S]]) -> dict[Pair[S], int]:
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


def build_vocab(
    merges: Iterable[Merge[int]],
    byte_ids: Sequence[int] | None = None,
    new_ids: Sequence[int] = NEXT_IDS,
) -> dict[int, bytes]:
    """The vocabulary ``{id: bytes}``: the 256 bytes, then each merge's two parts joined.

    A merge whose part a later merge makes (Hugging Face's merges converted from tiktoken's
    ranks list every split of a token at the token's rank) is joined once that part is known.

    >>> vocab = build_vocab([((104, 105), 2), ((256, 33), 1)])
    >>> vocab[104], vocab[256], vocab[257]
    (b'h', b'hi', b'hi!')
    """
    byte_ids = identity_byte_ids() if byte_ids is None else byte_ids
    vocab = {token_id: bytes([byte]) for byte, token_id in enumerate(byte_ids)}
    pending: Iterable = enumerate(merges)  # one pass when each merge's parts come before it
    waiting = None
    while pending:
        later = []
        for rank, ((left, right), count) in pending:
            if left in vocab and right in vocab:
                vocab[new_ids[rank]] = vocab[left] + vocab[right]
            else:
                later.append((rank, ((left, right), count)))
        if later and len(later) == waiting:
            rank, (pair, _count) = later[0]
            raise ValueError(f"merge {rank} joins {pair}, which no byte or merge makes")
        pending, waiting = later, len(later)
    return vocab


def replay_merges(
    symbols: Sequence[S], merges: Iterable[Merge[S]], new_symbols: Sequence[S] = NEXT_IDS
) -> list[S]:
    """Encode by applying every merge in training order (slow with many merges, but obvious).

    ``new_symbols[rank]`` is the symbol merge ``rank`` creates (byte level: ``256 + rank``).

    >>> replay_merges(list(b"hi hi!"), [((104, 105), 2), ((256, 33), 1)])
    [256, 32, 257]
    >>> replay_merges(["b", "u", "g"], [(("u", "g"), 20)], ["ug"])
    ['b', 'ug']
    """
    symbols = list(symbols)
    for rank, (pair, _count) in enumerate(merges):
        if pair[0] in symbols:  # cheap pre-check: most merges cannot apply to a given text
            symbols = merge(symbols, pair, new_symbols[rank])
    return symbols


def merge_lowest_rank(
    symbols: Sequence[S], ranks: Mapping[Pair[S], int], new_symbols: Sequence[S] = NEXT_IDS
) -> list[S]:
    """Encode by merging, again and again, the lowest-ranked pair present (leftmost first).

    Same result as :func:`replay_merges` when every merge makes a symbol of its own (as
    trained byte-level merges do): a merge can only create pairs of higher rank (they involve
    its new symbol), so the lowest-ranked pair present is the next merge that replay would
    apply. The cost depends on the text, not on the number of merges.

    >>> merge_lowest_rank(list(b"hi hi!"), {(104, 105): 0, (256, 33): 1})
    [256, 32, 257]
    """
    if len(symbols) > LONG_SEQUENCE:
        return _merge_lowest_rank_heap(symbols, ranks, new_symbols)
    # Keep the rank of every adjacent pair in a list (as tiktoken does): each step re-ranks
    # only the two neighbours of the merged pair, and min/index scan the list at C speed.
    symbols = list(symbols)
    get = ranks.get
    pair_ranks = [get(pair, NO_RANK) for pair in zip(symbols, symbols[1:])]
    while pair_ranks:
        rank = min(pair_ranks)
        if rank == NO_RANK:
            break
        i = pair_ranks.index(rank)  # the leftmost occurrence, as in merge()
        symbols[i : i + 2] = [new_symbols[rank]]
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = get((symbols[i - 1], symbols[i]), NO_RANK)
        if i < len(pair_ranks):
            pair_ranks[i] = get((symbols[i], symbols[i + 1]), NO_RANK)
    return symbols


# Above this many symbols the list scan (quadratic) loses to a heap (n log n); the crossover
# measured on English text with 3,744 merges is between 16 and 32 ids.
LONG_SEQUENCE = 32
_GONE = object()  # marks a merged-away position in the heap encoder's linked list


def _merge_lowest_rank_heap(
    symbols: Sequence[S], ranks: Mapping[Pair[S], int], new_symbols: Sequence[S] = NEXT_IDS
) -> list[S]:
    """:func:`merge_lowest_rank` for long sequences: a linked list of symbols, a heap of ranks.

    Exact for any merges: where a merge creates a pair of lower rank (only where several merges
    make one token), that pair is merged before the rest of the current rank's places.

    Where each rank's pair occurs is kept in a bucket, and a min-heap holds the ranks present:
    pop the lowest, merge its occurrences left to right, file the pairs each merge creates
    under their ranks. An occurrence that an earlier merge changed is skipped (a rank names
    exactly one pair). The heap holds ranks, not occurrences, so a chunk that repeats a few
    merges many times (64K letters of one word) costs little more than one pass per merge.

    >>> _merge_lowest_rank_heap([7, 7, 7, 8], {(7, 7): 0, (256, 8): 2, (7, 8): 1})
    [256, 257]
    """
    tokens: list = list(symbols)
    size = len(tokens)
    next_ = [*range(1, size), -1]
    prev = list(range(-1, size - 1))
    get = ranks.get
    where: dict[int, list[int]] = {}  # rank -> positions where its pair starts (or started)
    heap: list[int] = []  # the ranks that have a bucket

    def file(rank: int, position: int) -> None:
        bucket = where.get(rank)
        if bucket is None:
            where[rank] = [position]
            heapq.heappush(heap, rank)
        else:
            bucket.append(position)

    for position, pair in enumerate(zip(tokens, tokens[1:])):
        if (rank := get(pair)) is not None:
            file(rank, position)
    while heap:
        rank = heapq.heappop(heap)
        new = new_symbols[rank]
        nodes = sorted(where.pop(rank))
        for index, node in enumerate(nodes):
            right = next_[node]
            if right < 0 or tokens[node] is _GONE or get((tokens[node], tokens[right])) != rank:
                continue  # stale: an earlier merge changed this place
            after, before = next_[right], prev[node]
            tokens[node], tokens[right], next_[node] = new, _GONE, after
            lowest = NO_RANK
            if after >= 0:
                prev[after] = node
                if (pushed := get((new, tokens[after]))) is not None:
                    file(pushed, node)
                    lowest = pushed
            if before >= 0 and (pushed := get((tokens[before], new))) is not None:
                file(pushed, before)
                lowest = min(lowest, pushed)
            if lowest < rank:
                # The merge made a pair that ranks before this one (possible only where several
                # merges make one token): it goes first, the rest of this bucket after it.
                for rest in nodes[index + 1 :]:
                    file(rank, rest)
                break
    return [token for token in tokens if token is not _GONE]


def trace_chunks(
    chunks: Sequence[Sequence[S]],
    merges: Sequence[Merge[S]],
    spell: Callable[[S], Piece],
    new_symbols: Sequence[S] = NEXT_IDS,
) -> list[Step]:
    """The pieces of all ``chunks`` before any merge and after each merge that changed them.

    Replays the merges in rank order on every chunk; a merge whose parts are not both present
    is skipped at once, so even 200,000 merges trace a sentence quickly. ``spell`` turns a
    symbol into the piece shown (its bytes, or the string itself).

    >>> merges = [((104, 105), 2), ((256, 33), 1)]
    >>> steps = trace_chunks([list(b"hi!")], merges, build_vocab(merges).__getitem__)
    >>> [(step.rank, step.count, step.pieces) for step in steps]
    [(None, None, (b'h', b'i', b'!')), (0, 2, (b'hi', b'!')), (1, 1, (b'hi!',))]
    """
    chunks = [list(chunk) for chunk in chunks]

    def pieces() -> tuple[Piece, ...]:
        return tuple(spell(symbol) for chunk in chunks for symbol in chunk)

    present = {symbol for chunk in chunks for symbol in chunk}
    steps = [initial_step(pieces())]
    for rank, (pair, count) in enumerate(merges):
        if pair[0] not in present or pair[1] not in present:
            continue
        new = new_symbols[rank]
        merged = [merge(chunk, pair, new) for chunk in chunks]
        if sum(map(len, merged)) == sum(map(len, chunks)):
            continue  # both parts occur, but never side by side
        chunks = merged
        present = {symbol for chunk in chunks for symbol in chunk}
        steps.append(Step(rank, (spell(pair[0]), spell(pair[1])), spell(new), count, pieces()))
    return steps


def utf8_bytes(text: str) -> bytes:
    """``text.encode("utf-8")``, with a clear error for text that holds a lone surrogate.

    >>> utf8_bytes("é")
    b'\\xc3\\xa9'
    """
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise surrogate_error(text) from None


def surrogate_error(text: str, offset: int = 0) -> UnicodeEncodeError:
    """The error for ``text`` holding a lone surrogate, which has no UTF-8 bytes (so no tokens).

    ``offset`` is where ``text`` starts in a longer text (the position reported is in that).
    """
    index = next(i for i, ch in enumerate(text) if "\ud800" <= ch <= "\udfff")
    position = offset + index
    reason = (
        f"lone surrogate U+{ord(text[index]):04X} at position {position} is not a character, "
        "so it has no UTF-8 bytes and no tokens. It comes from text decoded wrongly (e.g. half "
        "of a JSON '\\ud83d\\ude00' escape pair). Repair the text first, e.g. with "
        "text.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace'), which is what "
        "tiktoken does silently"
    )
    return UnicodeEncodeError("utf-8", text, index, index + 1, reason)


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


def merge_best_first(
    symbols: Sequence[str], priority: Callable[[str, str], float | None]
) -> list[str]:
    """Encode as SentencePiece's BPE does: join the best adjacent pair, one pair at a time.

    ``priority(left, right)`` ranks a pair (lower is better; ``None``: never joined). The
    best pair present is joined, the leftmost among equals, and the two pairs it creates are
    ranked; until no pair has a priority. SentencePiece ranks a pair by minus the score of
    the piece it makes (``bpe_model.cc``), which need not grow with each merge, and equal
    scores are ties, so this keeps every candidate in a heap rather than one pair a rank
    (:func:`merge_lowest_rank`); an entry that a join has made stale is skipped.

    >>> scores = {"ab": -1.0, "bc": -1.0, "abc": -2.0}
    >>> merge_best_first(list("abc"), lambda a, b: -scores[a + b] if a + b in scores else None)
    ['abc']
    """
    texts: list[str | None] = list(symbols)
    next_ = [*range(1, len(texts)), -1]
    prev = list(range(-1, len(texts) - 1))
    heap: list[tuple[float, int, int, str]] = []

    def push(left: int, right: int) -> None:
        a, b = texts[left], texts[right]
        if (rank := priority(a, b)) is not None:
            heapq.heappush(heap, (rank, left, right, a + b))

    for left in range(len(texts) - 1):
        push(left, left + 1)
    while heap:
        _rank, left, right, joined_text = heapq.heappop(heap)
        a, b = texts[left], texts[right]
        if a is None or b is None or next_[left] != right or a + b != joined_text:
            continue  # stale: a join since the push changed one side
        texts[left], texts[right] = joined_text, None
        next_[left] = after = next_[right]
        if after >= 0:
            prev[after] = left
            push(left, after)
        if prev[left] >= 0:
            push(prev[left], left)
    return [text for text in texts if text is not None]
