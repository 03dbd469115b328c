"""Checks of exercises/10_fast_bpe.ipynb. References: small functions here and book.tokenizers.

Every task extends the chapter's code: merging pre-tokens stored as tuples of bytes (CS336's
form) through the index, a heap entry with CS336's tie-break and a pop that skips stale
entries, adding up workers' counts that arrive out of order, and a streaming encoder that
yields as soon as it may. Each task is one spec; the probes (run in the learner's kernel) watch
the work an answer does: merge_pretokens may read only the pre-tokens it merges and touch only
their pairs, pop_best may not scan the counts or the heap and must pop the entry it returns,
merge_unordered and stream_encode are fed by a source that notes when each result or part is
asked for. Each probe returns its findings under names, which a failure message shows.
"""

from __future__ import annotations

import heapq
import random
import unicodedata
from collections import Counter
from collections.abc import Callable
from functools import cache

from book import corpora
from book.checks.sealed import SEALED
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    drawn_until_caught,
    random_text,
    window,
)
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, joined, merge
from book.tokenizers.bpe.patterns import GPT2_PATTERN
from book.tokenizers.bpe.pretokenize import cuts, last_cut, training_chunk_counts
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.bpe.train import inverted, train_merges

SymbolPair = tuple[bytes, bytes]
EOT = "<|endoftext|>"

HANDOUT = {(b"l", b"o", b"w"): 5, (b"l", b"o", b"w", b"e", b"r"): 2}
HANDOUT |= {tuple(bytes([b]) for b in word): n for word, n in [(b"widest", 3), (b"newest", 6)]}


def merge_symbols(symbols: tuple[bytes, ...], pair: SymbolPair) -> tuple[bytes, ...]:
    """Each occurrence of pair, left to right, joined into one symbol.

    >>> merge_symbols((b"a", b"a", b"a"), (b"a", b"a"))
    (b'aa', b'a')
    """
    return tuple(merge(symbols, pair, joined(0, pair)))


def pair_index(counts: dict[tuple, int]) -> tuple[dict, dict]:
    """(pair_counts, where) of pre-tokens: each pair's weighted count and the set holding it."""
    pair_counts: dict[SymbolPair, int] = {}
    where: dict[SymbolPair, set] = {}
    for pretoken, count in counts.items():
        get_pair_counts(pretoken, pair_counts, count)
        for pair in zip(pretoken, pretoken[1:]):
            where.setdefault(pair, set()).add(pretoken)
    return pair_counts, where


@cache
def _plays(start: int = 0, n_chars: int = 3000) -> dict[bytes, int]:
    """Pre-token counts of a stretch of the training plays (GPT-2's split)."""
    return training_chunk_counts(corpora.english("train")[start : start + n_chars], GPT2_PATTERN)


def _byte_merges(word_counts: dict[bytes, int], n: int) -> list[SymbolPair]:
    """The book's first n merges of word_counts, as pairs of bytes."""
    merges = train_merges(word_counts, n)
    vocab = build_vocab(merges)
    return [(vocab[a], vocab[b]) for (a, b), _count in merges]


def _state(word_counts: dict[bytes, int], k: int) -> tuple[dict, SymbolPair]:
    """The pre-tokens after the first k merges, and merge k (the next one)."""
    merges = _byte_merges(word_counts, k + 1)
    counts = {tuple(bytes([b]) for b in word): n for word, n in word_counts.items()}
    for pair in merges[:k]:
        counts = {merge_symbols(t, pair): n for t, n in counts.items()}
    return counts, merges[min(k, len(merges) - 1)]


# --- Task 1: merge_pretokens ---------------------------------------------------------------------

# pair_counts and where are mappings that count every read and write made to them: merging
# through the index touches a few pairs per symbol of the pre-tokens in where[pair]; counting
# and indexing everything again touches every pair. Each pre-token stands for a tuple (it hashes
# and compares like one) and notes when its symbols are read (iterated, indexed, searched); what
# the mappings hold and the symbols are kept sealed (``sealed``), out of the answer's reach:
# merging through the index reads only the
# pre-tokens in where[pair]; looking for them in counts reads them all. The probe returns the
# new counts in order, pair_counts and where after, counts unchanged, whether the work on the
# index fits the merge, how many pre-tokens outside where[pair] were read: each under a name,
# which a failure shows ("at ['where afterwards']...").
LEDGER = (
    SEALED
    + """

class Pretoken(Sealed):
    __slots__ = ("_hash", "_len")

    def __init__(self, server, index, symbols):
        super().__init__(server, index)
        self._hash, self._len = hash(symbols), len(symbols)

    def __hash__(self):
        return self._hash

    def __len__(self):
        return self._len

    def __iter__(self):
        return iter(self._value())

    def __getitem__(self, index):
        return self._value()[index]

    def __contains__(self, symbol):
        return symbol in self._value()

    def index(self, *args):
        return self._value().index(*args)

    def count(self, symbol):
        return self._value().count(symbol)

    def __add__(self, other):
        return self._value() + other

    def __radd__(self, other):
        return other + self._value()

    def __repr__(self):
        return repr(self._value())


def probe(answer, counts, pair_counts, where, pair):
    secret, symbols = object(), list(counts)
    server = started(values_server(symbols, secret))
    pretoken = {t: Pretoken(server, k, t) for k, t in enumerate(symbols)}
    counts = {pretoken[t]: n for t, n in counts.items()}
    where = {p: {pretoken.get(t, t) for t in ts} for p, ts in where.items()}
    before = dict(counts)
    holders = {t._index for t in where.get(pair, ())}
    n_symbols = sum(len(t) for t in where.get(pair, ()))
    costs = {"get": 1, "contains": 1, "set": 1, "del": 1, "iter": 1, "len": 0}
    ledgers = [started(mapping_server(dict(m), secret, costs)) for m in (pair_counts, where)]
    merged = answer(counts, *(Watched(ledger) for ledger in ledgers), pair)
    outside = server.send((secret, None))[2] - holders
    (pair_counts, work, _), (where, more, _) = [l.send((secret,)) for l in ledgers]

    def value(x):  # x with every pre-token the symbols it stands for, read with the secret
        if type(x) is Pretoken:
            return symbols[x._index]
        if isinstance(x, tuple):
            return tuple(value(item) for item in tuple.__iter__(x))
        if isinstance(x, list):
            return [value(item) for item in x]
        if isinstance(x, (set, frozenset)):
            return {value(item) for item in x}
        if isinstance(x, dict):
            return {value(k): value(v) for k, v in dict.items(x)}
        return x

    items = list(dict.items(merged)) if isinstance(merged, dict) else merged
    kept = counts == before and list(counts) == list(before)
    return {
        "the dict returned, as a list of items": value(items),
        "pair_counts afterwards": value(pair_counts),
        "where afterwards": value(where),
        "counts, the argument": "left as it was" if kept else "changed by the call",
        "work on pair_counts and where": (
            "through the index"
            if work + more <= 12 * n_symbols + 12
            else "touched pairs it did not merge"
        ),
        "pre-tokens read outside where[pair]": len(outside),
    }
"""
)


