"""Checks of exercises/05_byte_bpe.ipynb, as one spec per task. The reference is
book.tokenizers.bpe.byte_bpe.

The tasks: shrinking ids to a smaller vocabulary from the ids alone (the probe replaces the
merges kept by stand-ins, so encoding again fails), finding the merges a text strands (they
remove no token although their token's bytes are in the text: earlier merges took those
bytes), merging while updating the pair counts in place (the probe counts every use of its
ids and every write to the counts), a streaming decoder that holds back truncated characters
and replaces invalid bytes at once, and which tokens hold each character. They are variants
and extensions no chapter cell solves; the chapter's encoder, the nearest cell to the second
task, is one of its known mistakes.
Each task's known mistakes are code; every group of cases catches each of them
(``tests/test_check_specs.py`` proves it on seeds 1-20).
"""

from __future__ import annotations

import bisect
import codecs
import itertools
import random
from functools import cache

import regex

from book import corpora, walkthroughs
from book.checks.sealed import SEALED
from book.checks.spec import (
    Cases,
    Group,
    Mistake,
    TaskSpec,
    checks_of,
    random_text,
    window,
)
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, merge, replay_merges

MIXED = "Ωμέγα Ωμέγα naïve café 日本語 日本 🦙🦙 👨‍👩‍👧"
SURROGATE = b"\xed\xa0\x80"  # invalid, but Python's incremental decoder waits one byte too long
# Byte sequences that are not UTF-8, and why (the stream decoder must replace them at once).
INVALID = {
    "a lone continuation byte": b"\x80",
    "a lead byte, then a byte that cannot continue it": b"\xc3(",
    "an overlong '/'": b"\xc0\xaf",
    "a surrogate": SURROGATE,
    "a second byte out of range for E0": b"\xe0\x80\x80",
    "above U+10FFFF": b"\xf4\x90\x80\x80",
    "bytes F5-FF never occur": b"\xf5\xff",
}
BYTE_VOCAB = {i: bytes([i]) for i in range(256)}


@cache
def _tokenizer(text: str, vocab_size: int) -> ByteTokenizer:
    """The reference tokenizer trained on ``text``."""
    return ByteTokenizer.train(text, vocab_size)


@cache
def _english(n_chars: int = 3000, vocab_size: int = 300) -> ByteTokenizer:
    """Trained on the first ``n_chars`` characters of the training plays."""
    return _tokenizer(corpora.english("train")[:n_chars], vocab_size)


def _heldout(rng: random.Random, size: int = 200) -> str:
    return window(rng, corpora.english("heldout"), size)


# --- Task 1: shrink ------------------------------------------------------------------------------

# Shrinking needs only the merges it undoes: the probe hands the answer the merges with those it
# keeps (ranks below vocab_size - 256) replaced by stand-ins that make no id, so encoding the
# bytes again with them fails, as the task rules out.
STAND_INS = """
def probe(answer, ids, merges, vocab_size):
    kept = min(max(vocab_size - 256, 0), len(merges))
    return answer(ids, [((-1, -1), 0)] * kept + merges[kept:], vocab_size)
"""


def shrink_reference(ids: list[int], merges: list, vocab_size: int) -> list[int]:
    """The ids the same bytes get with only the first vocab_size - 256 merges: each id that
    does not fit stands for its merge's two parts."""
    if not 256 <= vocab_size <= 256 + len(merges):
        raise ValueError(f"vocab_size must be from 256 to {256 + len(merges)}")

    def fit(token_id: int) -> list[int]:
        if token_id < vocab_size:
            return [token_id]
        (left, right), _count = merges[token_id - 256]
        return fit(left) + fit(right)

    return [part for token_id in ids for part in fit(token_id)]


def _shrink_with(keep, depth=None):
    """Expand each id that keep(id, vocab_size) rejects into its parts (depth levels at most)."""

    def shrink(ids, merges, vocab_size):
        if not 256 <= vocab_size <= 256 + len(merges):
            raise ValueError(vocab_size)

        def expand(i, level=0):
            if keep(i, vocab_size) or (depth is not None and level == depth):
                return [i]
            (left, right), _ = merges[i - 256]
            return expand(left, level + 1) + expand(right, level + 1)

        return [part for i in ids for part in expand(i)]

    return shrink


def _shrink_reencoding(ids, merges, vocab_size):
    """The bytes of the ids encoded again with the merges kept: what the task rules out."""
    if not 256 <= vocab_size <= 256 + len(merges):
        raise ValueError(vocab_size)
    vocab = build_vocab(merges)
    return replay_merges(list(b"".join(vocab[i] for i in ids)), merges[: vocab_size - 256])


def _shrink_no_upper_bound(ids, merges, vocab_size):
    """Refuses only a vocabulary smaller than the bytes."""
    if vocab_size < 256:
        raise ValueError(vocab_size)
    return shrink_reference(ids, merges, min(vocab_size, 256 + len(merges)))


def _shrink_all_kept_refused(ids, merges, vocab_size):
    """Refuses the vocabulary that keeps every merge."""
    if vocab_size == 256 + len(merges):
        raise ValueError(vocab_size)
    return shrink_reference(ids, merges, vocab_size)


def _shrink_unchecked(ids, merges, vocab_size):
    """Never raises: a size outside the range is shrunk to as far as it can be."""
    return shrink_reference(ids, merges, min(max(vocab_size, 256), 256 + len(merges)))


NESTED = [((97, 97), 3), ((256, 256), 1), ((98, 257), 1)]


