"""The checks of chapter 10's exercises pass right answers and catch plausible wrong ones.

The known mistakes are in the specs (``book/checks/ch10.py``), proved to earn 0 by
``tests/test_check_specs.py``. Here: right answers written as the solutions notebook writes
them, the references against counting again and against the book, the probes' rules (a pop
that scans the heap is refused, the safe cuts the task describes are the book's), the judge's
encoder against the book's, and the judge's points for unattempted and half-right answers.
"""

import functools
import heapq
import random
import string
import unicodedata
from collections import Counter

import pytest
import tiktoken
from check_helpers import passes
from hypothesis import given, settings
from hypothesis import strategies as st
from test_checks_ch01 import grade_locally

from book import corpora
from book.checks import ch10
from book.checks.ch10 import (
    GPT2_PATTERN,
    merge_pretokens_reference,
    merge_symbols,
    pair_index,
    stream_tokenizer,
)
from book.checks.spec import PIECES as WORDS
from book.checks.spec import SPACES
from book.tokenizers.bpe.pretokenize import cuts

# --- right answers (written as the solutions notebook writes them) -------------------------------


def merge_right(counts, pair_counts, where, pair):
    """Visit the pre-tokens that hold pair: uncount and unfile them, merge, count and file."""
    renamed = {}
    for pretoken in list(where.get(pair, ())):
        count = counts[pretoken]
        for old in zip(pretoken, pretoken[1:]):
            pair_counts[old] -= count
            if not pair_counts[old]:
                del pair_counts[old]
            if old in where:
                where[old].discard(pretoken)
                if not where[old]:
                    del where[old]
        merged = merge_symbols(pretoken, pair)
        for new in zip(merged, merged[1:]):
            pair_counts[new] = pair_counts.get(new, 0) + count
            where.setdefault(new, set()).add(merged)
        renamed[pretoken] = merged
    return {renamed.get(pretoken, pretoken): count for pretoken, count in counts.items()}


def entry_right(pair, count):
    def key(symbol):
        return (*(255 - b for b in symbol), 256)

    return (-count, key(pair[0]), key(pair[1]), pair)


def pop_right(heap, counts):
    while heap:
        entry = heapq.heappop(heap)
        if counts.get(entry[-1]) == -entry[0]:
            return entry[-1]
    return None


def merge_unordered_right(results):
    total, waiting, turn, most = {}, {}, 0, 0
    for index, counts in results:
        if index < turn or index in waiting:
            raise ValueError("twice")
        waiting[index] = counts
        while turn in waiting:
            for chunk, n in waiting.pop(turn).items():
                total[chunk] = total.get(chunk, 0) + n
            turn += 1
        most = max(most, len(waiting))
    if waiting:
        raise ValueError("missing")
    return total, most


def safe(text, p):
    """The task's two safe cuts, in the words of its text."""
    before, after = text[p - 1], text[p]
    if after == " " and not before.isspace():
        return True
    kind = unicodedata.category(after)
    punctuation = not after.isspace() and kind[0] not in "LMN" and kind != "Cs" and after != "'"
    return before.isalpha() and punctuation


def stream_right(encode, parts):
    buffer = ""
    for part in parts:
        buffer += part
        cut = next((p for p in range(len(buffer) - 1, 0, -1) if safe(buffer, p)), None)
        if cut:
            yield from encode(buffer[:cut])
            buffer = buffer[cut:]
    yield from encode(buffer)


RIGHT = {
    "merge_pretokens": merge_right,
    "heap_entry": entry_right,
    "pop_best": pop_right,
    "merge_unordered": merge_unordered_right,
    "stream_encode": stream_right,
}


@pytest.mark.parametrize("name", list(RIGHT))
def test_right_answers_pass(capsys, name):
    assert passes(capsys, lambda answer: ch10.check(name, answer), RIGHT[name])


def entry_negated(pair, count):
    """Each byte negated, then 1, which sorts after every negated byte."""
    return (-count, (*(-b for b in pair[0]), 1), (*(-b for b in pair[1]), 1), pair)


class Greater:
    """A pair whose < is the pairs' >: heapq pops the greatest first."""

    def __init__(self, pair):
        self.pair = pair

    def __lt__(self, other):
        return self.pair > other.pair

    def __eq__(self, other):
        return self.pair == other.pair