def merge_pretokens_reference(counts: dict, pair_counts, where, pair, mistake: str = "") -> dict:
    """Merge the pre-tokens in where[pair]; pair_counts and where updated for them only."""
    renamed = {}
    # sorted: the same work whatever the set's order
    holding = sorted(where[pair] if mistake == "where[pair]" else where.get(pair, ()))
    if mistake == "found in counts":
        holding = [t for t in counts if pair in zip(t, t[1:])]
    for old in holding:
        new, n = merge_symbols(old, pair), counts[old]
        olds, news = list(zip(old, old[1:])), list(zip(new, new[1:]))
        if mistake == "once per pre-token":
            olds, news = list(dict.fromkeys(olds)), list(dict.fromkeys(news))
        for p in olds:
            pair_counts[p] = pair_counts[p] - n
            if pair_counts[p] == 0:
                del pair_counts[p]
        unfiled, filed = olds, news
        if mistake == "only the pairs whose count changed":  # the others keep the old key
            unfiled = [p for p in olds if p not in news]
            filed = list(Counter(news) - Counter(olds))
        for p in dict.fromkeys(unfiled):
            holders = where[p]
            holders.discard(old)
            if not holders:
                del where[p]
        for p in news:
            pair_counts[p] = pair_counts.get(p, 0) + n
        for p in dict.fromkeys(filed):
            where.setdefault(p, set()).add(new)
        renamed[old] = new
    merged = {renamed.get(t, t): n for t, n in counts.items()}
    if mistake == "in place":
        counts.clear()
        counts.update(merged)
        return counts
    return merged


def _merged_by_neighbours(counts: dict, pair_counts, where, pair) -> dict:
    """Each occurrence of pair moves its neighbours' pairs to the merged symbol, as if no two
    were adjacent: in a a a a, the (a, a) between two merged pairs is uncounted twice."""
    (a, b), renamed = pair, {}

    def add(p: SymbolPair, n: int) -> None:
        pair_counts[p] = pair_counts.get(p, 0) + n if n > 0 else pair_counts[p] + n
        if pair_counts[p] <= 0:
            del pair_counts[p]

    for old in sorted(where.get(pair, ())):
        n, new, i = counts[old], merge_symbols(old, pair), 0
        while i < len(old) - 1:
            if old[i : i + 2] != pair:
                i += 1
                continue
            add(pair, -n)
            if i > 0:
                add((old[i - 1], a), -n)
                add((old[i - 1], a + b), n)
            if i + 2 < len(old):
                add((b, old[i + 2]), -n)
                add((a + b, old[i + 2]), n)
            i += 2
        for p in set(zip(old, old[1:])):
            where[p].discard(old)
            if not where[p]:
                del where[p]
        for p in set(zip(new, new[1:])):
            where.setdefault(p, set()).add(new)
        renamed[old] = new
    for p in [p for p in where if p not in pair_counts]:
        del where[p]
    return {renamed.get(t, t): n for t, n in counts.items()}


def _rebuilt(counts, pair_counts, where, pair):
    """Every pre-token merged, then everything counted and indexed again."""
    merged = {merge_symbols(pretoken, pair): count for pretoken, count in counts.items()}
    new_counts, new_where = pair_index(merged)
    pair_counts.clear()
    pair_counts.update(new_counts)
    where.clear()
    where.update(new_where)
    return merged


def _merge_mistake(mistake: str) -> Callable:
    return lambda *args: merge_pretokens_reference(*args, mistake=mistake)


def _merge_args(counts: dict, pair, padding: dict | None = None) -> tuple:
    """The arguments of merge_pretokens, with many pre-tokens that do not hold pair added."""
    counts = dict(counts)
    for word, n in (padding or {}).items():
        pretoken = tuple(bytes([b]) for b in word)
        if pair not in zip(pretoken, pretoken[1:]) and pretoken not in counts:
            counts[pretoken] = n
    pair_counts, where = pair_index(counts)
    return (counts, pair_counts, where, pair)


