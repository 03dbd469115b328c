"""The checks of chapter 09's exercises pass right answers and catch plausible wrong ones.

The wrong answers are the mistakes a reader makes when making BPE fast: an index that keeps
the old tuple under pairs far from the merge, or drops a word from a pair it still holds,
counts not weighted, zero counts kept, the input changed; a heap whose tie-break takes the
smaller pair, or sorts a prefix first, or uses stale entries; workers' counts added in the
order they arrive, or overwritten; a streaming encoder that cuts at every piece, after the
space, or reads everything first; tiktoken ranks with the special tokens in, or numbered by
merge rank. The judge's tasks are graded in this process too: full marks for the model
solutions, none for unattempted answers, part for half-right ones.
"""

import heapq
import random

import pytest
import tiktoken
from check_helpers import line, passes
from hypothesis import given, settings
from hypothesis import strategies as st
from test_checks_ch01 import grade_locally

from book import corpora
from book.checks import ch09
from book.checks.ch09 import (
    GPT2_PATTERN,
    merge_pieces,
    merge_unordered_reference,
    pair_index,
    ready_counts,
    stream_tokenizer,
    tiktoken_ranks_reference,
)
from book.tokenizers import RegexTokenizer
from book.tokenizers.bpe.pretokenize import training_chunk_counts

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
        merged = merge_pieces(pretoken, pair)
        for new in zip(merged, merged[1:]):
            pair_counts[new] = pair_counts.get(new, 0) + count
            where.setdefault(new, set()).add(merged)
        renamed[pretoken] = merged
    return {renamed.get(pretoken, pretoken): count for pretoken, count in counts.items()}


def entry_right(pair, count):
    def key(piece):
        return (*(255 - b for b in piece), 256)

    return (-count, key(pair[0]), key(pair[1]), pair)


def pop_right(heap, counts):
    while heap:
        entry = heapq.heappop(heap)
        if counts.get(entry[-1]) == -entry[0]:
            return entry[-1]
    return None


def stream_right(encode, pieces):
    buffer = ""
    for piece in pieces:
        buffer += piece
        cut = ch09.last_safe_cut(buffer)
        if cut:
            yield from encode(buffer[:cut])
            buffer = buffer[cut:]
    yield from encode(buffer)


RIGHT = {
    "merge_pretokens": merge_right,
    "heap_entry": entry_right,
    "pop_best": pop_right,
    "merge_unordered": merge_unordered_reference,
    "stream_encode": stream_right,
    "tiktoken_ranks": tiktoken_ranks_reference,
}


def test_right_answers_pass(capsys):
    assert passes(capsys, ch09.check_merge_pretokens, merge_right)
    assert passes(capsys, ch09.check_heap, entry_right, pop_right)
    assert passes(capsys, ch09.check_merge_unordered, merge_unordered_reference)
    assert passes(capsys, ch09.check_stream_encode, stream_right)
    assert passes(capsys, ch09.check_tiktoken_ranks, tiktoken_ranks_reference)


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch09.check_merge_pretokens, not_yet)
    assert "not attempted" in line(capsys, ch09.check_heap, entry_right, not_yet)
    assert "not defined" in line(capsys, ch09.check_stream_encode, None)
    assert "not defined" in line(capsys, ch09.check_heap, None, pop_right)


# --- merge_pretokens -----------------------------------------------------------------------------


def merge_neighbours_only(counts, pair_counts, where, pair):
    """Updates counts right, but files the new tuple only under the pairs next to the merge."""
    renamed = {}
    for pretoken in list(where.get(pair, ())):
        merged = merge_pieces(pretoken, pair)
        count = counts[pretoken]
        for old in zip(pretoken, pretoken[1:]):
            pair_counts[old] -= count
            if not pair_counts[old]:
                del pair_counts[old]
        for new in zip(merged, merged[1:]):
            pair_counts[new] = pair_counts.get(new, 0) + count
            if pair[0] + pair[1] in new:
                where.setdefault(new, set()).add(merged)
        where.pop(pair, None)
        renamed[pretoken] = merged
    return {renamed.get(pretoken, pretoken): count for pretoken, count in counts.items()}