def _shrink_examples() -> Cases:
    english = _english()
    ids = english.encode(corpora.english("heldout")[:300])
    mixed = _tokenizer(MIXED, 280)
    return [
        (([258, 97, 258], NESTED, 257), "a merge of merges expands until every id fits"),
        (([258, 257, 256], NESTED, 258), "id 258 is outside a vocabulary of 258"),
        (([], NESTED, 257), "no ids"),
        ((ids, list(english.merges), 280), "Shakespeare"),
        ((mixed.encode(MIXED), list(mixed.merges), 265), "tokens that hold part of a character"),
    ]


def _shrink_range() -> Cases:
    """Each end of the range of vocab_size, and one past it (the ids must be right at the ends,
    so that this part is not earned by an answer that only raises)."""
    english = _english()
    ids = english.encode(corpora.english("heldout")[:300])
    return [
        (([258, 256], NESTED, 256), "the smallest vocabulary, no merge kept: bytes"),
        (([258, 256], NESTED, 259), "every merge kept: nothing changes"),
        ((ids, list(english.merges), english.n_vocab), "every merge kept: nothing changes"),
        (([97], NESTED, 255), "a vocabulary smaller than the bytes raises ValueError"),
        (([258], NESTED, 260), "a vocabulary larger than the merges make raises ValueError"),
        ((ids, list(english.merges), english.n_vocab + 1), "one more than the merges make"),
        (([97], [], 256), "no merges: only 256 is allowed"),
        (([97], [], 257), "no merges: 257 raises ValueError"),
    ]


def _shrink_hidden(rng: random.Random) -> Cases:
    english = _english()
    ids = english.encode(_heldout(rng))
    merged = sorted({i for i in ids if i >= 258}) or [258]
    size = rng.choice(merged)  # an id equal to the size is outside the vocabulary
    nested = [i for i in ids if i >= 258 and any(p >= 257 for p in english.merges[i - 256][0])]
    # A text with no merge of merges (seed 935 draws one) still gets a size to cut below.
    small = min((p for i in nested for p in english.merges[i - 256][0] if p >= 257), default=257)
    return [
        ((ids, list(english.merges), size), "random"),
        ((ids, list(english.merges), rng.randint(257, small)), "random"),
    ]


RANGE = "the range of vocab_size"
SHRINK = TaskSpec(
    "shrink",
    shrink_reference,
    (
        Group("shrunk ids", 2, _shrink_examples, hidden=_shrink_hidden),
        Group(RANGE, 1, _shrink_range),
    ),
    (
        Mistake(
            "the parts of a merge may be merges too: expand until every id fits the vocabulary",
            _shrink_with(lambda i, size: i < size, depth=1),
        ),
        Mistake(
            "a vocabulary of vocab_size holds ids 0 to vocab_size - 1",
            _shrink_with(lambda i, size: i <= size),
        ),
        Mistake(
            "keep the ids that fit: only merges beyond the vocabulary are undone",
            _shrink_with(lambda i, size: i < 256),
        ),
        Mistake(
            "the task rules out encoding the bytes again: find the ids from the ids you are "
            "given and the merges you undo (the grader replaces the merges you keep by "
            "stand-ins)",
            _shrink_reencoding,
        ),
        Mistake(
            "a vocabulary larger than 256 + len(merges) cannot be made from these merges: "
            "it is an error too",
            _shrink_no_upper_bound,
            part=RANGE,
        ),
        Mistake(
            "a vocabulary of exactly 256 + len(merges) keeps every merge: it is allowed, and "
            "the ids stay as they are",
            _shrink_all_kept_refused,
            part=RANGE,
        ),
        Mistake(
            "vocab_size must be from 256 to 256 + len(merges): raise ValueError for any other "
            "size, instead of returning ids",
            _shrink_unchecked,
            part=RANGE,
        ),
    ),
    "the ids you return must spell the same bytes as the ids you are given, each below "
    "vocab_size, as the tokenizer of the first vocab_size - 256 merges would encode them.",
    probe=STAND_INS,
)

# --- Task 2: stranded_merges ---------------------------------------------------------------------


def merge_gains(text: str, merges: list) -> list[int]:
    """For each merge in rank order, the tokens it removes when the merges encode text.

    >>> merge_gains("abc", [((97, 98), 3), ((98, 99), 2)])
    [1, 0]
    """
    ids, gains = list(text.encode("utf-8")), []
    for rank, (pair, _count) in enumerate(merges):
        merged = merge(ids, pair, 256 + rank)
        gains.append(len(ids) - len(merged))
        ids = merged
    return gains


def stranded_merges_reference(text: str, merges: list) -> list[int]:
    """The ranks of the merges that remove no token from text although the bytes of the token
    they make occur in it: earlier merges took those bytes into other tokens.

    >>> stranded_merges_reference("abc", [((97, 98), 3), ((98, 99), 2)])
    [1]
    """
    data, vocab = text.encode("utf-8"), build_vocab(merges)
    gains = merge_gains(text, merges)
    return [rank for rank, gain in enumerate(gains) if gain == 0 and vocab[256 + rank] in data]


def _stranded_if(keep):
    """stranded_merges whose test for a rank is keep(rank, gain, count, token bytes, text, ids)."""

    def stranded(text, merges):
        data, vocab = text.encode("utf-8"), build_vocab(merges)
        final = replay_merges(list(data), merges)
        gains = merge_gains(text, merges)
        return [
            rank
            for rank, ((_pair, count), gain) in enumerate(zip(merges, gains, strict=True))
            if keep(rank, gain, count, vocab[256 + rank], text, final)
        ]

    return stranded


