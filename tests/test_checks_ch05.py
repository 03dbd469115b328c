"""Chapter 05's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, the in-place rule
of merge_and_update enforced, and the references' own properties."""

import random

from check_helpers import line
from hypothesis import given
from hypothesis import strategies as st

from book.checks import ch05
from book.checks.ch05 import (
    NESTED,
    char_spans_reference,
    merge_gains,
    shrink_reference,
    stranded_merges_reference,
    stream_decode_reference,
)
from book.grading.calls import judge_in_process
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.core import build_vocab, get_pair_counts, merge

RIGHT = {spec.name: spec.reference for spec in ch05.SPECS}


def test_right_answers_pass(capsys):
    for name, answer in RIGHT.items():
        assert line(capsys, ch05.check, name, answer).startswith(f"✔ {name}: all ")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch05.check, "merge_and_update", not_yet)
    assert "not defined" in line(capsys, ch05.check, "stream_decode", None)


def recount_without_clear(ids, pair, new_id, counts):
    """Recounts every pair, deleting and setting them one by one: still a recount."""
    merged = merge(ids, pair, new_id)
    for key in list(counts):
        del counts[key]
    for key, count in get_pair_counts(merged).items():
        counts[key] = count
    return merged


def test_a_recount_earns_nothing_however_it_is_written(capsys):
    text = line(capsys, ch05.check, "merge_and_update", recount_without_clear)
    assert "0/3 points" in text and "update the counts in place" in text


def update_with_lookups(ids, pair, new_id, counts):
    """Right, and written with more lookups than needed (membership tests, pop): still an
    in-place update."""

    def add(key, amount):
        if key in counts:
            counts[key] += amount
        else:
            counts[key] = amount
        if counts[key] <= 0:
            counts.pop(key)

    merged, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            add((ids[i], ids[i + 1]), -1)
            if merged:
                add((merged[-1], ids[i]), -1)
                add((merged[-1], new_id), 1)
            if i + 2 < len(ids):
                add((ids[i + 1], ids[i + 2]), -1)
                add((new_id, ids[i + 2]), 1)
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


def undo_from_the_last(ids, merges, vocab_size):
    """Right: undoes the merges one by one, from the last down to the vocabulary's size."""
    if not 256 <= vocab_size <= 256 + len(merges):
        raise ValueError(vocab_size)
    for token_id in range(255 + len(merges), vocab_size - 1, -1):
        (left, right), _count = merges[token_id - 256]
        ids = [part for i in ids for part in ([left, right] if i == token_id else [i])]
    return list(ids)


def test_right_answers_written_otherwise_earn_full_points_on_every_seed():
    for seed in range(1, 6):
        tasks = {task.name: task for task in ch05.judge_tasks(random.Random(seed))}
        for spec, answer in [
            (ch05.MERGE_AND_UPDATE, update_with_lookups),
            (ch05.SHRINK, undo_from_the_last),
        ]:
            result = spec.result_on(tasks[spec.name], answer)
            assert result.points == spec.points, result.line


def test_an_answer_that_only_uses_small_lists_loses_the_overlaps(capsys):
    def no_overlap_care(ids, pair, new_id, counts):
        merged = ch05.merge_and_update_reference(ids, pair, new_id, counts)
        if len(ids) > 4 and ids[0] == ids[1] == pair[0] == pair[1]:
            counts[(pair[0], pair[0])] = 1  # a slip on runs
        return merged

    text = line(capsys, ch05.check, "merge_and_update", no_overlap_care)
    assert "groups passed: examples, random ids; failed: overlaps" in text
    assert text.endswith("— 2/3 points\n")


def lenient_shrink(ids, merges, vocab_size):
    """Right, except that a too small vocabulary is not an error."""
    return shrink_reference(ids, merges, max(vocab_size, 256))


def test_the_judge_gives_half_right_answers_part_of_the_points():
    half = dict(RIGHT, shrink=lenient_shrink, char_spans=ch05.CHAR_SPANS.mistakes[0].function)
    tasks = ch05.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "shrink": 1,
        "stranded_merges": 2,
        "merge_and_update": 3,
        "stream_decode": 3,
        "char_spans": 0,
    }
    assert "decode all the bytes, not token by token" in grades["char_spans"].message
    assert "groups passed: random texts; failed: examples" in grades["shrink"].message


def test_shrink_is_encoding_with_fewer_merges():
    text = "the theatre café 🦙 aaaa"
    tok = ByteTokenizer.train(text * 3, 290)
    merges = list(tok.merges)
    for size in range(256, 256 + len(merges) + 1, 5):
        assert shrink_reference(tok.encode(text), merges, size) == ByteTokenizer(
            merges[: size - 256]
        ).encode(text)
    assert shrink_reference([258], NESTED, 257) == [98, 256, 256]


def test_merge_gains_sum_to_what_encoding_saves():
    text = "aaa the cat in the hat aaaa"
    tok = ByteTokenizer.train(text, 270)
    gains = merge_gains(text, list(tok.merges))
    assert sum(gains) == len(text.encode()) - len(tok.encode(text))
    assert merge_gains("aaa", [((97, 97), 2)]) == [1]


@given(st.text("abé日 ", max_size=40), st.text("abé日 ", min_size=1, max_size=40))
def test_stranded_merges_save_nothing_yet_their_bytes_are_in_the_text(training, text):
    # Each merge's gain measured another way: the tokenizer's encoder (lowest rank first), with
    # the merges up to it and without it.
    merges = list(ByteTokenizer.train(training * 2, 280).merges)
    vocab, stranded = build_vocab(merges), set(stranded_merges_reference(text, merges))
    lengths = [len(ByteTokenizer(merges[:n]).encode(text)) for n in range(len(merges) + 1)]
    for rank in range(len(merges)):
        saves_nothing = lengths[rank] == lengths[rank + 1]
        assert (rank in stranded) == (saves_nothing and vocab[256 + rank] in text.encode())


@given(st.text(max_size=30))
def test_char_spans_reference_covers_every_byte_in_order(text):
    tok = ByteTokenizer.train("the cat é 日本", 270)
    ids = tok.encode(text)
    spans = char_spans_reference(ids, build_vocab(tok.merges))
    assert len(spans) == len(text)
    assert all(a <= b for a, b in spans) and spans == sorted(spans)


@given(st.lists(st.binary(max_size=5), max_size=12))
def test_stream_decode_reference_spells_the_replace_decoding(tokens):
    """Joined, the stream is the replace-decoding of all bytes minus a truncated tail."""
    vocab = dict(enumerate(tokens))
    pieces = stream_decode_reference(list(vocab), vocab)
    full = b"".join(tokens).decode("utf-8", "replace")
    shown = "".join(pieces)
    assert full.startswith(shown) and full[len(shown) :] in ("", "\ufffd")


@given(st.text())
def test_stream_decode_reference_on_valid_text_is_the_text(text):
    vocab = {i: bytes([i]) for i in range(256)}
    assert "".join(stream_decode_reference(list(text.encode()), vocab)) == text


def test_shrink_draws_hidden_cases_on_every_seed():
    """Seed 935 once drew a text with no merge of merges, and drawing its cases raised."""
    (group,) = [g for g in next(s for s in ch05.SPECS if s.name == "shrink").groups if g.hidden]
    for seed in range(900, 1000):
        assert len(group.hidden(random.Random(seed))) == 4