def merge_dropping_leftovers(counts, pair_counts, where, pair):
    """Unfiles the word from every old pair and files it only under pairs the merge made."""
    renamed = {}
    for pretoken in list(where.get(pair, ())):
        merged = merge_pieces(pretoken, pair)
        count = counts[pretoken]
        old_pairs, new_pairs = list(zip(pretoken, pretoken[1:])), list(zip(merged, merged[1:]))
        for old in old_pairs:
            pair_counts[old] -= count
            if not pair_counts[old]:
                del pair_counts[old]
            if old in where:
                where[old].discard(pretoken)
                if not where[old]:
                    del where[old]
        for new in new_pairs:
            pair_counts[new] = pair_counts.get(new, 0) + count
            if new not in old_pairs:
                where.setdefault(new, set()).add(merged)
            elif new in where:
                where[new].add(merged)
        renamed[pretoken] = merged
    return {renamed.get(pretoken, pretoken): count for pretoken, count in counts.items()}


def merge_unweighted(counts, pair_counts, where, pair):
    ones = {pretoken: 1 for pretoken in counts}
    merged = merge_right(ones, pair_counts, where, pair)
    return {pretoken: counts.get(pretoken, 1) for pretoken in merged}


def merge_keeping_zeros(counts, pair_counts, where, pair):
    merged = merge_right(counts, pair_counts, where, pair)
    pair_counts.setdefault(pair, 0)
    return merged


def merge_in_place(counts, pair_counts, where, pair):
    merged = merge_right(dict(counts), pair_counts, where, pair)
    counts.clear()
    counts.update(merged)
    return counts


def merge_recounting_everything(counts, pair_counts, where, pair):
    """Right values, but the merged pre-tokens moved to the end of the dict."""
    merged = merge_right(counts, pair_counts, where, pair)
    moved = [t for t in merged if t not in counts]
    return {**{t: n for t, n in merged.items() if t not in moved}, **{t: merged[t] for t in moved}}


@pytest.mark.parametrize(
    "wrong",
    [
        merge_neighbours_only,
        merge_dropping_leftovers,
        merge_unweighted,
        merge_keeping_zeros,
        merge_in_place,
        merge_recounting_everything,
    ],
    ids=["stale-far-keys", "drops-leftovers", "unweighted", "zeros-kept", "in-place", "order"],
)
def test_merge_pretokens_catches(capsys, wrong):
    assert not passes(capsys, ch09.check_merge_pretokens, wrong)


def test_merge_pretokens_names_the_mistake(capsys):
    out = line(capsys, ch09.check_merge_pretokens, merge_neighbours_only)
    assert "where[(b'w', b'e')] lacks (b'n', b'e', b'w', b'e', b'st')" in out
    assert "where lacks (b'w', b'i')" in line(
        capsys, ch09.check_merge_pretokens, merge_dropping_leftovers
    )
    out = line(capsys, ch09.check_merge_pretokens, merge_unweighted)
    assert "(b'w', b'i', b'd', b'e', b'st') has 1, should have 3" in out


PIECES = st.sampled_from([b"a", b"b", b"c", b"ab", b"\xff", b"\x00"])
PRETOKENS = st.dictionaries(st.lists(PIECES, min_size=1, max_size=6).map(tuple), st.integers(1, 5))


@given(PRETOKENS, st.tuples(PIECES, PIECES))
def test_the_incremental_answer_equals_counting_again(counts, pair):
    pair_counts, where = pair_index(counts)
    merged = merge_right(dict(counts), pair_counts, where, pair)
    assert list(merged.values()) == list(counts.values())
    assert (pair_counts, where) == pair_index(merged)
    assert merged == {merge_pieces(t, pair): n for t, n in counts.items()}


# --- the heap ------------------------------------------------------------------------------------


def entry_smaller_wins(pair, count):
    return (-count, pair)


def entry_without_end(pair, count):
    return (-count, bytes(255 - b for b in pair[0]), bytes(255 - b for b in pair[1]), pair)


def entry_byte_end(pair, count):
    """The end marker as a byte: 0xFF is also what 0x00 inverts to."""
    left, right = (bytes(255 - b for b in piece) + b"\xff" for piece in pair)
    return (-count, left, right, pair)


def pop_without_count_check(heap, counts):
    while heap:
        pair = heapq.heappop(heap)[-1]
        if pair in counts:
            return pair
    return None


def pop_first(heap, counts):
    return heapq.heappop(heap)[-1] if heap else None