def _with_repeats(state: tuple[dict, SymbolPair]) -> tuple[dict, SymbolPair]:
    """state with a pre-token l r l r l added (pair = (l, r)): each of its pairs twice."""
    counts, (left, right) = state
    return {**counts, (left, right, left, right, left): 2}, (left, right)


# Pre-tokens with a pair far from the others, and one of a single symbol.
FAR = {(b"a", b"b", b"c", b"d"): 2, (b"c", b"d"): 5, (b"the",): 7}


def _merge_cases() -> Cases:
    """The handout, overlaps, pairs left elsewhere, far pairs, the plays."""
    after_st = {merge_symbols(t, (b"s", b"t")): n for t, n in HANDOUT.items()}
    overlap = {(b"a", b"a", b"a"): 1, (b"a", b"a", b"a", b"a"): 2}
    leftover = {(b"x", b"a", b"b", b"x", b"a"): 3, (b"a", b"b"): 1}
    ends = {(b"a", b"b", b"c", b"a", b"b"): 4}
    plays = _plays()
    japanese = {tuple(bytes([b]) for b in w.encode()): n for w, n in [("日本", 2), ("本日", 1)]}
    return [
        (_merge_args(HANDOUT, (b"s", b"t")), "the CS336 handout's first merge"),
        (_merge_args(after_st, (b"e", b"st")), "its second: a merged symbol in a pair"),
        (_merge_args(overlap, (b"a", b"a")), "overlaps: (a, a) twice in a a a, merged once"),
        (_merge_args(leftover, (b"a", b"b")), "(x, a) stays in the word it leaves once"),
        (_merge_args(FAR, (b"a", b"b")), "where[(c, d)] must hold the new tuple, not the old"),
        (_merge_args(ends, (b"a", b"b")), "the pair at both ends"),
        (_merge_args(japanese, (b"\xe6", b"\x97")), "bytes of one character"),
        (_merge_args(leftover, (b"a", b"b"), plays), "among 600 words that lack the pair"),
        (_merge_args(*_state(plays, 0)), "Shakespeare, the first merge"),
        (_merge_args(*_with_repeats(_state(plays, 25))), "Shakespeare, merge 25"),
        (_merge_args(*_state(plays, 40), _plays(3000)), "merge 40, more words without it"),
    ]


def _merge_none() -> Cases:
    """Pairs that no pre-token holds: where has no entry for them."""
    return [
        (_merge_args(FAR, (b"q", b"r")), "a pair that no pre-token holds changes nothing"),
        (_merge_args(FAR, (b"d", b"a")), "nor does one made of symbols that occur apart"),
        (_merge_args({}, (b"a", b"b")), "no pre-tokens"),
    ]


def _merge_hidden(rng: random.Random) -> Cases:
    """Random text after a few merges, then padded with words of the plays."""
    cases = []
    while len(cases) < 3:
        counts = training_chunk_counts(random_text(rng, rng.randint(6, 14)), GPT2_PATTERN)
        if counts:
            state = _with_repeats(_state(counts, rng.randint(0, 6)))
            cases.append((_merge_args(*state, _plays(rng.randrange(0, 20_000, 1000))), "hidden"))
    return cases


MERGED, NONE = "pre-tokens merged", "a pair no pre-token holds"

MERGE_PRETOKENS = TaskSpec(
    "merge_pretokens",
    merge_pretokens_reference,
    (Group(MERGED, 2, _merge_cases, _merge_hidden), Group(NONE, 1, _merge_none)),
    (
        Mistake("counting and indexing everything again: visit only where[pair]", _rebuilt),
        Mistake(
            "looking into every pre-token of counts to find the ones to merge is the scan "
            "that where[pair] saves",
            _merge_mistake("found in counts"),
        ),
        Mistake(
            "a merged pre-token has a new key: every pair it holds must file the new tuple, "
            "also a pair whose count the merge did not change",
            _merge_mistake("only the pairs whose count changed"),
            MERGED,
        ),
        Mistake(
            "each occurrence of a pair counts: a a a holds (a, a) twice",
            _merge_mistake("once per pre-token"),
            MERGED,
        ),
        Mistake(
            "occurrences can be neighbours: in a a a a, merging (a, a) leaves no (a, a) to "
            "take from either side; uncount the old pre-token's pairs and count the new one's",
            _merged_by_neighbours,
            MERGED,
        ),
        Mistake(
            "you changed counts, the argument: return a new dict and leave counts as it is",
            _merge_mistake("in place"),
            MERGED,
        ),
        Mistake(
            "a pair that no pre-token holds has no entry in where: it changes nothing",
            _merge_mistake("where[pair]"),
            NONE,
        ),
    ),
    "afterwards pair_counts and where must describe the new pre-tokens exactly (every "
    "occurrence counted, no zero counts, no empty sets), the new dict keeps the old order, "
    "and only the pre-tokens in where[pair] are read.",
    probe=LEDGER,
)


# --- Task 2: heap_entry --------------------------------------------------------------------------

# The probe pushes one entry per pair and pops them all with heapq: the pairs in that order.
HEAP_ORDER = """
import heapq


def probe(answer, counts):
    entries = [(answer(pair, count), pair) for pair, count in counts.items()]
    heap = [entry for entry, _pair in entries]
    heapq.heapify(heap)
    order = []
    while heap:
        top = heapq.heappop(heap)
        order.append(next(pair for entry, pair in entries if entry is top))
    return {"the pairs, in the order heapq pops their entries": order}
"""