def stream_looser(encode, parts):
    """Also cuts between a letter and ' or a mark: safe under GPT-2's pattern, as the task says."""

    def cut_here(text, p):
        before, after = text[p - 1], text[p]
        if after == " " and not before.isspace():
            return True
        kind = unicodedata.category(after)
        return before.isalpha() and not after.isspace() and kind[0] not in "LN" and kind != "Cs"

    buffer = ""
    for part in parts:
        buffer += part
        cut = next((p for p in range(len(buffer) - 1, 0, -1) if cut_here(buffer, p)), None)
        if cut:
            yield from encode(buffer[:cut])
            buffer = buffer[cut:]
    yield from encode(buffer)


def pop_pushing_back(heap, counts):
    """Hugging Face's way: a stale entry goes back with its pair's current count."""
    while heap:
        negated, *key, pair = heapq.heappop(heap)
        if pair not in counts:
            continue
        if counts[pair] != -negated:
            heapq.heappush(heap, (-counts[pair], *key, pair))
            continue
        return pair
    return None


def merge_unordered_counter(results):
    """Copies each block as it arrives, adds it with Counter.update when its turn comes."""
    total, waiting, turn, most = Counter(), {}, 0, 0
    for index, counts in results:
        if index < turn or index in waiting:
            raise ValueError("twice")
        waiting[index] = dict(counts)
        while turn in waiting:
            total.update(waiting.pop(turn))
            turn += 1
        most = max(most, len(waiting))
    if waiting:
        raise ValueError("missing")
    return dict(total), most


def pop_where(is_current):
    def pop_best(heap, counts):
        while heap:
            entry = heapq.heappop(heap)
            if is_current(counts, entry[-1], -entry[0]):
                return entry[-1]
        return None

    return pop_best


def unordered_with(
    add_on_arrival=False, most_before=False, missing_raises=True, wait=None, repeat=None
):
    """merge_unordered with one of the review's slips: counts added as they arrive, the waiting
    counted before the blocks an arrival lets in are added, a gap flushed at the end instead of
    raising, the waiting measured as the span up to the furthest block, or a repeat caught by
    repeat(index, seen, waiting) instead."""

    wait = wait or (lambda waiting, turn: len(waiting))
    repeat = repeat or (lambda index, seen, waiting: index in seen)

    def merge_unordered(results):
        total, waiting, seen, turn, most = Counter(), {}, set(), 0, 0
        for index, counts in results:
            if repeat(index, seen, waiting):
                raise ValueError("twice")
            seen.add(index)
            total.update(dict(counts) if add_on_arrival else {})
            waiting[index] = {} if add_on_arrival else dict(counts)
            most = max(most, len(waiting)) if most_before else most
            while turn in waiting:
                total.update(waiting.pop(turn))
                turn += 1
            most = most if most_before else max(most, wait(waiting, turn))
        if waiting and missing_raises:
            raise ValueError("missing")
        for index in sorted(waiting):
            total.update(waiting[index])
        return dict(total), most

    return merge_unordered


OTHER_RIGHT = [
    ("heap_entry", entry_negated),
    ("heap_entry", lambda pair, count: (-count, Greater(pair), pair)),
    ("pop_best", pop_pushing_back),
    ("merge_unordered", merge_unordered_counter),
    # a repeat caught only while the block waits: one after its turn waits forever, so the
    # missing-block error raises at the end, as the task asks (the review's)
    (
        "merge_unordered",
        unordered_with(repeat=lambda index, seen, waiting: index in waiting),
    ),
    # >= for ==: an entry below its pair's count now comes out after the current one, which the
    # trainer merges, so it never meets one while the pair is in counts (the review's)
    ("pop_best", pop_where(lambda counts, pair, n: counts.get(pair, 0) >= n)),
    ("stream_encode", stream_looser),
]


@pytest.mark.parametrize("name, answer", OTHER_RIGHT)
def test_other_right_answers_pass_on_every_seed(name, answer):
    spec = {spec.name: spec for spec in ch10.SPECS}[name]
    for seed in range(5):
        result = spec.result(answer, random.Random(seed))
        assert result.points == spec.points, result.line


# --- merge_pretokens -----------------------------------------------------------------------------