@pytest.mark.parametrize(
    "entry, pop",
    [
        (entry_smaller_wins, pop_right),
        (entry_without_end, pop_right),
        (entry_byte_end, pop_right),
        (entry_right, pop_without_count_check),
        (entry_right, pop_first),
    ],
    ids=["smaller-wins", "prefix-first", "byte-end-marker", "stale-count", "no-lazy-deletion"],
)
def test_heap_catches(capsys, entry, pop):
    assert not passes(capsys, ch09.check_heap, entry, pop)


def test_heap_names_the_prefix_mistake(capsys):
    assert "prefix" in line(capsys, ch09.check_heap, entry_without_end, pop_right)


@given(st.randoms(use_true_random=False))
def test_the_model_heap_is_the_reference_on_random_updates(rng):
    counts, updates = ch09._random_heap_case(rng)
    expected = ch09.best_pair_reference(counts, updates)
    assert ch09.run_heap(entry_right, pop_right, counts, updates) == expected


# --- merge_unordered -----------------------------------------------------------------------------


def merge_in_arrival_order(results):
    total = {}
    for _index, counts in results:
        for chunk, n in counts.items():
            total[chunk] = total.get(chunk, 0) + n
    return total, 0


def merge_overwriting(results):
    total, most = merge_unordered_reference(
        [(i, {k: 0 for k in c}) for i, c in results]
    )  # the order and the waiting are right
    for _index, counts in sorted(results, key=lambda r: r[0]):
        total.update(counts)
    return total, most


def merge_sorted_at_the_end(results):
    ordered = sorted(results, key=lambda r: r[0])
    if [i for i, _ in ordered] != list(range(len(ordered))):
        raise ValueError("blocks missing or repeated")
    return merge_in_arrival_order(ordered)[0], max(len(results) - 1, 0)


def merge_without_checks(results):
    """Right order and waiting, but a repeated or missing block passes silently."""
    total, waiting, turn, most = {}, {}, 0, 0
    for index, counts in results:
        waiting[index] = counts
        while turn in waiting:
            for chunk, n in waiting.pop(turn).items():
                total[chunk] = total.get(chunk, 0) + n
            turn += 1
        most = max(most, len(waiting))
    return total, most


@pytest.mark.parametrize(
    "wrong",
    [merge_in_arrival_order, merge_overwriting, merge_sorted_at_the_end, merge_without_checks],
    ids=["arrival-order", "overwrites", "waits-for-all", "no-valueerror"],
)
def test_merge_unordered_catches(capsys, wrong):
    assert not passes(capsys, ch09.check_merge_unordered, wrong)


@given(st.permutations(range(6)))
def test_any_arrival_order_gives_the_counts_of_the_whole(order):
    text = "<|endoftext|>".join(corpora.english("train")[:3000].split("\n\n"))
    blocks = ch09._blocks(text, 6)
    total, most = merge_unordered_reference(ch09._arrivals(blocks, list(order)))
    whole = training_chunk_counts(text, GPT2_PATTERN, ["<|endoftext|>"])
    assert list(total.items()) == list(whole.items())
    # Waiting after k + 1 arrivals: the arrived blocks after the first one still missing.
    waits = []
    for k in range(len(order)):
        arrived = set(order[: k + 1])
        missing = min(set(range(len(order))) - arrived, default=len(order))
        waits.append(sum(1 for index in arrived if index > missing))
    assert most == max(waits)


# --- stream_encode -------------------------------------------------------------------------------


def stream_per_piece(encode, pieces):
    for piece in pieces:
        yield from encode(piece)


def stream_read_all(encode, pieces):
    yield from encode("".join(pieces))


def stream_after_the_space(encode, pieces):
    buffer = ""
    for piece in pieces:
        buffer += piece
        cut = buffer.rfind(" ", 1, len(buffer) - 1)
        if cut > 0 and buffer[cut - 1] != " ":
            yield from encode(buffer[: cut + 1])
            buffer = buffer[cut + 1 :]
    yield from encode(buffer)


def stream_at_any_space(encode, pieces):
    buffer = ""
    for piece in pieces:
        buffer += piece
        cut = buffer.rfind(" ", 1, len(buffer) - 1)
        if cut > 0:
            yield from encode(buffer[:cut])
            buffer = buffer[cut:]
    yield from encode(buffer)


def stream_without_flush(encode, pieces):
    buffer = ""
    for piece in pieces:
        buffer += piece
        cut = buffer.rfind(" ", 1, len(buffer) - 1)
        if cut > 0 and not buffer[cut - 1].isspace():
            yield from encode(buffer[:cut])
            buffer = buffer[cut:]