def _stranded_decoded(errors: str):
    """stranded_merges that looks for each token decoded with errors= in the text."""
    return _stranded_if(
        lambda rank, gain, count, token, text, final: (
            gain == 0 and token.decode("utf-8", errors=errors) in text
        )
    )


def _stranded_on_raw_bytes(text, merges):
    """Each pair looked for in the text's bytes, not after the earlier merges."""
    data, vocab = text.encode("utf-8"), build_vocab(merges)
    counts = get_pair_counts(list(data))
    return [
        rank
        for rank, (pair, _count) in enumerate(merges)
        if pair not in counts and vocab[256 + rank] in data
    ]


def _chapter_encode(text, merges):
    """The chapter's encoder: the text's ids, every merge replayed."""
    return replay_merges(list(text.encode("utf-8")), merges)


ABC = [((97, 98), 3), ((98, 99), 2), ((256, 99), 1), ((122, 122), 1)]  # ab, bc, abc, zz
# é is C3 A9: merging it first leaves a C3 that "a" cannot join, so a + C3 is stranded, and
# its token (a and half of é) is no text.
PARTIAL = [((0xC3, 0xA9), 2), ((97, 0xC3), 2)]


def _stranded_examples() -> Cases:
    english = _english()
    heldout = corpora.english("heldout")[:600]
    return [
        (("abc", ABC), "bc is in abc, but ab took its b"),
        (("abc abc", ABC), ""),
        (("abc", [(pair, 1) for pair, _count in ABC]), "ab saves one token, then abc takes it in"),
        (("aé", PARTIAL), "a token that holds half of a character"),
        (("a\u00e9 a\u00e9 ab", PARTIAL + ABC[:1]), ""),
        (("a \u00e9", PARTIAL), "a and half of é: the a is in the text, the token's bytes are not"),
        (("bca", [((99, 97), 2), ((98, 99), 1)]), "the stranded token's bytes start the text"),
        (("", ABC), "no text"),
        ((heldout, list(english.merges)), "Shakespeare's merges on held-out text"),
    ]


def _stranded_draw(rng: random.Random) -> tuple:
    letters = rng.sample("abcdé日", 4)

    def word() -> str:
        return "".join(rng.choice(letters) for _ in range(rng.randint(2, 5)))

    training = " ".join(word() for _ in range(rng.randint(20, 40)))
    tok = _tokenizer(training, rng.randint(262, 290))
    measured = " ".join(word() for _ in range(rng.randint(3, 12)))
    if rng.random() < 0.5:  # a token that holds half of é, stranded (as PARTIAL)
        return f"{measured} a\u00e9", list(tok.merges) + PARTIAL
    return measured, list(tok.merges)


def _stranded_hidden(rng: random.Random) -> Cases:
    return [(_stranded_draw(rng), "random") for _ in range(4)]


STRANDED_MERGES = TaskSpec(
    "stranded_merges",
    stranded_merges_reference,
    (Group("stranded ranks", 2, _stranded_examples, hidden=_stranded_hidden),),
    (
        Mistake(
            "a merge whose token's bytes never occur in the text saves nothing for a plain "
            "reason; keep only the merges whose token's bytes are there",
            _stranded_if(lambda rank, gain, count, token, text, final: gain == 0),
        ),
        Mistake(
            "a token missing from the final ids may still have removed tokens: a later merge "
            "can take it in; measure what each merge removes",
            _stranded_if(
                lambda rank, gain, count, token, text, final: (
                    256 + rank not in final and token in text.encode("utf-8")
                )
            ),
        ),
        Mistake(
            "a token can hold part of a character: look for its bytes in the text's bytes, not "
            "for its decoded text in the text",
            _stranded_decoded("replace"),
        ),
        Mistake(
            "a token can hold part of a character: decoding it with errors='ignore' drops "
            "those bytes and looks for what is left; look for the token's bytes in the text's "
            "bytes",
            _stranded_decoded("ignore"),
        ),
        Mistake(
            "the token's bytes may start the text: a search that finds them at position 0 "
            "found them (only -1 means they are absent)",
            _stranded_if(
                lambda rank, gain, count, token, text, final: (
                    gain == 0 and text.encode("utf-8").find(token) > 0
                )
            ),
        ),
        Mistake(
            "the task asks for merges that remove no token at all, not for those that save "
            "less than their stored count",
            _stranded_if(
                lambda rank, gain, count, token, text, final: (
                    gain < count and token in text.encode("utf-8")
                )
            ),
        ),
        Mistake(
            "look for each pair after the earlier merges: a merge of merged ids never occurs "
            "in the text's bytes",
            _stranded_on_raw_bytes,
        ),
        Mistake(
            "return ranks (0 for the first merge), not the ids of the tokens",
            lambda text, merges: [256 + r for r in stranded_merges_reference(text, merges)],
        ),
        Mistake(
            "this is the chapter's encoder: it gives the text's ids; the task asks which "
            "merges save nothing although their bytes are in the text",
            _chapter_encode,
        ),
    ),
    "replay the merges in rank order and note what each removes; a stranded merge removes "
    "nothing, yet the bytes of its token are somewhere in the text.",
)

# --- Task 3: merge_and_update --------------------------------------------------------------------