SYMBOLS = st.sampled_from([b"a", b"b", b"c", b"ab", b"\xff", b"\x00"])
PRETOKENS = st.dictionaries(st.lists(SYMBOLS, min_size=1, max_size=6).map(tuple), st.integers(1, 5))


@pytest.mark.parametrize("merge_pretokens", [merge_right, merge_pretokens_reference])
@given(counts=PRETOKENS, pair=st.tuples(SYMBOLS, SYMBOLS))
def test_merging_through_the_index_equals_counting_again(merge_pretokens, counts, pair):
    merged_all = {merge_symbols(t, pair): n for t, n in counts.items()}
    if len(merged_all) < len(counts):
        return  # two pre-tokens that merge into one: not a state a trainer reaches
    pair_counts, where = pair_index(counts)
    merged = merge_pretokens(dict(counts), pair_counts, where, pair)
    assert list(merged.items()) == list(merged_all.items())
    assert (pair_counts, where) == pair_index(merged)


# --- pop_best: the heap may only be used through heapq -------------------------------------------


def pop_by_scanning_the_heap(heap, counts):
    current = [entry for entry in heap if counts.get(entry[-1]) == -entry[0]]
    if not current:
        return None
    best = min(current)
    heap.remove(best)
    return best[-1]


def test_a_pop_that_scans_the_heap_is_refused_with_a_message():
    result = ch10.POP_BEST.result(pop_by_scanning_the_heap)
    assert result.points == 0 and "must not scan" in result.line


# --- stream_encode -------------------------------------------------------------------------------

# The task's rule in words is the book's is_cut on the characters of the tasks' texts (not on
# U+001C-001F, where str.isspace and regex's \s differ, nor on characters that Python's Unicode
# tables and the regex module's assign differently).
TEXT = st.text(st.sampled_from(sorted(set("".join(WORDS + SPACES) + string.printable))))


@given(TEXT)
def test_the_safe_cuts_the_task_describes_are_the_books(text):
    assert [p for p in range(1, len(text)) if safe(text, p)] == list(cuts(text, GPT2_PATTERN))


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.lists(st.integers(0, 40), max_size=6))
def test_the_reference_stream_equals_the_whole_and_is_never_late(text, places):
    parts = ch10._cut(text, sorted({p for p in places if 0 < p < len(text)}))
    run = ch10.STREAM_ENCODE.runner(ch10.stream_encode_reference)
    assert run(*ch10._stream_args(parts)) == {
        "a part read too early": None,
        "the ids": stream_tokenizer().encode_ordinary(text),
    }


def test_the_probes_encoder_is_the_books_and_merges_whitespace():
    tok = stream_tokenizer()
    assert {b"  ", b"\n    "} <= set(tok.vocab.values())
    encoding = tiktoken.Encoding(
        "t", pat_str=GPT2_PATTERN, mergeable_ranks=ch10._ranks(), special_tokens={}
    )
    for text in [corpora.english("heldout")[:3000], "naïve 🦙 12345  \n\t x", ""]:
        assert encoding.encode_ordinary(text) == tok.encode_ordinary(text)


# --- the judge -----------------------------------------------------------------------------------


def test_the_judge_gives_right_answers_full_marks_and_unattempted_ones_nothing(tmp_path):
    tasks = ch10.judge_tasks(random.Random(1))
    assert grade_locally(tasks, RIGHT, tmp_path) == {task.name: task.points for task in tasks}

    def unattempted(*args):
        raise NotImplementedError()

    answers = {name: unattempted for name in RIGHT}
    assert set(grade_locally(tasks, answers, tmp_path).values()) == {0}


def test_the_judge_gives_half_right_answers_part_of_the_points(tmp_path):
    def pop_first(heap, counts):
        return heapq.heappop(heap)[-1] if heap else None

    half = dict(RIGHT, pop_best=pop_first, stream_encode=ch10._part_by_part)
    tasks = ch10.judge_tasks(random.Random(4))
    assert grade_locally(tasks, half, tmp_path) == {
        "merge_pretokens": 3,
        "heap_entry": 2,
        "pop_best": 0,
        "merge_unordered": 2,
        "stream_encode": 0,
    }


# --- the review's wrong answers: each loses the parts it breaks, the same on every seed ----------


