"""The checks of chapter 10's exercises pass right answers and catch plausible wrong ones.

The known mistakes are in the specs (``book/checks/ch10.py``), proved to earn 0 by
``tests/test_check_specs.py``. Here: right answers written as the solutions notebook writes
them, the references against counting again and against the book, the probes' rules (a pop
that scans the heap is refused, the safe cuts the task describes are the book's), the judge's
encoder against the book's, and the judge's points for unattempted and half-right answers.
"""

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


OTHER_RIGHT = [
    ("heap_entry", entry_negated),
    ("heap_entry", lambda pair, count: (-count, Greater(pair), pair)),
    ("pop_best", pop_pushing_back),
    ("merge_unordered", merge_unordered_counter),
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