# The probe watches the work. The ids it hands the answer stand for ints: they compare equal to
# them and hash like them, but are not ints, so the only ways to use one as a number (hash it as
# part of a pair looked up or written, int(), operator.index, str, repr, format, comparing it
# with a number other than the pair's and new_id) are counted, and so is each write to the
# counts and each pair iterated over; what they stand for and the counts are kept sealed
# (``sealed``), out of the answer's reach. Updating in place uses a few ids per
# merged place; counting the pairs of the whole list, before or after merging, and on the ids or
# on ints or a numpy array made from them, uses every id. The probe returns [merged ids, the
# counts after, whether the work fits in-place updating]; the part that judges whether the ids
# are left unchanged calls probe_unchanged, which returns [merged ids, the counts after, ids
# unchanged, whether the work fits].
IN_PLACE = (
    SEALED
    + """

class Id(Sealed):
    __slots__ = ()

    def __hash__(self):
        return hash(self._value())

    def __index__(self):
        return self._value()

    __int__ = __index__

    def __repr__(self):
        return repr(self._value())

    def __format__(self, spec):
        return format(self._value(), spec)


def watched(answer, ids, pair, new_id, counts):
    secret, numbers = object(), list(ids)
    server = started(values_server(numbers, secret, frozenset({*pair, new_id})))
    given = [Id(server, k) for k in range(len(ids))]

    def key(k):  # a key of the counts, plain: each id in it is used as a number
        if type(k) is tuple:
            return tuple(key(item) for item in k)
        return int(k) if type(k) is Id else k

    costs = {"get": 0, "contains": 0, "set": 1, "del": 1, "iter": 1, "len": 0}
    store = started(mapping_server(dict(counts), secret, costs))
    merged = answer(given, pair, new_id, Watched(store, key))
    work = server.send((secret, None))[1] + store.send((secret,))[1]

    def value(x):  # what x stands for, read with the secret: not counted
        if type(x) is Id:
            return numbers[x._index]
        if type(x) in (list, tuple):
            return type(x)(value(item) for item in x)
        return x

    places = len(ids) - len(merged) if isinstance(merged, list) else 0
    counted = {value(k): value(n) for k, n in store.send((secret,))[0].items()}
    return [value(merged), counted, value(given) == ids, work <= 32 * places + 64]


def probe(answer, ids, pair, new_id, counts):
    merged, counted, _unchanged, in_place = watched(answer, ids, pair, new_id, counts)
    return [merged, counted, in_place]


def probe_unchanged(answer, ids, pair, new_id, counts):
    return watched(answer, ids, pair, new_id, counts)
"""
)


def merge_and_update_reference(ids, pair, new_id, counts) -> list[int]:
    """Merged ids; counts updated in place from the pairs around each run of merged places
    (new_id is new: it does not occur in ids)."""
    merged = merge(ids, pair, new_id)
    for key, change in _changes(ids, merged, new_id).items():
        if change:
            counts[key] = counts.get(key, 0) + change
            if not counts[key]:
                del counts[key]
    return merged


def _changes(ids: list[int], merged: list[int], new_id: int) -> dict:
    """How the count of each pair changes from ids to merged, read around each run of merged
    places only."""
    changes: dict = {}
    i = j = 0  # the same place in ids and in merged
    while j < len(merged):
        if merged[j] != new_id:
            i, j = i + 1, j + 1
            continue
        end = j
        while end < len(merged) and merged[end] == new_id:
            end += 1
        run = end - j  # merged places side by side: 2 * run ids became run
        get_pair_counts(merged[max(j - 1, 0) : end + 1], changes)
        get_pair_counts(ids[max(i - 1, 0) : i + 2 * run + 1], changes, -1)
        i, j = i + 2 * run, end
    return changes


def _recount(ids, pair, new_id, counts):
    merged = merge(ids, pair, new_id)
    counts.clear()
    counts.update(get_pair_counts(merged))
    return merged


def _recount_changes(ids, pair, new_id, counts):
    """Counts the merged ids again and writes only the pairs whose count changed."""
    merged = merge(ids, pair, new_id)
    after = get_pair_counts(merged)
    for key in [key for key in counts if key not in after]:
        del counts[key]
    for key, count in after.items():
        if counts.get(key) != count:
            counts[key] = count
    return merged


def _recount_both(ids, pair, new_id, counts):
    """Counts the ids before and after merging and writes the difference."""
    merged = merge(ids, pair, new_id)
    before, after = get_pair_counts(ids), get_pair_counts(merged)
    for key in {**before, **after}:
        if before.get(key) != after.get(key):
            if key in after:
                counts[key] = after[key]
            else:
                del counts[key]
    return merged


def _recount_ints(ids, pair, new_id, counts):
    """Counts plain ints made from the ids, before and after merging, and writes only the
    differences."""
    plain = [int(i) for i in ids]
    merged = merge(plain, pair, new_id)
    before, after = get_pair_counts(plain), get_pair_counts(merged)
    for key in sorted({*before, *after}):
        change = after.get(key, 0) - before.get(key, 0)
        if change:
            counts[key] = counts.get(key, 0) + change
            if not counts[key]:
                del counts[key]
    return merged


def _recount_numpy(ids, pair, new_id, counts):
    """Counts the merged ids' pairs in a numpy array and writes those that changed."""
    import numpy as np

    merged = np.array(merge(ids, pair, new_id), dtype=np.int64)
    keys, numbers = np.unique(
        np.stack([merged[:-1], merged[1:]], axis=1), axis=0, return_counts=True
    )
    after = {(int(a), int(b)): int(n) for (a, b), n in zip(keys, numbers)}
    for key in [key for key in counts if key not in after]:
        del counts[key]
    for key, count in after.items():
        if counts.get(key) != count:
            counts[key] = count
    return [int(i) for i in merged]