def merge_visit_all(counts, pair_counts, where, pair):
    """The index updated right, but the new dict merges every pre-token."""
    merge_right(counts, pair_counts, where, pair)
    return {merge_symbols(pretoken, pair): count for pretoken, count in counts.items()}


def merge_missing_pair(counts, pair_counts, where, pair):
    """Right, except where[pair] for a pair no pre-token holds (a KeyError)."""
    where[pair]
    return merge_right(counts, pair_counts, where, pair)


def merge_in_place(counts, pair_counts, where, pair):
    """Right, but counts rewritten in place and returned."""
    merged = merge_right(counts, pair_counts, where, pair)
    counts.clear()
    counts.update(merged)
    return counts


def merge_changed_pairs(counts, pair_counts, where, pair):
    """Only the pairs whose count changed are updated: the others keep filing the old key."""
    renamed = {}
    for old in list(where.get(pair, ())):
        count, new = counts[old], merge_symbols(old, pair)
        before, after = Counter(zip(old, old[1:])), Counter(zip(new, new[1:]))
        for p in before - after:
            pair_counts[p] -= count * (before[p] - after[p])
            if not pair_counts[p]:
                del pair_counts[p]
            if p not in after:
                where[p].discard(old)
                if not where[p]:
                    del where[p]
        for p in after - before:
            pair_counts[p] = pair_counts.get(p, 0) + count * (after[p] - before[p])
            where.setdefault(p, set()).add(new)
        renamed[old] = new
    return {renamed.get(pretoken, pretoken): count for pretoken, count in counts.items()}


def merge_neighbours(counts, pair_counts, where, pair):
    """Per occurrence: -(prev, a), -(b, next), +(prev, ab), +(ab, next); wrong in a a a a."""
    if pair not in where:
        return dict(counts)
    (a, b), renamed = pair, {}

    def dec(p, n):
        pair_counts[p] -= n
        if pair_counts[p] <= 0:
            del pair_counts[p]

    def inc(p, n):
        pair_counts[p] = pair_counts.get(p, 0) + n

    for old in list(where[pair]):
        n, new, i = counts[old], merge_symbols(old, pair), 0
        while i < len(old) - 1:
            if (old[i], old[i + 1]) != pair:
                i += 1
                continue
            dec(pair, n)
            if i > 0:
                dec((old[i - 1], a), n)
                inc((old[i - 1], a + b), n)
            if i + 2 < len(old):
                dec((b, old[i + 2]), n)
                inc((a + b, old[i + 2]), n)
            i += 2
        for p in {*zip(old, old[1:])} & where.keys():
            where[p].discard(old)
            if not where[p]:
                del where[p]
        for p in {*zip(new, new[1:])}:
            where.setdefault(p, set()).add(new)
        renamed[old] = new
    for p in where.keys() - pair_counts.keys():
        del where[p]
    return {renamed.get(t, t): n for t, n in counts.items()}


def entry_of(key):
    return lambda pair, count: (-count, key(pair[0]), key(pair[1]), pair)


def entry_joined(pair, count):
    """The two symbols joined with byte 00 between them, then flipped."""
    return (-count, (*(255 - x for x in pair[0] + b"\x00" + pair[1]), 256), pair)


def pop_until_index_error(heap, counts):
    """A truthy count taken for a current one, and heappop on an empty heap at the end."""
    while True:
        entry = heapq.heappop(heap)
        if counts.get(entry[-1]) and counts[entry[-1]] == -entry[0]:
            return entry[-1]


def pop_peeking(heap, counts):
    """Drops stale entries, but leaves the current one in the heap."""
    while heap:
        if counts.get(heap[0][-1]) == -heap[0][0]:
            return heap[0][-1]
        heapq.heappop(heap)
    return None


def unordered_collected(results):
    """Every result read first, then sorted: right totals, nothing added early."""
    got = {}
    for index, counts in results:
        if index in got:
            raise ValueError("twice")
        got[index] = counts
    if sorted(got) != list(range(len(got))):
        raise ValueError("missing")
    return merge_unordered_right(got.items())


def stream_cutting(is_cut, last=0):
    """The streaming encoder cutting where is_cut says, from p = len(buffer) - 1 - last down."""

    def stream_encode(encode, parts):
        buffer = ""
        for part in parts:
            buffer += part
            for p in range(len(buffer) - 1 - last, 0, -1):
                if is_cut(buffer, p):
                    yield from encode(buffer[:p])
                    buffer = buffer[p:]
                    break
        yield from encode(buffer)

    return stream_encode