def heap_entry_reference(pair: SymbolPair, count: int) -> tuple:
    """The smallest entry is the highest count, then the greater pair (book's ``inverted``)."""
    return (-count, inverted(pair[0]), inverted(pair[1]), pair)


def _ended(flip: Callable[[int], int], end: int | None) -> Callable:
    """An entry whose symbols have each byte flipped by flip, then end appended (None: none)."""

    def key(data: bytes) -> tuple:
        return (*map(flip, data), *(() if end is None else (end,)))

    return lambda pair, count: (-count, key(pair[0]), key(pair[1]), pair)


def _as_number(symbol: bytes) -> int:
    """symbol's bytes read as one big-endian number (a mistake: b'Z' then sorts below b'BA')."""
    return int.from_bytes(symbol, "big")


HANDOUT_PAIRS = [(b"A", b"B"), (b"A", b"C"), (b"B", b"ZZ"), (b"BA", b"A")]


def _entry_ties() -> Cases:
    """The handout's tie, counts before bytes."""
    counts = {(b"a", b"b"): 3, (b"c", b"d"): 2, (b"e", b"f"): 1, (b"B", b"ZZ"): 2}
    nul = {(b"B", b"ZZ"): 4, (b"B\x00", b"A"): 4, (b"BA", b"A"): 4, (b"A", b"B\x00"): 4}
    return [
        (({pair: 5 for pair in HANDOUT_PAIRS},), "the handout's four tied pairs"),
        ((counts,), "counts first, whatever the bytes"),
        ((nul | {(b"A", b"B"): 4},), "byte 00 after a symbol: b'B\\x00' > b'B'"),
        (({(b"BA", b"A"): 5, (b"Z", b"A"): 5, (b"B", b"ZZ"): 5},), "b'Z' > b'BA', though shorter"),
    ]


def _entry_prefixes() -> Cases:
    """Symbols that are prefixes of one another; bytes 00 and FF."""
    prefixes = {(b"a", b"x"): 2, (b"ab", b"x"): 2, (b"b", b"c"): 2, (b"b", b"cd"): 2}
    extremes = {(b"\xff", b"a"): 1, (b"\xfe\xff", b"a"): 1, (b"\x00", b"a"): 1}
    extremes |= {(b"\x00\x00", b"a"): 1, (b"\xff\xff", b"a"): 1, (b"\x00", b"b"): 3}
    extremes |= {(b"\xff\x01", b"a"): 1}
    return [
        ((prefixes,), "a prefix is smaller: (b'ab', b'x') before (b'a', b'x')"),
        ((extremes,), "bytes 00 and FF, and their prefixes"),
    ]


SYMBOLS = [b"a", b"b", b"ab", b"ba", b"aa", b"\xff", b"\xfe\xff", b"\x00", b"\x00a", b"\x00\x00"]


def _random_counts(rng: random.Random) -> dict:
    """Pairs of symbols that are prefixes of one another, few distinct counts."""
    # sorted, then shuffled: a set's order depends on the process's hash seed
    pairs = sorted({(rng.choice(SYMBOLS), rng.choice(SYMBOLS)) for _ in range(20)})
    rng.shuffle(pairs)
    return {pair: rng.randint(1, 3) for pair in pairs}


def _entry_hidden(rng: random.Random) -> Cases:
    """Random pairs of symbols, drawn until every known mistake orders one of them wrong."""
    return drawn_until_caught(rng, lambda rng: (_random_counts(rng),), HEAP_ENTRY)


HEAP_ENTRY = TaskSpec(
    "heap_entry",
    heap_entry_reference,
    (
        Group("counts and the handout's tie", 1, _entry_ties),
        Group("prefixes, bytes 00 and FF", 1, _entry_prefixes, _entry_hidden),
    ),
    (
        Mistake(
            "heapq pops the smallest entry: a tie must go to the greater pair",
            lambda pair, count: (-count, pair),
        ),
        Mistake(
            "heapq pops the smallest entry: the highest count must make the smallest",
            lambda pair, count: (count, inverted(pair[0]), inverted(pair[1]), pair),
        ),
        Mistake(
            "a symbol that begins a longer one came out first: b'BA' is greater than b'B'",
            _ended(lambda b: 255 - b, None),
        ),
        Mistake(
            "the end of a flipped symbol is also byte 00 flipped: b'B' and b'B\\x00' sort "
            "alike up to it, yet b'B\\x00' is the greater",
            _ended(lambda b: 255 - b, 255),
        ),
        Mistake(
            "the value that ends a symbol sorts before some bytes (00 and 01 negated): b'B' "
            "then comes out before the greater b'B\\x00'",
            _ended(lambda b: -b, -1),
        ),
        Mistake(
            "bytes read as one number make a longer symbol the greater: b'Z' is greater than "
            "b'BA', as Python compares bytes, byte by byte",
            lambda pair, count: (-count, -_as_number(pair[0]), -_as_number(pair[1]), pair),
        ),
        Mistake(
            "compare the left symbols, then the right ones: not the joined bytes",
            lambda pair, count: (-count, inverted(pair[0] + pair[1]), pair),
        ),
    ),
    "the pairs must come out highest count first and, among equal counts, greatest pair "
    "first (left symbols compared as bytes, then right ones), whatever bytes from 00 to FF "
    "they hold.",
    probe=HEAP_ORDER,
)

# --- Task 3: pop_best ----------------------------------------------------------------------------