def _stale_left(strict: bool):
    """merge_and_update that updates the left pair from the original ids: wrong after a merge
    just to its left (strict: a pair missing from counts raises KeyError when decremented)."""
    return lambda ids, pair, new_id, counts: _stale_left_update(ids, pair, new_id, counts, strict)


def _stale_left_update(ids, pair, new_id, counts, strict):
    def add(key, amount):
        counts[key] = (counts[key] if strict and amount < 0 else counts.get(key, 0)) + amount
        if counts[key] == 0:
            del counts[key]

    merged, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            add(pair, -1)
            if merged:
                add((ids[i - 1], ids[i]), -1)
                add((ids[i - 1], new_id), 1)
            if i + 2 < len(ids):
                add((ids[i + 1], ids[i + 2]), -1)
                add((new_id, ids[i + 2]), 1)
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def _keeps_zeros(ids, pair, new_id, counts):
    """Updates in place, but leaves the pairs whose count drops to 0."""
    merged = merge(ids, pair, new_id)
    for key, change in _changes(ids, merged, new_id).items():
        if change:
            counts[key] = counts.get(key, 0) + change
    return merged


def _mutates_ids(ids, pair, new_id, counts):
    ids[:] = merge_and_update_reference(list(ids), pair, new_id, counts)
    return ids


def _update_args(ids: list[int], pair: tuple, new_id: int) -> tuple:
    """The arguments of merge_and_update: ids, pair, new id, and the pair counts of ids."""
    return (ids, pair, new_id, get_pair_counts(ids))


def _long(text: str, tail: list[int]) -> list[int]:
    """text's bytes, then tail: many distinct pairs, so a recount writes far more than an
    update."""
    return list(text.encode("utf-8")) + tail


def _update_examples() -> Cases:
    cat = list(walkthroughs.CAT_HAT_TEXT.encode("utf-8"))
    shakespeare = list(corpora.english("train")[:600].encode("utf-8"))
    return [
        (_update_args([1, 2, 3], (1, 2), 9), ""),
        (_update_args(cat, (116, 104), 256), "neighbours on both sides"),
        (_update_args([7, 7, 7], (7, 7), 256), "an overlap: one (7, 7) is removed, not two"),
        (_update_args([7, 7, 7, 7], (7, 7), 256), "two merges side by side: (256, 256)"),
        (_update_args([5, 6], (1, 2), 300), "a pair that does not occur changes nothing"),
        (_update_args([], (1, 2), 300), "no ids"),
        (
            _update_args(shakespeare + [9, 9, 9, 9], (9, 9), 256),
            "Shakespeare: update, do not recount",
        ),
    ]


def _update_overlaps() -> Cases:
    return [
        (_update_args([7, 7, 7, 7, 7], (7, 7), 256), "an odd run"),
        (_update_args([1, 2, 1, 2, 1, 2], (1, 2), 300), "(2, 1) between merges disappears"),
        (_update_args([1, 2, 3, 1, 2], (3, 1), 300), "a pair that occurs once"),
        (_update_args(_long(MIXED, [8, 8, 8, 8, 8, 8]), (8, 8), 301), "a long run at the end"),
        (
            _update_args(_long(corpora.english("train")[:400], [8, 8, 8]), (8, 8), 301),
            "one merged place in a long list: update, do not recount",
        ),
    ]


def _update_hidden(rng: random.Random) -> Cases:
    # A held-out passage first: every list is long, so that a recount uses far more ids than an
    # update of a few merged places.
    text = _heldout(rng, 300) + random_text(rng, rng.randint(25, 40))
    run = [rng.choice([7, 300])] * rng.randint(4, 9)
    ids = _long(text, run) + _long(random_text(rng, 3), [])
    once = sorted(pair for pair, n in get_pair_counts(_long(text, [])).items() if n == 1)
    return [
        (_update_args(ids, (run[0], run[0]), rng.randint(400, 999)), "random"),
        (_update_args(_long(text, []), rng.choice(once), rng.randint(400, 999)), "random"),
    ]


def _update_unchanged() -> Cases:
    return [
        (_update_args([1, 2, 3], (1, 2), 9), ""),
        (_update_args([7, 7, 7, 7, 7], (7, 7), 256), "an odd run"),
        (_update_args([5, 6], (1, 2), 300), "a pair that does not occur"),
        (
            _update_args(_long(corpora.english("train")[:400], [8, 8, 8]), (8, 8), 301),
            "one merged place in a long list: update, do not recount",
        ),
    ]


UNCHANGED = "ids unchanged"
MERGE_AND_UPDATE = TaskSpec(
    "merge_and_update",
    merge_and_update_reference,
    (
        Group(
            "merged ids and counts",
            2,
            lambda: _update_examples() + _update_overlaps(),
            hidden=_update_hidden,
        ),
        Group(UNCHANGED, 1, _update_unchanged, probe="probe_unchanged"),
    ),
    (
        *(
            Mistake(
                "update the counts in place from the pairs around each merged place: "
                "counting the pairs of the whole list again, before or after merging, is "
                "the recount the task rules out",
                recount,
            )
            for recount in (
                _recount,
                _recount_changes,
                _recount_both,
                _recount_ints,
                _recount_numpy,
            )
        ),
        *(
            Mistake(
                "the pair on the left of a merged place starts with the id just before it in "
                "the merged list, which may itself be new_id (two merges side by side)",
                _stale_left(strict),
            )
            for strict in (False, True)
        ),
        Mistake("delete a pair whose count drops to 0", _keeps_zeros),
        Mistake(
            "return a new list: the ids you are given must not change",
            _mutates_ids,
            part=UNCHANGED,
        ),
        Mistake(
            "this is the chapter's merge: it leaves the counts as they were",
            lambda ids, pair, new_id, counts: merge(ids, pair, new_id),
        ),
    ),
    "afterwards counts must equal the pair counts of the merged ids, and only the pairs a "
    "merge changes may be looked up or written.",
    probe=IN_PLACE,
)