def stream_one_piece_late(encode, pieces):
    """Right cuts, but looks one piece ahead before yielding."""
    held = None
    for piece in pieces:
        if held is not None:
            yield from stream_right(encode, [held])
        held = piece
    if held is not None:
        yield from stream_right(encode, [held])


@pytest.mark.parametrize(
    "wrong",
    [
        stream_per_piece,
        stream_read_all,
        stream_after_the_space,
        stream_at_any_space,
        stream_without_flush,
        stream_one_piece_late,
    ],
    ids=["per-piece", "reads-all", "after-space", "any-space", "no-flush", "late"],
)
def test_stream_encode_catches(capsys, wrong):
    assert not passes(capsys, ch09.check_stream_encode, wrong)


def test_stream_encode_says_which_piece_was_read_too_early(capsys):
    out = line(capsys, ch09.check_stream_encode, stream_read_all)
    assert "got 'piece 1 read when 0 of the 2 ids due were out'" in out


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40), st.lists(st.integers(0, 40), max_size=6))
def test_the_model_stream_equals_the_whole_and_is_never_late(text, places):
    encode = stream_tokenizer().encode_ordinary
    pieces = ch09._cut(text, sorted({p for p in places if 0 < p < len(text)}))
    ready = ready_counts(encode, pieces)
    assert ch09.stream_log(stream_right, encode, pieces, ready) == [None, encode(text)]


def test_the_judges_encoder_is_the_books():
    tok = stream_tokenizer()
    task = next(t for t in ch09.judge_tasks(random.Random(0)) if t.name == "stream_encode")
    scope = dict(task.data)
    exec(ch09.ENCODER, scope)
    for text in [corpora.english("heldout")[:3000], "naïve 🦙 12345  \n\t x", ""]:
        assert scope["encode"](text) == tok.encode_ordinary(text)


# --- tiktoken_ranks ------------------------------------------------------------------------------


def ranks_with_specials(vocab, merges):
    return {token: token_id for token_id, token in vocab.items()}


def ranks_by_merge_rank(vocab, merges):
    ranks = tiktoken_ranks_reference(vocab, merges)
    for rank, (left, right) in enumerate(merges):
        ranks[left + right] = 256 + rank
    return ranks


def ranks_unchecked(vocab, merges):
    ids = {token: token_id for token_id, token in vocab.items()}
    made = [bytes([b]) for b in range(256)] + [a + b for a, b in merges]
    return {token: ids[token] for token in made if token in ids}


@pytest.mark.parametrize(
    "wrong",
    [ranks_with_specials, ranks_by_merge_rank, ranks_unchecked],
    ids=["specials-in", "merge-rank", "unchecked"],
)
def test_tiktoken_ranks_catches(capsys, wrong):
    assert not passes(capsys, ch09.check_tiktoken_ranks, wrong)


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_ranks_make_a_tiktoken_encoding_that_encodes_like_the_book(rng):
    text = ch09.random_text(rng, 30)
    tok = RegexTokenizer.train(text, 256 + 20, pattern=GPT2_PATTERN)
    vocab, merges = tok.vocab_and_merges()
    encoding = tiktoken.Encoding(
        "t",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=tiktoken_ranks_reference(vocab, merges),
        special_tokens={},
    )
    for sample in (text, ch09.random_text(rng, 10)):
        assert encoding.encode_ordinary(sample) == tok.encode_ordinary(sample)


# --- the judge -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_the_judge_gives_the_solutions_full_marks(tmp_path, seed):
    tasks = ch09.judge_tasks(random.Random(seed))
    assert grade_locally(tasks, RIGHT, tmp_path) == {task.name: task.points for task in tasks}


def test_the_judge_gives_unattempted_answers_nothing(tmp_path):
    def unattempted(*args):
        raise NotImplementedError()

    answers = {name: unattempted for name in RIGHT}
    tasks = ch09.judge_tasks(random.Random(3))
    assert set(grade_locally(tasks, answers, tmp_path).values()) == {0}


def test_the_judge_gives_half_right_answers_part_of_the_points(tmp_path):
    half = dict(RIGHT, heap_entry=entry_without_end, stream_encode=stream_per_piece)
    tasks = ch09.judge_tasks(random.Random(4))
    assert grade_locally(tasks, half, tmp_path) == {
        "merge_pretokens": 3,
        "heap": 0,
        "merge_unordered": 2,
        "stream_encode": 0,
        "tiktoken_ranks": 2,
    }
