"""Checks of exercises/09_fast_bpe.ipynb. The references are in book.tokenizers.

Every task is a variant or an extension of the chapter's code: merging pre-tokens stored as
tuples of bytes (CS336's form) while keeping the pair counts *and* the index exact, a heap
that breaks ties the CS336 way with lazy deletion, adding up workers' counts that arrive out
of order, a streaming encoder that yields as soon as it may, and tiktoken's ranks from a
vocabulary and merges. Cases mix the CS336 handout's worked example, overlapping pairs
(``a a a a``), pairs that stay elsewhere in the word they leave, prefixes of one another
(``B`` and ``BA``), bytes 00 and FF, many scripts and Shakespeare; the judge adds hidden cases
drawn at random. Where a case targets one mistake, its label says which.

Three tasks are graded through a small driver (the learner's functions are called, the
driver reports what they did): the same source runs here and, as the task's setup, in the
learner's kernel, so the notebook and the judge grade alike.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from functools import cache

from book import corpora
from book.checks.cases import Cases, outcome, short_arg
from book.checks.core import Case, check_cases, equal, show
from book.checks.spec import Call, Task, random_text
from book.encodings import get_encoding
from book.tokenizers.bpe.core import best_pair, build_vocab, get_pair_counts, joined, merge
from book.tokenizers.bpe.patterns import GPT2_PATTERN
from book.tokenizers.bpe.pretokenize import training_chunk_counts
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.bpe.train import train_merges

PiecePair = tuple[bytes, bytes]
EOT = "<|endoftext|>"

# The drivers: run here by the notebook's checks, and in the learner's kernel by the judge.
DRIVERS = '''
import heapq


def merged_state(merge_pretokens, counts, pair_counts, where, pair):
    """[the returned pre-tokens in order, pair_counts and where after, counts untouched?]"""
    before = dict(counts)
    merged = merge_pretokens(counts, pair_counts, where, pair)
    items = list(merged.items()) if isinstance(merged, dict) else merged
    kept = counts == before and list(counts) == list(before)
    return [items, pair_counts, where, "left as it was" if kept else "changed"]


def run_heap(heap_entry, pop_best, counts, updates):
    """The pairs pop_best returns, as a trainer would use it: None in updates pops one (and
    the pair is merged away); (pair, count) sets a count and pushes a fresh entry."""
    counts = dict(counts)
    heap = [heap_entry(pair, count) for pair, count in counts.items()]
    heapq.heapify(heap)
    popped = []
    for update in updates:
        if update is None:
            best = pop_best(heap, counts)
            popped.append(best)
            counts.pop(best, None)
        elif update[1] > 0:
            counts[update[0]] = update[1]
            heapq.heappush(heap, heap_entry(*update))
        else:
            counts.pop(update[0], None)
    return popped


def in_order(result):
    """A result (counts, max_waiting) as [counts' items in order, max_waiting]."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], dict):
        return [list(result[0].items()), result[1]]
    return result


def stream_log(stream_encode, encode, pieces, ready):
    """[None, or which piece was read before the ids up to the last safe cut came out; the ids]"""
    ids, late = [], []

    def source():
        for k, piece in enumerate(pieces):
            if len(ids) < ready[k] and not late:
                late.append(f"piece {k} read when {len(ids)} of the {ready[k]} ids due were out")
            yield piece

    for token_id in stream_encode(encode, source()):
        ids.append(token_id)
    return [late[0] if late else None, ids]
'''
_DRIVERS: dict = {}
exec(DRIVERS, _DRIVERS)  # one source for both places (see the module's docstring)
merged_state = _DRIVERS["merged_state"]
run_heap = _DRIVERS["run_heap"]
in_order = _DRIVERS["in_order"]
stream_log = _DRIVERS["stream_log"]

# The encoder of the streaming task in the learner's kernel, where the book's tokenizers are
# hidden: tiktoken, given the reference tokenizer's pattern and ranks (the same ids).
ENCODER = """
import tiktoken as _tiktoken

encode = _tiktoken.Encoding(
    "stream", pat_str=PATTERN, mergeable_ranks=RANKS, special_tokens={}
).encode_ordinary
"""


# --- the references ------------------------------------------------------------------------------


def merge_pieces(pieces: tuple[bytes, ...], pair: PiecePair) -> tuple[bytes, ...]:
    """Each occurrence of pair, left to right, joined into one piece.

    >>> merge_pieces((b"a", b"a", b"a"), (b"a", b"a"))
    (b'aa', b'a')
    """
    return tuple(merge(pieces, pair, joined(0, pair)))


def pair_index(counts: dict[tuple, int]) -> tuple[dict, dict]:
    """(pair_counts, where) of pre-tokens: each pair's weighted count and the set holding it."""
    pair_counts: dict[PiecePair, int] = {}
    where: dict[PiecePair, set] = {}
    for pretoken, count in counts.items():
        get_pair_counts(pretoken, pair_counts, count)
        for pair in zip(pretoken, pretoken[1:]):
            where.setdefault(pair, set()).add(pretoken)
    return pair_counts, where


def merge_pretokens_reference(counts: dict, pair_counts: dict, where: dict, pair) -> dict:
    """From scratch: merge everywhere, then count and index everything again."""
    merged = {merge_pieces(pretoken, pair): count for pretoken, count in counts.items()}
    new_counts, new_where = pair_index(merged)
    pair_counts.clear()
    pair_counts.update(new_counts)
    where.clear()
    where.update(new_where)
    return merged


def best_pair_reference(counts: dict, updates: list) -> list:
    """What a correct heap gives: the highest count, then the greater pair of bytes."""
    counts = dict(counts)
    popped = []
    for update in updates:
        if update is None:
            spelled = {piece: piece for pair in counts for piece in pair}  # pieces are bytes
            best = best_pair(counts, "lexicographic", spelled) if counts else None
            popped.append(best)
            counts.pop(best, None)
        elif update[1] > 0:
            counts[update[0]] = update[1]
        else:
            counts.pop(update[0], None)
    return popped


def merge_unordered_reference(results: list) -> tuple[dict, int]:
    """Blocks merged in block order as soon as their turn comes; the most kept waiting."""
    total: dict[bytes, int] = {}
    waiting: dict[int, dict] = {}
    turn = most = 0
    for index, counts in results:
        if index in waiting or index < turn:
            raise ValueError(f"block {index} arrived twice")
        waiting[index] = counts
        while turn in waiting:
            for chunk, count in waiting.pop(turn).items():
                total[chunk] = total.get(chunk, 0) + count
            turn += 1
        most = max(most, len(waiting))
    if waiting:
        raise ValueError(f"block {turn} never arrived")
    return total, most


def last_safe_cut(text: str) -> int | None:
    """The last place p (0 < p < len(text)) before a space that follows a non-space."""
    for p in range(len(text) - 1, 0, -1):
        if text[p] == " " and not text[p - 1].isspace():
            return p
    return None


def ready_counts(encode: Callable, pieces: list[str]) -> list[int]:
    """For each piece k, how many ids must be out before it is read: those of the text read so
    far, up to its last safe cut. (Every such place is one where ``pretokenize.is_cut`` allows
    a cut: ``str.isspace`` holds for every character of regex's ``\\s``, and for U+001C-001F.)"""
    ready, text = [], ""
    for piece in pieces:
        cut = last_safe_cut(text)
        ready.append(len(encode(text[:cut])) if cut else 0)
        text += piece
    return ready


def stream_reference(encode: Callable, pieces: list[str], ready: list[int]) -> list:
    """What a right answer gives: no piece read too early, the ids of the whole text."""
    return [None, encode("".join(pieces))]


def tiktoken_ranks_reference(vocab: dict[int, bytes], merges: list[PiecePair]) -> dict:
    """{bytes: id} of the bytes and merged tokens; ids of merges must grow with their order."""
    ids = {token: token_id for token_id, token in vocab.items()}
    ranks = {}
    for byte in range(256):
        if bytes([byte]) not in ids:
            raise ValueError(f"the vocabulary has no token for byte {byte}")
        ranks[bytes([byte])] = ids[bytes([byte])]
    last = -1
    for left, right in merges:
        token = left + right
        if token not in ids:
            raise ValueError(f"merge {(left, right)} makes {token!r}, which is not in vocab")
        if ids[token] <= last:
            raise ValueError("the ids of merged tokens must grow with the merges' order")
        last = ranks[token] = ids[token]
    return ranks


# --- the data ------------------------------------------------------------------------------------

HANDOUT = {(b"l", b"o", b"w"): 5, (b"l", b"o", b"w", b"e", b"r"): 2}
HANDOUT |= {tuple(bytes([b]) for b in word): n for word, n in [(b"widest", 3), (b"newest", 6)]}


@cache
def _plays(n_chars: int = 3000) -> dict[bytes, int]:
    """Pre-token counts of the start of the training plays (GPT-2's split)."""
    return training_chunk_counts(corpora.english("train")[:n_chars], GPT2_PATTERN)


def _byte_merges(word_counts: dict[bytes, int], n: int) -> list[PiecePair]:
    """The book's first n merges of word_counts, as pairs of bytes."""
    merges = train_merges(word_counts, n)
    vocab = build_vocab(merges)
    return [(vocab[a], vocab[b]) for (a, b), _count in merges]


def _state(word_counts: dict[bytes, int], k: int) -> tuple[dict, PiecePair]:
    """The pre-tokens after the first k merges, and merge k (the next one)."""
    merges = _byte_merges(word_counts, k + 1)
    counts = {tuple(bytes([b]) for b in word): n for word, n in word_counts.items()}
    for pair in merges[:k]:
        counts = {merge_pieces(t, pair): n for t, n in counts.items()}
    return counts, merges[min(k, len(merges) - 1)]


def _merge_args(counts: dict, pair) -> tuple:
    """The arguments of merge_pretokens: counts, their pair counts and index, the pair."""
    pair_counts, where = pair_index(counts)
    return (counts, pair_counts, where, pair)


def _merge_cases() -> Cases:
    """merge_pretokens: the handout, overlaps, pairs left elsewhere, far pairs, real text."""
    after_st = {merge_pieces(t, (b"s", b"t")): n for t, n in HANDOUT.items()}
    tuples = {
        "aaa": ((b"a", b"a", b"a"), 1),
        "aaaa": ((b"a", b"a", b"a", b"a"), 2),
    }
    overlap = dict(tuples.values())
    leftover = {(b"x", b"a", b"b", b"x", b"a"): 3, (b"a", b"b"): 1}
    far = {(b"a", b"b", b"c", b"d"): 2, (b"c", b"d"): 5, (b"the",): 7}
    ends = {(b"a", b"b", b"c", b"a", b"b"): 4}
    japanese = {
        tuple(bytes([b]) for b in word.encode()): n for word, n in [("日本", 2), ("本日", 1)]
    }
    plays = _plays()
    return [
        (_merge_args(HANDOUT, (b"s", b"t")), "the CS336 handout's first merge"),
        (_merge_args(after_st, (b"e", b"st")), "its second: a merged piece in a pair"),
        (_merge_args(overlap, (b"a", b"a")), "overlaps: (a, a) twice in a a a, merged once"),
        (_merge_args(leftover, (b"a", b"b")), "(x, a) stays in the word it leaves once"),
        (_merge_args(far, (b"a", b"b")), "where[(c, d)] must hold the new tuple, not the old"),
        (_merge_args(ends, (b"a", b"b")), "the pair at both ends"),
        (_merge_args(japanese, (b"\xe6", b"\x97")), "bytes of one character"),
        (_merge_args(far, (b"q", b"r")), "a pair that no pre-token holds changes nothing"),
        (_merge_args({}, (b"a", b"b")), "no pre-tokens"),
        (_merge_args(*_state(plays, 0)), "Shakespeare, the first merge"),
        (_merge_args(*_state(plays, 25)), "Shakespeare, merge 25"),
    ]


HANDOUT_PAIRS = [(b"A", b"B"), (b"A", b"C"), (b"B", b"ZZ"), (b"BA", b"A")]


def _heap_cases() -> Cases:
    """run_heap: ties by bytes, prefixes, bytes 00 and FF, stale and deleted entries."""
    handout = {pair: 5 for pair in HANDOUT_PAIRS}
    pops = [None] * 5
    prefixes = {(b"a", b"x"): 2, (b"ab", b"x"): 2, (b"b", b"c"): 2, (b"b", b"cd"): 2}
    extremes = {(b"\xff", b"a"): 1, (b"\xfe\xff", b"a"): 1, (b"\x00", b"a"): 1}
    extremes |= {(b"\x00\x00", b"a"): 1, (b"\xff\xff", b"a"): 1}
    counts = {(b"a", b"b"): 3, (b"c", b"d"): 2, (b"e", b"f"): 1}
    return [
        ((handout, pops), "the handout's four tied pairs: ('BA', 'A') first"),
        ((prefixes, [None] * 5), "a prefix is smaller: (b'ab', b'x') before (b'a', b'x')"),
        ((extremes, [None] * 6), "bytes 00 and FF, and their prefixes"),
        ((counts, [None, None, None, None]), "counts first, whatever the bytes"),
        ((counts, [((b"e", b"f"), 9), None, None]), "a count that grew: its new entry wins"),
        ((counts, [((b"a", b"b"), 1), None, None, None]), "a count that fell: skip the stale"),
        ((counts, [((b"a", b"b"), 0), None, None, None]), "a pair gone (count 0) never comes"),
        ((counts, [None, ((b"a", b"b"), 4), None, None]), "popped, then counted again"),
        (({}, [None, ((b"z", b"z"), 1), None, None]), "an empty heap gives None"),
    ]


def _random_heap_case(rng: random.Random) -> tuple:
    """Pairs from pieces that are prefixes of one another, few distinct counts, updates."""
    pieces = [b"a", b"b", b"ab", b"ba", b"aa", b"\xff", b"\xfe\xff", b"\x00", b"\x00a"]
    pairs = list({(rng.choice(pieces), rng.choice(pieces)) for _ in range(20)})
    counts = {pair: rng.randint(1, 3) for pair in pairs}
    updates = []
    for _ in range(30):
        if rng.random() < 0.5:
            updates.append(None)
        else:
            updates.append((rng.choice(pairs), rng.randint(0, 4)))
    return (counts, updates)


def _blocks(text: str, n_blocks: int) -> list[dict[bytes, int]]:
    """The pre-token counts of text cut into n_blocks blocks at special tokens."""
    documents = text.split(EOT)
    size = max(1, -(-len(documents) // n_blocks))
    parts = [EOT.join(documents[i : i + size]) for i in range(0, len(documents), size)]
    return [training_chunk_counts(part, GPT2_PATTERN, [EOT]) for part in parts]


def _arrivals(blocks: list[dict], order: list[int]) -> list:
    """(index, counts) in the order given."""
    return [(index, blocks[index]) for index in order]


def _unordered_cases() -> Cases:
    """merge_unordered: orders, waiting, repeats and gaps, real blocks."""
    small = [{b"a": 1, b"b": 2}, {b"b": 1, b"c": 1}, {b"c": 5, b"a": 1}, {b"d": 1}]
    plays = EOT.join(corpora.english("train")[:6000].split("\n\n"))
    real = _blocks(plays, 6)
    return [
        ((_arrivals(small, [0, 1, 2, 3]),), "in order: nothing waits"),
        ((_arrivals(small, [2, 0, 1, 3]),), "2 waits for 0 and 1"),
        ((_arrivals(small, [3, 2, 1, 0]),), "reversed: three wait"),
        ((_arrivals(small, [1, 3, 0, 2]),), "counts are added, not replaced"),
        ((_arrivals(small[:1], [0]),), "one block"),
        (([],), "no blocks"),
        ((_arrivals(small, [0, 1, 1, 2]),), "block 1 twice raises ValueError"),
        ((_arrivals(small, [0, 2, 3]),), "block 1 missing raises ValueError"),
        ((_arrivals(real, [4, 1, 0, 5, 3, 2]),), "Shakespeare in 6 blocks"),
    ]


@cache
def stream_tokenizer() -> RegexTokenizer:
    """The tokenizer of the streaming task: 300 merges on the plays, GPT-2's pattern."""
    return RegexTokenizer.train(corpora.english("train")[:30_000], 256 + 300, pattern=GPT2_PATTERN)


def _stream_args(pieces: list[str]) -> tuple:
    """The arguments of stream_log after the answer: encode, pieces, and the ready counts."""
    encode = stream_tokenizer().encode_ordinary
    return (encode, pieces, ready_counts(encode, pieces))


def _cut(text: str, places: list[int]) -> list[str]:
    """text cut at the places given."""
    bounds = [0, *places, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _stream_texts() -> list[tuple[list[str], str]]:
    """(pieces, what they target) for the streaming encoder; short ones first, to read."""
    words = "the cat sat on the mat, and the dog ate the hat"
    lines = corpora.english("heldout")[:1500].splitlines(keepends=True)
    return [
        (_cut(words, [5, 6, 13, 20]), "cut inside words: wait for the space"),
        (_cut(words, [7, 15, 22]), "pieces that start with a space: cut before it"),
        ([*words], "one character at a time"),
        (["a  ", "  b", "\n\n", "  c   d"], "runs of spaces: cut only after a non-space"),
        (["日本語の", "テキスト", "です。 ", "English"], "no space for a while: keep it"),
        (["", "the cat", "", " sat", ""], "empty pieces"),
        ([], "no pieces at all"),
        (["one long line " * 40], "one piece, many cuts"),
        (lines, "lines of a play"),
    ]


def _stream_cases() -> Cases:
    """stream_encode cases, as arguments of stream_log after the answer."""
    return [(_stream_args(pieces), note) for pieces, note in _stream_texts()]


@cache
def _gpt2_vocab(n_merges: int = 300) -> tuple[dict, list]:
    """GPT-2's bytes (in its order), its first merges and <|endoftext|> at 50256."""
    ranks = get_encoding("gpt2")._mergeable_ranks  # tiktoken keeps them private
    vocab = {rank: token for token, rank in ranks.items() if rank < 256 + n_merges}
    vocab[50256] = EOT.encode()
    merges = RegexTokenizer.from_tiktoken("gpt2").vocab_and_merges()[1][:n_merges]
    return vocab, merges


def _cs336_vocab(text: str, n_merges: int) -> tuple[dict, list]:
    """CS336's order: <|endoftext|> at 0, bytes 1-256, then one token per merge."""
    merges = _byte_merges(training_chunk_counts(text, GPT2_PATTERN), n_merges)
    vocab = {0: EOT.encode(), **{1 + b: bytes([b]) for b in range(256)}}
    for left, right in merges:
        vocab[len(vocab)] = left + right
    return vocab, merges


def _ranks_cases() -> Cases:
    """tiktoken_ranks: three id orders, specials left out, every error."""
    cs336 = _cs336_vocab(corpora.english("train")[:4000], 40)
    gpt2 = _gpt2_vocab()
    vocab, merges = cs336
    swapped = dict(vocab)
    swapped[257], swapped[258] = vocab[258], vocab[257]
    no_byte = {i: t for i, t in vocab.items() if t != b"e"}
    no_token = {i: t for i, t in vocab.items() if t != vocab[260]}
    plain = {b: bytes([b]) for b in range(256)} | {256: b"ab", 257: b"abc"}
    return [
        ((plain, [(b"a", b"b"), (b"ab", b"c")]), ""),
        ((vocab, merges), "CS336's order: the special token at id 0 is left out"),
        (gpt2, "GPT-2's byte order; <|endoftext|> at 50256 is left out"),
        ((swapped, merges), "ids that fall with the merges' order raise ValueError"),
        ((no_byte, merges[:3]), "a byte missing raises ValueError"),
        ((no_token, merges), "a merge whose token is missing raises ValueError"),
        (({b: bytes([b]) for b in range(256)}, []), "bytes only"),
    ]


def _random_vocab(rng: random.Random) -> tuple:
    """A vocabulary trained on random text, numbered in a random valid order (or broken)."""
    merges = _byte_merges(training_chunk_counts(random_text(rng, 30), GPT2_PATTERN), 20)
    byte_ids = rng.sample(range(300), 256)
    vocab = {token_id: bytes([b]) for b, token_id in enumerate(byte_ids)}
    next_id = 300
    for left, right in merges:
        next_id += rng.randint(1, 3)
        vocab[next_id] = left + right
    vocab[next_id + 1] = EOT.encode()
    if merges and rng.random() < 0.3:
        ids = [i for i, t in vocab.items() if len(t) > 1 and t != EOT.encode()]
        if len(ids) > 1:
            a, b = rng.sample(ids, 2)
            vocab[a], vocab[b] = vocab[b], vocab[a]
    return (vocab, merges)


# --- the checks the notebook runs ----------------------------------------------------------------

HINTS = {
    "merge_pretokens": "visit only the pre-tokens in where[pair]; for each, subtract the counts "
    "of all its pairs and remove it from where[...] of every pair it holds (not only the pairs "
    "next to the merge: its key changes), merge it (left to right: a a a holds (a, a) twice "
    "but merges once), then add the new tuple's pairs and file the new tuple. Delete counts "
    "that reach 0 and empty sets; return a new dict in the old order; leave counts as it is.",
    "heap": "heapq pops the smallest entry: use (-count, key(left), key(right), pair) where "
    "key makes greater bytes smaller, e.g. the bytes' values 255 - b followed by a value "
    "above them all (256), so that a prefix (b'B') comes after a longer piece (b'BA'). "
    "pop_best pops until counts.get(pair) equals the entry's count; None when the heap is empty.",
    "merge_unordered": "keep arriving blocks in a dict by index; after each arrival, merge the "
    "block whose turn it is (0, 1, 2, ...) as long as it is there, adding counts in that order "
    "(total[chunk] = total.get(chunk, 0) + n); max_waiting is the most blocks held after an "
    "arrival. A repeated index, or a block still missing at the end, raises ValueError.",
    "stream_encode": "keep a buffer; after adding each piece, find the last place p "
    "(0 < p < len(buffer)) where buffer[p] == ' ' and not buffer[p - 1].isspace(), yield "
    "from encode(buffer[:p]) and keep buffer[p:]; before reading the next piece. At the end, "
    "yield from encode(buffer). Never cut elsewhere: the ids would change.",
    "tiktoken_ranks": "ranks[token] = its id, for the 256 single bytes and for left + right of "
    "every merge, in merge order; leave out every other entry (special tokens). Raise "
    "ValueError for a missing byte, a merge whose token is not in vocab, or merge ids that do "
    "not grow with the merges' order (tiktoken would apply the merges in another order).",
}
POINTS = {
    "merge_pretokens": 3,
    "heap": 3,
    "merge_unordered": 2,
    "stream_encode": 3,
    "tiktoken_ranks": 2,
}


RIGHT = "right"  # what a difference() says when there is none


def difference(got, expected, names: tuple[str, ...] = (), name: str = "the result") -> str:
    """:func:`first_difference`, or a plain "differs" if the answer's values cannot be compared."""
    try:
        return first_difference(got, expected, names, name)
    except Exception:  # a learner's value may be anything: unorderable, unhashable, ...
        return f"{name} is {show(got, 40)}, should be {show(expected, 40)}"


def first_difference(got, expected, names: tuple[str, ...] = (), name: str = "the result") -> str:
    """Where got first differs from expected, in a few words a learner can act on; or RIGHT.

    ``names`` name the parts of a list that holds several results (the drivers' lists).

    >>> first_difference({b"a": 1, b"b": 2}, {b"a": 1, b"b": 3}, name="ranks")
    "ranks[b'b'] is 2, should be 3"
    """
    if equal(got, expected):
        return RIGHT
    if expected is None and isinstance(got, str):
        return got  # a driver's own message (a piece read too early)
    if names and isinstance(got, list) and isinstance(expected, list) and len(got) == len(names):
        part = next(i for i, (g, e) in enumerate(zip(got, expected)) if not equal(g, e))
        return difference(got[part], expected[part], name=names[part])
    if isinstance(got, dict) and isinstance(expected, dict):
        for key, value in expected.items():
            if key not in got:
                return f"{name} lacks {show(key, 40)} (it should be {show(value, 30)})"
            if not equal(got[key], value):
                return difference(got[key], value, name=f"{name}[{show(key, 30)}]")
        extra = next(key for key in got if key not in expected)
        return f"{name} has {show(extra, 40)}: {show(got[extra], 30)}, which should not be there"
    if isinstance(got, set) and isinstance(expected, set):
        if expected - got:
            return f"{name} lacks {show(min(expected - got), 60)}"
        return f"{name} holds {show(min(got - expected), 50)}, which should not be there"
    if isinstance(got, list) and isinstance(expected, list):
        for i, (g, e) in enumerate(zip(got, expected)):
            if not equal(g, e):
                pairs = isinstance(g, tuple) and isinstance(e, tuple) and len(g) == len(e) == 2
                if pairs and equal(g[0], e[0]):  # (key, count) items: say whose count is wrong
                    return f"{name}: {show(e[0], 50)} has {show(g[1])}, should have {e[1]}"
                return f"{name}: item {i} is {show(g, 35)}, should be {show(e, 35)}"
        return f"{name}: {len(got)} items, should be {len(expected)}"
    return f"{name} is {show(got, 35)}, should be {show(expected, 35)}"


def _cases(label, run: Callable, reference: Callable, cases: Cases, names=(), name="the result"):
    """One Case per (args, note): run(*args) compared with reference(*args), said as where
    they first differ (the results are too long to read whole)."""
    checks = []
    for args, note in cases:
        expected = outcome(reference, *copy.deepcopy(args))

        def compute(args=args, expected=expected):
            return difference(outcome(run, *copy.deepcopy(args)), expected, names, name)

        checks.append(Case(_label(label, args, note), compute, RIGHT))
    return checks


def _merge_label(args: tuple) -> str:
    counts, _pair_counts, _where, pair = args
    return f"merge_pretokens(<{len(counts)} pre-tokens>, pair_counts, where, {pair!r})"


def _heap_label(args: tuple) -> str:
    return f"pops of {short_arg(args[0])}, updates {short_arg(args[1])}"


def _unordered_label(args: tuple) -> str:
    return f"merge_unordered(blocks arriving {[index for index, _counts in args[0]]})"


def _stream_label(args: tuple) -> str:
    return f"stream_encode(encode, {short_arg(args[1])})"


def _ranks_label(args: tuple) -> str:
    return f"tiktoken_ranks(<{len(args[0])} tokens>, <{len(args[1])} merges>)"


def _label(label: Callable, args: tuple, note: str) -> str:
    """A case's label: the call, and what the case targets."""
    return f"{label(args)} [{note}]" if note else label(args)


MERGE_PARTS = ("the dict returned", "pair_counts", "where", "counts")
STREAM_PARTS = ("", "the ids")
UNORDERED_PARTS = ("the counts (in order)", "max_waiting")


def check_merge_pretokens(merge_pretokens) -> None:
    """merge_pretokens(counts, pair_counts, where, pair) -> new counts; index kept exact."""

    def run(*args):
        return merged_state(merge_pretokens, *args)

    def reference(*args):
        return merged_state(merge_pretokens_reference, *args)

    cases = _cases(_merge_label, run, reference, _merge_cases(), MERGE_PARTS)
    answers = {"merge_pretokens": merge_pretokens}
    check_cases(
        "merge_pretokens", answers, cases, POINTS["merge_pretokens"], HINTS["merge_pretokens"]
    )


def check_heap(heap_entry, pop_best) -> None:
    """heap_entry(pair, count) -> an entry; pop_best(heap, counts) -> the best current pair."""

    def run(counts, updates):
        return run_heap(heap_entry, pop_best, counts, updates)

    cases = _cases(_heap_label, run, best_pair_reference, _heap_cases(), name="the pops")
    answers = {"heap_entry": heap_entry, "pop_best": pop_best}
    check_cases("heap", answers, cases, POINTS["heap"], HINTS["heap"])


def check_merge_unordered(merge_unordered) -> None:
    """merge_unordered(results) -> (counts in block order, the most blocks kept waiting)."""

    def run(results):
        return in_order(merge_unordered(results))

    def reference(results):
        return in_order(merge_unordered_reference(results))

    cases = _cases(_unordered_label, run, reference, _unordered_cases(), UNORDERED_PARTS)
    answers = {"merge_unordered": merge_unordered}
    check_cases(
        "merge_unordered", answers, cases, POINTS["merge_unordered"], HINTS["merge_unordered"]
    )


def check_stream_encode(stream_encode) -> None:
    """stream_encode(encode, pieces) -> ids, yielded as soon as the text is safely cut."""

    def run(*args):
        return stream_log(stream_encode, *args)

    cases = _cases(_stream_label, run, stream_reference, _stream_cases(), STREAM_PARTS)
    answers = {"stream_encode": stream_encode}
    check_cases("stream_encode", answers, cases, POINTS["stream_encode"], HINTS["stream_encode"])


def check_tiktoken_ranks(tiktoken_ranks) -> None:
    """tiktoken_ranks(vocab, merges) -> {token bytes: id} for tiktoken, specials left out."""

    cases = _cases(
        _ranks_label, tiktoken_ranks, tiktoken_ranks_reference, _ranks_cases(), name="ranks"
    )
    answers = {"tiktoken_ranks": tiktoken_ranks}
    check_cases("tiktoken_ranks", answers, cases, POINTS["tiktoken_ranks"], HINTS["tiktoken_ranks"])


# --- what the judge needs (see book.checks.core) --------------------------------------------------

# The notebook writes its own small trainer and encoder: the tokenizers are out of reach.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")


def _hidden(rng: random.Random) -> dict[str, Cases]:
    """Hidden cases of every task, drawn from rng."""
    texts = [random_text(rng, rng.randint(4, 14)) for _ in range(3)]
    merge = []
    for text in texts:
        counts = training_chunk_counts(text, GPT2_PATTERN)
        if counts:
            merge.append((_merge_args(*_state(counts, rng.randint(0, 6))), "hidden"))
    heap = [(_random_heap_case(rng), "hidden") for _ in range(3)]
    unordered = []
    for text in texts:
        blocks = _blocks(EOT.join(text.split(" ")), rng.randint(1, 5))
        order = rng.sample(range(len(blocks)), len(blocks))
        if rng.random() < 0.25 and order:
            order.append(rng.choice(order))  # a repeat: ValueError
        unordered.append(((_arrivals(blocks, order),), "hidden"))
    stream = []
    for text in texts:
        places = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 8))))
        stream.append((_stream_args(_cut(text, places)), "hidden"))
    ranks = [(_random_vocab(rng), "hidden") for _ in range(3)]
    return {
        "merge_pretokens": merge,
        "heap": heap,
        "merge_unordered": unordered,
        "stream_encode": stream,
        "tiktoken_ranks": ranks,
    }


def _calls(expr: str, label: Callable, reference: Callable, cases: Cases, hidden: bool) -> list:
    """The judge's calls: expr with the case's arguments as a0, a1, ...; expected from the
    reference, computed here."""
    return [
        Call(
            _label(label, args, note), expr, args, outcome(reference, *copy.deepcopy(args)), hidden
        )
        for args, note in cases
    ]


def judge_tasks(rng: random.Random) -> list[Task]:
    """Chapter 09's tasks for the judge: the check's cases plus hidden ones drawn from rng."""
    hidden = _hidden(rng)
    tok = stream_tokenizer()
    ranks = {token: token_id for token_id, token in tok.vocab.items()}
    encoder = {"PATTERN": tok.pattern, "RANKS": ranks}

    def merged_reference(*args):
        return merged_state(merge_pretokens_reference, *args)

    def unordered_reference(results):
        return in_order(merge_unordered_reference(results))

    def stream_judged(pieces, ready):
        return stream_reference(tok.encode_ordinary, pieces, ready)

    # The streaming calls send (pieces, ready); encode is defined by the task's setup.
    stream_cases = {
        hide: [((pieces, ready), note) for (_encode, pieces, ready), note in cases]
        for hide, cases in ((False, _stream_cases()), (True, hidden["stream_encode"]))
    }
    tasks = {
        "merge_pretokens": (
            "merged_state(merge_pretokens, a0, a1, a2, a3)",
            _merge_label,
            merged_reference,
            _merge_cases(),
            DRIVERS,
        ),
        "heap": (
            "run_heap(heap_entry, pop_best, a0, a1)",
            _heap_label,
            best_pair_reference,
            _heap_cases(),
            DRIVERS,
        ),
        "merge_unordered": (
            "in_order(merge_unordered(a0))",
            _unordered_label,
            unordered_reference,
            _unordered_cases(),
            DRIVERS,
        ),
        "stream_encode": (
            "stream_log(stream_encode, encode, a0, a1)",
            lambda args: _stream_label((None, *args)),
            stream_judged,
            stream_cases[False],
            DRIVERS + ENCODER,
        ),
        "tiktoken_ranks": (
            "tiktoken_ranks(a0, a1)",
            _ranks_label,
            tiktoken_ranks_reference,
            _ranks_cases(),
            "",
        ),
    }
    hidden["stream_encode"] = stream_cases[True]
    answers = {"heap": ("heap_entry", "pop_best")}
    judged = []
    for name, (expr, label, reference, cases, setup) in tasks.items():
        calls = _calls(expr, label, reference, cases, False)
        calls += _calls(expr, label, reference, hidden[name], True)
        data = encoder if name == "stream_encode" else {}
        task_answers = answers.get(name, (name,))
        judged.append(
            Task(name, POINTS[name], task_answers, calls, HINTS[name], setup=setup, data=data)
        )
    return judged