# --- Task 4: stream_decode -----------------------------------------------------------------------


def stream_decode_reference(ids: list[int], vocab: dict[int, bytes]) -> list[str]:
    """The text certain after each id: truncated characters wait, invalid bytes are replaced.

    Python's incremental decoder waits one byte too long on some invalid pairs (``ED A0``), so
    the reference decodes the pending bytes strictly and reads the error: "unexpected end of
    data" at the very end is a truncated character, every other error is invalid at once.

    >>> stream_decode_reference([0xC3, 0xA9, 0xED, 0xA0], {i: bytes([i]) for i in range(256)})
    ['', 'é', '', '\\ufffd\\ufffd']
    """
    pieces, pending = [], b""
    for token_id in ids:
        pending += vocab[token_id]
        text = ""
        while pending:
            try:
                text, pending = text + pending.decode("utf-8"), b""
            except UnicodeDecodeError as error:
                good = pending[: error.start].decode("utf-8")
                if error.reason == "unexpected end of data" and error.end == len(pending):
                    text, pending = text + good, pending[error.start :]
                    break
                text, pending = text + good + "\ufffd", pending[error.end :]
        pieces.append(text)
    return pieces


def _stream_holding(ids, vocab):
    """Waits for up to 3 bytes, so invalid bytes block the stream."""
    pieces, pending = [], b""
    for i in ids:
        pending += vocab[i]
        text = ""
        for keep in range(min(3, len(pending)) + 1):
            try:
                text = pending[: len(pending) - keep].decode("utf-8")
            except UnicodeDecodeError:
                continue
            pending = pending[len(pending) - keep :]
            break
        pieces.append(text)
    return pieces


def _stream_codecs(ids, vocab):
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return [decoder.decode(vocab[i]) for i in ids]


def _stream_prefix(ids, vocab):
    data = b"".join(vocab[i] for i in ids)
    ends = [len(b"".join(vocab[j] for j in ids[: k + 1])) for k in range(len(ids))]
    return [data[:end].decode("utf-8", "replace") for end in ends]


def _stream_first_error(ids, vocab):
    """Reads only the first error of the pending bytes: if it is not a truncation, replaces
    them all, although they may end in the start of a character."""
    pieces, pending = [], b""
    for i in ids:
        pending += vocab[i]
        try:
            pieces.append(pending.decode("utf-8"))
            pending = b""
        except UnicodeDecodeError as error:
            if error.reason == "unexpected end of data":
                pieces.append(pending[: error.start].decode("utf-8", "replace"))
                pending = pending[error.start :]
            else:
                pieces.append(pending.decode("utf-8", "replace"))
                pending = b""
    return pieces


def _stream_per_byte(ids, vocab):
    """Replaces an invalid stretch byte by byte: one U+FFFD per byte, not per maximal part."""
    pieces, pending = [], b""
    for i in ids:
        pending += vocab[i]
        text = ""
        while pending:
            try:
                text, pending = text + pending.decode("utf-8"), b""
            except UnicodeDecodeError as error:
                good = pending[: error.start].decode("utf-8")
                if error.reason == "unexpected end of data" and error.end == len(pending):
                    text, pending = text + good, pending[error.start :]
                    break
                text, pending = text + good + "\ufffd", pending[error.start + 1 :]
        pieces.append(text)
    return pieces


def _stream_flushed(ids, vocab):
    """Shows a truncated character at the last id as U+FFFD, as if no id could follow."""
    pieces = stream_decode_reference(ids, vocab)
    if pieces:
        shown = "".join(pieces)
        full = b"".join(vocab[i] for i in ids).decode("utf-8", "replace")
        pieces[-1] += full[len(shown) :]
    return pieces


@cache
def _parallel() -> ByteTokenizer:
    """The chapter's tokenizer of 512 ids, trained on the parallel passage (21 languages)."""
    return _tokenizer("".join(text + "\n" for text in corpora.parallel().values()), 512)


def _joined_late() -> list[int]:
    """The parallel passage's ids from the first token that ends one character and starts the
    next: a stream joined mid-character, whose first bytes are invalid."""
    tok = _parallel()
    ids = tok.encode("".join(corpora.parallel().values()))
    first = next(k for k, i in enumerate(ids) if tok.vocab[i].startswith(b"\x88\xeb"))
    return ids[first : first + 12]


def _stream_examples() -> Cases:
    multi, english = _tokenizer(MIXED, 280), _english()
    cases: Cases = []
    for tok, text in [(multi, MIXED), (multi, "🦙 ok"), (english, "naïve 👨‍👩‍👧 the king")]:
        ids = tok.encode(text)
        cases += [((ids, dict(tok.vocab)), "whole text"), ((ids[:-1], dict(tok.vocab)), "cut")]
    return cases + [
        ((_joined_late(), dict(_parallel().vocab)), "joined mid-character: invalid, then a start"),
        ((list("é€😀".encode()), BYTE_VOCAB), "truncated characters wait for their last byte"),
        ((list(b"\xf0\x9f\x98"), BYTE_VOCAB), "a truncated character at the end is never shown"),
        ((list(b"ok " + SURROGATE + b"!"), BYTE_VOCAB), "invalid: a surrogate, at once"),
        (
            (list(b"ok \xf0\x9f\xa6 ok"), BYTE_VOCAB),
            "three bytes of a llama, then text: one replacement",
        ),
        (([], BYTE_VOCAB), "no ids"),
    ]