# The probe runs a trainer's loop on pop_best: entries (-count, rank, serial, pair), rank a pair's
# place among the case's pairs from the greatest, serial the push's number (so that no two
# entries are equal); None in updates pops one (and the pair is merged away), (pair, count) sets
# a count and pushes a fresh entry. The counts refuse to be scanned, and the entries, kept
# sealed (``sealed``) with the counts, note when they are read: a pop that reads entries it
# leaves in the heap (more than the top) scans it, no faster than the chapter's scan. Each entry
# holds its own copy of its pair, so the pair returned tells which entry it came from: if that
# entry is still in the heap afterwards, the answer returned a pair without popping its entry
# (an entry pushed back with the pair's current count, as Hugging Face's trainer does, is
# popped before it is returned).
POP_LOOP = (
    SEALED
    + """
import heapq

SCAN = "pop_best must not scan the counts or the heap: pop entries with heapq"


class Entry(Sealed):
    __slots__ = ()

    def __getitem__(self, index):
        return self._value()[index]

    def __iter__(self):
        return iter(self._value())

    def __len__(self):
        return len(self._value())

    def __repr__(self):
        return repr(self._value())


def probe(answer, counts, updates):
    pairs = sorted({*counts, *(u[0] for u in updates if u is not None)}, reverse=True)
    rank = {pair: k for k, pair in enumerate(pairs)}
    secret, entries = object(), []
    server = started(values_server(entries, secret))
    costs = {"get": 0, "contains": 0, "set": 0, "del": 0}
    store = started(mapping_server(dict(counts), secret, costs, SCAN))

    def push(heap, pair, n):
        entries.append((-n, rank[pair], len(entries), (pair[0], pair[1])))
        heapq.heappush(heap, Entry(server, len(entries) - 1))

    heap = []
    for pair, n in store.send((secret,))[0].items():
        push(heap, pair, n)
    popped, kept, scanned = [], None, None
    for update in updates:
        if update is None:
            read = set(server.send((secret, None))[2])
            best = answer(heap, Watched(store))
            popped.append(best)
            left = {e._index for e in heap if type(e) is Entry}
            if best is not None and kept is None and any(entries[k][-1] is best for k in left):
                kept = f"call {len(popped)} returned {best!r} and left an entry of it in the heap"
            looked = (server.send((secret, None))[2] - read) & left
            if len(looked) > 1 and scanned is None:
                scanned = f"call {len(popped)} read {len(looked)} entries it left in the heap"
            store.send((secret,))[0].pop(best, None)
        else:
            pair, n = update
            if n > 0:
                store.send((secret,))[0][pair] = n
                push(heap, pair, n)
            else:
                store.send((secret,))[0].pop(pair, None)
    return {
        "the pairs returned, call by call": popped,
        "an entry left in the heap": kept,
        "pop_best must not scan the heap: entries it read and left there": scanned,
    }
"""
)


def pop_best_reference(heap: list, counts) -> SymbolPair | None:
    """Pop until an entry's count is current; None when the heap runs out."""
    while heap:
        negated, *_key, pair = heapq.heappop(heap)
        if counts.get(pair) == -negated:
            return pair
    return None


def _first_popped(heap, counts):
    return heapq.heappop(heap)[-1] if heap else None


def _peeked(heap, counts):
    """Stale entries popped, the current one only looked at."""
    while heap:
        negated, *_key, pair = heap[0]
        if counts.get(pair) == -negated:
            return pair
        heapq.heappop(heap)
    return None


def _present(heap, counts):
    while heap:
        pair = heapq.heappop(heap)[-1]
        if pair in counts:
            return pair
    return None


def _scanned(heap, counts):
    return max(counts, key=lambda pair: (counts[pair], pair)) if len(counts) else None


def _pop_cases() -> Cases:
    """Stale and deleted entries, a pair counted again, an empty heap."""
    counts = {(b"a", b"b"): 3, (b"c", b"d"): 2, (b"e", b"f"): 1}
    return [
        ((counts, [None, None, None, None]), "counts first, then None"),
        ((counts, [((b"e", b"f"), 9), None, None]), "a count that grew: its new entry wins"),
        ((counts, [((b"a", b"b"), 1), None, None, None]), "a count that fell: skip the stale"),
        ((counts, [((b"a", b"b"), 0), None, None, None]), "a pair gone (count 0) never comes"),
        ((counts, [None, ((b"a", b"b"), 4), None, None]), "popped, then counted again"),
        (({}, [None, ((b"z", b"z"), 1), None, None]), "an empty heap gives None"),
    ]


def _pop_hidden(rng: random.Random) -> Cases:
    cases = []
    for _ in range(3):
        counts = _random_counts(rng)
        pairs = list(counts)
        updates = [
            None if rng.random() < 0.5 else (rng.choice(pairs), rng.randint(0, 4))
            for _ in range(30)
        ]
        cases.append(((counts, [*updates, *[None] * (len(pairs) + 1)]), "hidden"))
    return cases


# What the hints of the two mistakes about stale entries share (their cases often coincide).
STALE = "an entry is stale when its count is not the pair's count now, even if the pair is there"

POP_BEST = TaskSpec(
    "pop_best",
    pop_best_reference,
    (Group("stale and deleted entries", 1, _pop_cases, _pop_hidden),),
    (
        Mistake("pop past stale entries: " + STALE, _first_popped),
        Mistake(STALE, _present),
        Mistake("the counts and the heap must not be scanned", _scanned),
        Mistake(
            "the entry whose pair you return must come out of the heap too: pop it, do not "
            "only look at the top",
            _peeked,
        ),
    ),
    "the pair returned must be that of the first entry popped whose count is the pair's "
    "count in counts now, that entry popped with the stale ones before it, and None once the "
    "heap is empty.",
    probe=POP_LOOP,
)