def space_cut(text, p):
    """Before a space that follows a non-space."""
    return text[p] == " " and not text[p - 1].isspace()


def letter_cut(kinds):
    """Between a letter and a character whose category starts with one of kinds, not '."""

    def is_cut(text, p):
        before, after = unicodedata.category(text[p - 1]), unicodedata.category(text[p])
        return before[0] == "L" and after[0] in kinds and text[p] != "'"

    return is_cut


def either(*rules):
    return lambda text, p: any(rule(text, p) for rule in rules)


def after_the_space(text, p):
    """After a space that follows a non-space: ' |the' instead of '|_the'."""
    return text[p - 1] == " " and p >= 2 and not text[p - 2].isspace() and not text[p].isspace()


def ascii_punctuation(text, p):
    return text[p - 1].isalpha() and text[p] in string.punctuation and text[p] != "'"


MERGED, NONE = ch10.MERGED, ch10.NONE
IN_ORDER, ERRORS = ch10.IN_ORDER_PART, ch10.ERRORS_PART
HEAP = tuple(group.name for group in ch10.HEAP_ENTRY.groups)
POP = tuple(group.name for group in ch10.POP_BEST.groups)
STREAM = tuple(group.name for group in ch10.STREAM_ENCODE.groups)

# (task, the wrong answer, the parts it loses on every seed)
WRONG = [
    ("merge_pretokens", merge_changed_pairs, (MERGED,)),
    ("merge_pretokens", merge_in_place, (MERGED,)),
    ("merge_pretokens", merge_missing_pair, (NONE,)),
    ("merge_pretokens", merge_neighbours, (MERGED,)),
    ("merge_pretokens", merge_visit_all, (MERGED, NONE)),
    ("heap_entry", entry_joined, HEAP),
    ("heap_entry", entry_of(lambda symbol: tuple(-x for x in symbol)), HEAP),
    ("heap_entry", entry_of(lambda symbol: (*(255 - x for x in symbol), 255)), HEAP),
    ("pop_best", pop_where(lambda counts, pair, n: pair in counts), POP),
    ("pop_best", pop_until_index_error, POP),
    ("pop_best", pop_peeking, POP),
    ("merge_unordered", unordered_collected, (IN_ORDER,)),
    ("merge_unordered", unordered_with(most_before=True), (IN_ORDER,)),
    ("merge_unordered", unordered_with(add_on_arrival=True), (IN_ORDER,)),
    ("merge_unordered", unordered_with(missing_raises=False), (ERRORS,)),
    (
        "merge_unordered",
        unordered_with(wait=lambda waiting, turn: max(waiting, default=turn - 1) - turn + 1),
        (IN_ORDER,),
    ),
    ("stream_encode", stream_cutting(either(after_the_space, letter_cut("PS"))), STREAM),
    ("stream_encode", stream_cutting(either(lambda t, p: t[p] == " ", letter_cut("PS"))), STREAM),
    ("stream_encode", stream_cutting(either(space_cut, ascii_punctuation)), (ch10.HAND_MADE,)),
    ("stream_encode", stream_cutting(either(space_cut, letter_cut("PS")), last=1), STREAM),
    ("stream_encode", stream_cutting(either(space_cut, letter_cut("P"))), (ch10.HAND_MADE,)),
    ("stream_encode", stream_cutting(space_cut), STREAM),
]


@functools.cache
def task_on(name, seed):
    return {spec.name: spec for spec in ch10.SPECS}[name].task(random.Random(seed))


@pytest.mark.parametrize("name, answer, parts", WRONG)
def test_the_reviews_wrong_answers_lose_the_parts_they_break_on_every_seed(name, answer, parts):
    spec, memo = {spec.name: spec for spec in ch10.SPECS}[name], {}
    lost = sum(group.points for group in spec.groups if group.name in parts)
    failed = ", ".join(group.name for group in spec.groups if group.name in parts)
    for seed in range(1, 21):
        result = spec.result_on(task_on(name, seed), answer, memo)
        assert result.points == spec.points - lost, (seed, result.line)
        assert f"failed: {failed} —" in result.line, (seed, result.line)