def _stream_invalid() -> Cases:
    cases: Cases = [
        ((list(b"ok " + data + " é!".encode()), BYTE_VOCAB), f"invalid: {note}")
        for note, data in INVALID.items()
    ]
    return cases + [
        ((list(b"\xf0\x9f(\x80a"), BYTE_VOCAB), "truncated, then proven invalid by the next byte"),
        (
            ([0xE9, 0x80, 0x41], {**BYTE_VOCAB, 0xE9: b"\xe2\x82", 0x80: b"\xac\x80"}),
            "one token completes a character and starts an invalid byte",
        ),
        (
            ([1, 2, 3], {1: b"\x80\xc3", 2: b"\xa9", 3: b"!"}),
            "one token holds an invalid byte, then the start of a character",
        ),
        ((list(b"ok \xc3\xe2\x82\xac!"), BYTE_VOCAB), "a lead byte cut off by a character"),
        ((list(b"ok \x80 \xe2\x82"), BYTE_VOCAB), "invalid, then a truncated character at the end"),
    ]


def _stream_hidden(rng: random.Random) -> Cases:
    english = _english()
    pool = [bytes([b]) for b in rng.sample(range(256), 40)]
    pool += [ch.encode() for ch in "aé€😀"] + list(INVALID.values())
    cases: Cases = [((english.encode(random_text(rng, 6)), dict(english.vocab)), "random")]
    for _ in range(2):
        parts = [rng.choice(pool) for _ in range(rng.randint(3, 10))]
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(["é", "€", "😀"]).encode())
        parts.insert(rng.randrange(len(parts) + 1), SURROGATE)
        cut = bytes([rng.choice([0xC3, 0xE2, 0xF0])]) + rng.choice(["é", "€", "😀"]).encode()
        parts.insert(rng.randrange(len(parts) + 1), cut)  # a lead byte, cut off
        start = rng.choice(["€", "😀"]).encode()
        broken = start[: rng.randint(2, len(start) - 1)] + b"!"  # one maximal part, 2-3 bytes
        parts.insert(rng.randrange(len(parts) + 1), broken)
        parts.append(rng.choice(["é", "€", "😀"]).encode()[:-1])  # truncated at the end
        cases.append(((list(b"".join(parts)), BYTE_VOCAB), "random"))
    return cases


STREAM_DECODE = TaskSpec(
    "stream_decode",
    stream_decode_reference,
    (
        Group("texts", 1, _stream_examples),
        Group("invalid bytes", 1, _stream_invalid),
        Group("random bytes", 1, hidden=_stream_hidden),
    ),
    (
        Mistake(
            "bytes that can never become a character are shown at once as '\ufffd'; only a "
            "truncated character waits",
            _stream_holding,
        ),
        Mistake(
            "Python's incremental decoder waits one byte too long on some invalid bytes (a "
            "surrogate, ED A0): they can never become a character, so they are shown at once",
            _stream_codecs,
        ),
        Mistake(
            "pending bytes can hold an invalid stretch and then the start of a character: "
            "only the invalid stretch is shown now, the start waits for the rest",
            _stream_first_error,
        ),
        Mistake(
            "a character's bytes may arrive in several tokens: keep the bytes of a truncated "
            "character until the token that completes it",
            lambda ids, vocab: [vocab[i].decode("utf-8", "replace") for i in ids],
        ),
        Mistake(
            "each string is only the text that this id makes certain, not all text so far",
            _stream_prefix,
        ),
        Mistake(
            "an invalid stretch is replaced as bytes.decode replaces it: one '\ufffd' for "
            "each maximal part that could begin a character, not one for each byte",
            _stream_per_byte,
        ),
        Mistake(
            "the stream may go on after the last id you are given: a truncated character at "
            "the end still waits, and is not shown",
            _stream_flushed,
        ),
    ),
    "joined, the strings must be what a decoder that puts U+FFFD for each maximal invalid "
    "part shows of all the bytes, minus an "
    "unfinished character at the end; each string is what its id makes certain, no more, "
    "no less.",
)

# --- Task 5: char_spans --------------------------------------------------------------------------


def char_spans_reference(ids: list[int], vocab: dict[int, bytes]) -> list[tuple[int, int]]:
    """For each character of the text ids spell: (token of its first byte, token of its last)."""
    owner = [k for k, token_id in enumerate(ids) for _ in vocab[token_id]]
    text = b"".join(vocab[i] for i in ids).decode("utf-8")
    spans, start = [], 0
    for ch in text:
        end = start + len(ch.encode("utf-8"))
        spans.append((owner[start], owner[end - 1]))
        start = end
    return spans


def _spans_per_token(ids, vocab):
    spans = []
    for k, token_id in enumerate(ids):
        spans += [(k, k)] * len(vocab[token_id].decode("utf-8", "replace"))
    return spans


def _spans_per_byte(ids, vocab):
    return [(k, k) for k, token_id in enumerate(ids) for _ in vocab[token_id]]


def _spans_exclusive(ids, vocab):
    return [(first, last + 1) for first, last in char_spans_reference(ids, vocab)]