# --- Task 4: merge_unordered ---------------------------------------------------------------------

# The counts must be added in block order: the probe compares them as a list of items. The
# results come one at a time from an iterator, as imap_unordered's do, and each block's counts
# note, sealed (``sealed``), when they are read (iterated, looked up, copied): before the next
# result is handed over, every block whose turn has come must have been read, as adding it at
# once reads it.
IN_ORDER = (
    SEALED
    + """

class Block(Watched):
    __slots__ = ()


def probe(answer, results):
    secret, late, arrived, turn = object(), [], set(), 0
    costs = {"get": 1, "contains": 1, "set": 1, "del": 1, "iter": 1, "len": 0}
    blocks = {}  # index -> the servers of the counts that arrived with it

    def read(index):
        return any(server.send((secret,))[2] > 0 for server in blocks[index])

    def source():
        nonlocal turn
        for k, (index, counts) in enumerate(results):
            unread = [i for i in range(turn) if not read(i)]
            if unread and not late:
                late.append(f"result {k} asked for before block {unread[0]}'s counts were read")
            server = started(mapping_server(dict(counts), secret, costs))
            blocks.setdefault(index, []).append(server)
            yield index, Block(server)
            arrived.add(index)
            while turn in arrived:
                turn += 1

    result = answer(source())
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], dict):
        total, most = list(dict.items(result[0])), result[1]
    else:
        total, most = "not a (total, max_waiting) tuple", repr(result)[:80]
    return {
        "total, as a list of items": total,
        "max_waiting": most,
        "a block added late": late[0] if late else None,
    }
"""
)


def merge_unordered_reference(results: list, mistake: str = "") -> tuple[dict, int]:
    """Blocks merged in block order as soon as their turn comes; the most kept waiting."""
    total: dict[bytes, int] = {}
    waiting: dict[int, dict] = {}
    turn = most = 0

    def add(counts: dict) -> None:
        for chunk, count in counts.items():
            total[chunk] = total.get(chunk, 0) + count

    for index, counts in results:
        if (index in waiting or index < turn) and mistake != "repeats":
            raise ValueError(f"block {index} arrived twice")
        if mistake == "on arrival":
            add(counts)
        waiting[index] = {} if mistake == "on arrival" else counts
        if mistake == "before merging":
            most = max(most, len(waiting))
        while turn in waiting:
            add(waiting.pop(turn))
            turn += 1
        if mistake != "before merging":
            most = max(most, len(waiting))
    if waiting and mistake != "gaps":
        raise ValueError(f"block {turn} never arrived")
    for index in sorted(waiting):  # a mistake's: the blocks after a gap added at the end
        add(waiting[index])
    return total, most


def _sorted_first(results) -> tuple[dict, int]:
    """Every result read first, then the blocks added in block order, then the waiting counted."""
    results = list(results)
    indexes = [index for index, _counts in results]
    if sorted(indexes) != list(range(len(indexes))):
        raise ValueError("a block arrived twice, or never")
    total: dict[bytes, int] = {}
    for _index, counts in sorted(results, key=lambda result: result[0]):
        for chunk, count in counts.items():
            total[chunk] = total.get(chunk, 0) + count
    arrived, turn, most = set(), 0, 0
    for index in indexes:
        arrived.add(index)
        while turn in arrived:
            turn += 1
        most = max(most, len(arrived) - turn)
    return total, most