def _spans_first(ids, vocab):
    return [(first, first) for first, _last in char_spans_reference(ids, vocab)]


def _spans_utf16(ids, vocab):
    """Gives a character above U+FFFF two spans, as JavaScript's strings count it."""
    text = b"".join(vocab[i] for i in ids).decode("utf-8")
    spans = char_spans_reference(ids, vocab)
    return [span for ch, span in zip(text, spans, strict=True) for _ in range(1 + (ch > "\uffff"))]


def _spans_decoded_at_once(ids, vocab):
    """Gives every character of the text a token completes the token where the pending bytes
    began: the a of [b'\\xc3', b'\\xa9a'] gets (0, 1), not (1, 1)."""
    spans, pending, start = [], b"", 0
    for k, token_id in enumerate(ids):
        start = start if pending else k
        pending += vocab[token_id]
        try:
            text = pending.decode("utf-8")
        except UnicodeDecodeError:
            continue
        spans += [(start, k)] * len(text)
        pending = b""
    return spans


def _spans_next_byte(ids, vocab):
    """Ends each span at the token of the byte after the character (the last byte's own token
    at the end of the text)."""
    owner = [k for k, token_id in enumerate(ids) for _ in vocab[token_id]]
    spans = char_spans_reference(ids, vocab)
    ends = list(itertools.accumulate(len(ch.encode()) for ch in _text(ids, vocab)))
    return [(first, owner[min(end, len(owner) - 1)]) for (first, _), end in zip(spans, ends)]


def _spans_token_before(ids, vocab):
    """Gives a byte that starts a token to the token before it (the first token stays 0)."""
    starts = list(itertools.accumulate((len(vocab[i]) for i in ids[:-1]), initial=0))
    spans, position = [], 0
    for ch in _text(ids, vocab):
        last = position + len(ch.encode()) - 1
        spans.append(tuple(max(bisect.bisect_left(starts, at) - 1, 0) for at in (position, last)))
        position = last + 1
    return spans


def _spans_graphemes(ids, vocab):
    """One span per grapheme cluster, not per character."""
    owner = [k for k, token_id in enumerate(ids) for _ in vocab[token_id]]
    spans, position = [], 0
    for cluster in regex.findall(r"\X", _text(ids, vocab)):
        end = position + len(cluster.encode())
        spans.append((owner[position], owner[end - 1]))
        position = end
    return spans


def _text(ids, vocab) -> str:
    return b"".join(vocab[i] for i in ids).decode("utf-8")


def _spans_examples() -> Cases:
    multi, english = _tokenizer(MIXED, 280), _english()
    return [
        ((multi.encode(MIXED), dict(multi.vocab)), "tokens that hold part of a character"),
        (([1, 2], {1: b"\xc3", 2: b"\xa9a"}), "a token ends a character and holds the next"),
        ((list("né🦙".encode()), BYTE_VOCAB), "bytes only"),
        ((english.encode("the king's café 日本"), dict(english.vocab)), ""),
        (([], BYTE_VOCAB), "no ids"),
    ]


def _spans_hidden(rng: random.Random) -> Cases:
    multi = _tokenizer(MIXED, 280)
    # Every character of these words is split over several tokens: no merge of MIXED joins
    # their bytes, so every known mistake shows on them.
    split = rng.choice(["Привет", "नमस्ते", "👨‍👩‍👧"])
    emoji = rng.choice(["🦙", "😀", "🌊"])  # 4 bytes: two UTF-16 units, one character
    text = f"{random_text(rng, rng.randint(3, 8))} {split} {emoji}"
    return [((multi.encode(text), dict(multi.vocab)), "random")]


CHAR_SPANS = TaskSpec(
    "char_spans",
    char_spans_reference,
    (Group("spans", 2, _spans_examples, hidden=_spans_hidden),),
    (
        Mistake(
            "a token may hold part of a character: decode all the bytes, not token by token",
            _spans_per_token,
        ),
        Mistake(
            "a character is 1 to 4 bytes: one span per character, not per byte", _spans_per_byte
        ),
        Mistake(
            "the second number is the index of the token holding the last byte itself",
            _spans_exclusive,
        ),
        Mistake("a character whose bytes span several tokens ends in a later token", _spans_first),
        Mistake(
            "the second number is the token that holds the character's own last byte, not the "
            "byte after it",
            _spans_next_byte,
        ),
        Mistake(
            "a byte that starts a token belongs to that token, not to the one before it",
            _spans_token_before,
        ),
        Mistake(
            "a character is one code point: a grapheme cluster (a family emoji joined by "
            "zero-width joiners, a letter and its combining marks) is several characters",
            _spans_graphemes,
        ),
        Mistake(
            "a token that completes a character may hold the next characters whole: each "
            "character starts in the token that holds its own first byte",
            _spans_decoded_at_once,
        ),
        Mistake(
            "a character is one code point, whatever its length: an emoji outside the Basic "
            "Multilingual Plane is one character, not two UTF-16 units",
            _spans_utf16,
        ),
    ),
    "one span per character of the text the ids spell; a span gives the indexes in ids of "
    "the tokens that hold the character's first and last bytes.",
)

SPECS = (SHRINK, STRANDED_MERGES, MERGE_AND_UPDATE, STREAM_DECODE, CHAR_SPANS)
check, judge_tasks = checks_of(SPECS)

# The notebook needs none of the tokenizers: all of them are out of reach while grading.
REFERENCE = ("book.tokenizers", "book.analysis", "book.chat")