def _blocks(text: str, n_blocks: int) -> list[dict[bytes, int]]:
    """The pre-token counts of text cut into n_blocks blocks at special tokens."""
    documents = text.split(EOT)
    size = max(1, -(-len(documents) // n_blocks))
    parts = [EOT.join(documents[i : i + size]) for i in range(0, len(documents), size)]
    return [training_chunk_counts(part, GPT2_PATTERN, [EOT]) for part in parts]


def _arrivals(blocks: list[dict], order: list[int]) -> list:
    """(index, counts) in the order given."""
    return [(index, blocks[index]) for index in order]


SMALL_BLOCKS = [{b"a": 1, b"b": 2}, {b"b": 1, b"c": 1}, {b"c": 5, b"a": 1}, {b"d": 1}]


def _unordered_small() -> Cases:
    """Orders and waiting, small blocks and Shakespeare's."""
    small = SMALL_BLOCKS
    return [
        ((_arrivals(small, [0, 1, 2, 3]),), "in order: nothing waits"),
        ((_arrivals(small, [2, 0, 1, 3]),), "2 waits for 0 and 1"),
        ((_arrivals(small, [3, 2, 1, 0]),), "reversed: three wait"),
        ((_arrivals(small, [1, 3, 0, 2]),), "counts are added, not replaced"),
        ((_arrivals(small[:1], [0]),), "one block"),
        (([],), "no blocks"),
        ((_arrivals(_play_blocks(), [4, 1, 0, 5, 3, 2]),), "Shakespeare in 6 blocks"),
    ]


def _unordered_errors() -> Cases:
    """A block twice, while it waits or after its turn, and a block that never comes."""
    small, real = SMALL_BLOCKS, _play_blocks()
    return [
        ((_arrivals(small, [0, 2, 2, 1, 3]),), "block 2 twice raises ValueError"),
        ((_arrivals(small, [0, 1, 0, 2, 3]),), "block 0 again after its turn"),
        ((_arrivals(small, [0, 2, 3]),), "block 1 missing raises ValueError"),
        ((_arrivals(real, [3, 1, 3, 0, 2, 4, 5]),), "block 3 twice while it waits"),
        ((_arrivals(real, [5, 0, 2, 3, 4]),), "block 1 never comes"),
    ]


@cache
def _play_blocks() -> list[dict[bytes, int]]:
    """Shakespeare in 6 blocks."""
    return _blocks(EOT.join(corpora.english("train")[:6000].split("\n\n")), 6)


def _unordered_hidden(rng: random.Random, kinds: tuple = ("", "")) -> Cases:
    """Random blocks in a random order; a repeat makes one block come twice, a gap leaves one
    out."""
    cases = []
    for kind in kinds:
        text = EOT.join(random_text(rng, rng.randint(8, 16)).split(" "))
        blocks = _blocks(text, rng.randint(3, 6))
        while len(blocks) < 2 and kind:  # a repeat or a gap needs two blocks
            blocks = _blocks(EOT.join(random_text(rng, 8).split(" ")), 3)
        order = rng.sample(range(len(blocks)), len(blocks))
        if kind == "repeat":  # a block repeated while it waits
            if order[0] == 0:
                order[0], order[-1] = order[-1], order[0]
            order.insert(1, order[0])
        if kind == "gap":
            order.remove(rng.randrange(len(blocks) - 1))
        cases.append(((_arrivals(blocks, order),), "hidden"))
    return cases


def _unordered_hidden_errors(rng: random.Random) -> Cases:
    return _unordered_hidden(rng, ("repeat", "gap"))


def _unordered_mistake(mistake: str) -> Callable:
    return lambda results: merge_unordered_reference(results, mistake)


IN_ORDER_PART, ERRORS_PART = "in block order", "a block twice, or never"

MERGE_UNORDERED = TaskSpec(
    "merge_unordered",
    merge_unordered_reference,
    (
        Group(IN_ORDER_PART, 1, _unordered_small, _unordered_hidden),
        Group(ERRORS_PART, 1, _unordered_errors, _unordered_hidden_errors),
    ),
    (
        Mistake(
            "add the blocks in block order, not as they arrive",
            _unordered_mistake("on arrival"),
            IN_ORDER_PART,
        ),
        Mistake(
            "count the blocks waiting after the merging an arrival allows",
            _unordered_mistake("before merging"),
            IN_ORDER_PART,
        ),
        Mistake(
            "a block that arrives twice raises ValueError",
            _unordered_mistake("repeats"),
            ERRORS_PART,
        ),
        Mistake(
            "a block still missing at the end raises ValueError",
            _unordered_mistake("gaps"),
            ERRORS_PART,
        ),
        Mistake(
            "add a block as soon as its turn comes, before asking for the next result, not after "
            "reading them all",
            _sorted_first,
            IN_ORDER_PART,
        ),
    ),
    "the total must list the pre-tokens as adding the blocks in block order does, "
    "max_waiting counts the blocks still held once an arrival has been handled (after the "
    "blocks it lets you add), a block is added before the next result is asked for, and a "
    "block that comes twice, or never, raises ValueError.",
    probe=IN_ORDER,
)

# --- Task 5: stream_encode -----------------------------------------------------------------------

# The probe builds the encoder in the learner's kernel with tiktoken, from the ranks of the
# judge's tokenizer (the same ids as the book's), and feeds the answer its parts from a source
# that notes the first part read before the ids due by then were out: ready[k], the ids of the
# text before part k up to its last safe cut, computed in the judge.
STREAM = f"""
import tiktoken


def probe(answer, ranks, parts, ready):
    encode = tiktoken.Encoding(
        "stream", pat_str={GPT2_PATTERN!r}, mergeable_ranks=ranks, special_tokens={{}}
    ).encode_ordinary
    ids, late = [], []

    def source():
        for k, part in enumerate(parts):
            if len(ids) < ready[k] and not late:
                late.append(f"part {{k}} read with {{len(ids)}} of {{ready[k]}} ids out")
            yield part

    for token_id in answer(encode, source()):
        ids.append(token_id)
    return {{"a part read too early": late[0] if late else None, "the ids": ids}}
"""


def last_safe_cut(text: str, mistake: str = "") -> int | None:
    """The last place the chapter's pre-tokenizer allows a cut (``pretokenize.last_cut``); with
    a mistake, the last of the cuts it allows: "spaces only", before a space after a non-space;
    "punctuation only", those and the cuts before a punctuation mark (not a symbol)."""
    if mistake == "punctuation only":
        places = [
            p
            for p in cuts(text, GPT2_PATTERN)
            if text[p] == " " or unicodedata.category(text[p])[0] == "P"
        ]
        return places[-1] if places else None
    if mistake != "spaces only":
        return last_cut(text, len(text), GPT2_PATTERN)
    places = [p for p in range(1, len(text)) if text[p] == " " and not text[p - 1].isspace()]
    return places[-1] if places else None


def stream_encode_reference(encode: Callable, parts, mistake: str = ""):
    """Yield the ids up to the last safe cut after each part; the rest at the end."""
    buffer = ""
    for part in parts:
        buffer += part
        cut = last_safe_cut(buffer, mistake)
        if cut:
            yield from encode(buffer[:cut])
            buffer = buffer[cut:]
    yield from encode(buffer)


def _any_space(encode: Callable, parts):
    """Cut before the last space, whatever is before it."""
    buffer = ""
    for part in parts:
        buffer += part
        cut = buffer.rfind(" ")
        if cut > 0:
            yield from encode(buffer[:cut])
            buffer = buffer[cut:]
    yield from encode(buffer)


def _part_by_part(encode: Callable, parts):
    for part in parts:
        yield from encode(part)


def _at_the_end(encode: Callable, parts):
    yield from encode("".join(parts))


def _indented(text: str) -> str:
    """text's lines indented by 0, 4 or 8 spaces, with spaces left at some ends."""
    lines = text.splitlines()
    return "".join(
        " " * (4 * (k % 3)) + line + " " * (k % 2) * 2 + "\n" for k, line in enumerate(lines)
    )


@cache
def stream_tokenizer() -> RegexTokenizer:
    """300 merges on the plays, indented: tokens of spaces and newlines, GPT-2's pattern."""
    text = _indented(corpora.english("train")[:30_000])
    return RegexTokenizer.train(text, 256 + 300, pattern=GPT2_PATTERN)


@cache
def _ranks() -> dict[bytes, int]:
    """The stream tokenizer's tiktoken ranks: each token's id (it has no special tokens)."""
    return dict(stream_tokenizer().token_to_id)


def _stream_args(parts: list[str]) -> tuple:
    """The probe's arguments after the answer: ranks, parts, and the ids due before each."""
    encode = stream_tokenizer().encode_ordinary
    ready, text = [], ""
    for part in parts:
        cut = last_safe_cut(text)
        ready.append(len(encode(text[:cut])) if cut else 0)
        text += part
    return (_ranks(), parts, ready)


def _cut(text: str, places: list[int]) -> list[str]:
    """text cut at the places given."""
    bounds = [0, *places, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _stream_small() -> Cases:
    """Words, runs of spaces, punctuation and symbols after letters, other scripts, empty
    parts."""
    words = "the cat sat on the mat, and the dog ate the hat"
    return [
        (_stream_args(_cut(words, [5, 6, 13, 20])), "cut inside words: wait for the space"),
        (_stream_args(_cut(words, [7, 15, 22])), "parts that start with a space"),
        (_stream_args([*words]), "one character at a time"),
        (_stream_args(["a  ", "  b", "\n\n", "  c   d"]), "runs of spaces: cut after a letter"),
        (_stream_args(["if x:   ", "    return y  ", "\n    "]), "parts that end in spaces"),
        (_stream_args(["hello,", " world", "!"]), "a cut between a letter and a comma"),
        (_stream_args(["a+b", " c"]), "a symbol after a letter: + is a cut too"),
        (_stream_args(["x=y", "\n"]), "= after a letter"),
        (_stream_args(["price€", "5 more"]), "€, a currency symbol, after a letter"),
        (_stream_args(["ok👍", "!"]), "an emoji after a letter"),
        (
            _stream_args(["日本語の", "テキスト", "です。", "English"]),
            "no space: 。 after a letter",
        ),
        (_stream_args(["", "the cat", "", " sat", ""]), "empty parts"),
        (_stream_args([]), "no parts at all"),
        (_stream_args(["one long line, " * 40]), "one part, many cuts"),
    ]


def _stream_plays() -> Cases:
    """Indented lines of a play, and the same text cut every 7 characters."""
    text = _indented(corpora.english("heldout")[:1500])
    return [
        (_stream_args(text.splitlines(keepends=True)), "indented lines of a play"),
        (_stream_args(_cut(text, list(range(7, len(text), 7)))), "every 7 characters"),
    ]


def _stream_hidden(rng: random.Random) -> Cases:
    """Random text cut at random places."""
    cases = []
    for n in (8, 14):
        text = random_text(rng, n) + "x,  " + random_text(rng, 3)
        places = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(2, 8))))
        cases.append((_stream_args(_cut(text, places)), "hidden"))
    return cases


def _stream_hidden_play(rng: random.Random) -> Cases:
    """Indented lines of a play cut at random places."""
    text = _indented(window(rng, corpora.english("heldout"), 400))
    return [(_stream_args(_cut(text, sorted(rng.sample(range(1, len(text)), 20)))), "hidden")]


# The plays hold no symbol (category S): only hand-made parts put one after a letter.
HAND_MADE = "hand-made parts"

STREAM_ENCODE = TaskSpec(
    "stream_encode",
    stream_encode_reference,
    (
        Group(HAND_MADE, 2, _stream_small, _stream_hidden),
        Group("lines of a play", 1, _stream_plays, _stream_hidden_play),
    ),
    (
        Mistake("a space after a space is no safe cut: runs of spaces are one chunk", _any_space),
        Mistake(
            "a letter followed by punctuation is a safe cut too",
            lambda encode, parts: stream_encode_reference(encode, parts, "spaces only"),
        ),
        Mistake(
            "a symbol (Unicode's category S: + = $ € 👍) after a letter is a safe cut too, as "
            "punctuation is",
            lambda encode, parts: stream_encode_reference(encode, parts, "punctuation only"),
            HAND_MADE,
        ),
        Mistake("a part may end inside a chunk: cut only where it is safe", _part_by_part),
        Mistake("yield what is safe before reading the next part", _at_the_end),
    ),
    "the ids must be those of the whole text, and every id up to the last place in the text "
    "read so far where the chapter allows a cut (either kind) must be out before the next "
    "part is read.",
    probe=STREAM,
)

SPECS = (MERGE_PRETOKENS, HEAP_ENTRY, POP_BEST, MERGE_UNORDERED, STREAM_ENCODE)
check, judge_tasks = checks_of(SPECS)

# The notebook writes its own small trainer and encoder: the tokenizers are out of reach.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
