"""Chapter 05's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, the in-place rule
of merge_and_update enforced, and the references' own properties."""

import bisect
import random

import pytest
import regex
from check_helpers import line, same_grade_below_full
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


def lenient_shrink(ids, merges, vocab_size):
    """Right, except that a too small vocabulary is not an error."""
    return shrink_reference(ids, merges, max(vocab_size, 256))


def test_the_judge_gives_half_right_answers_part_of_the_points():
    half = dict(RIGHT, shrink=lenient_shrink, char_spans=ch05.CHAR_SPANS.mistakes[0].function)
    tasks = ch05.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "shrink": 2,
        "stranded_merges": 2,
        "merge_and_update": 3,
        "stream_decode": 3,
        "char_spans": 0,
    }
    assert "decode all the bytes, not token by token" in grades["char_spans"].message
    assert "groups passed: shrunk ids; failed: the range of vocab_size" in grades["shrink"].message


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
        assert len(group.hidden(random.Random(seed))) == 2


# --- wrong answers found in review (and issue 28's), each as a learner wrote it ----------------


def shrink_unchecked(ids, merges, vocab_size):
    """Right, but never checks vocab_size: no ValueError."""
    out = []
    for i in ids:
        stack = [i]
        while stack:
            x = stack.pop()
            if x >= vocab_size:
                left, right = merges[x - 256][0]
                stack += [right, left]
            else:
                out.append(x)
    return out


def shrink_full_size_refused(ids, merges, vocab_size):
    """Right, but the range check is off by one at the top: every merge kept is refused."""
    if not 256 <= vocab_size < 256 + len(merges):
        raise ValueError("vocab_size out of range")
    return shrink_unchecked(ids, merges, vocab_size)


def stranded_decoding_ignore(text, merges):
    """Decodes each token with errors="ignore" and looks for it in the text: the a of a token
    that holds a and half of é is found wherever an a is."""
    vocab, ids, out = {i: bytes([i]) for i in range(256)}, list(text.encode()), []
    for rank, ((a, b), _count) in enumerate(merges):
        vocab[256 + rank] = vocab[a] + vocab[b]
        merged = merge(ids, (a, b), 256 + rank)
        if len(merged) == len(ids) and vocab[256 + rank].decode("utf-8", "ignore") in text:
            out.append(rank)
        ids = merged
    return out


def stranded_find_after_start(text, merges):
    """Searches bytes, but takes find(...) > 0 for found: bytes that start the text are missed."""
    data, vocab = text.encode(), {i: bytes([i]) for i in range(256)}
    ids, out = list(data), []
    for rank, ((a, b), _count) in enumerate(merges):
        vocab[256 + rank] = vocab[a] + vocab[b]
        merged = merge(ids, (a, b), 256 + rank)
        if len(merged) == len(ids) and data.find(vocab[256 + rank]) > 0:
            out.append(rank)
        ids = merged
    return out


def update_in_place_of_ids(ids, pair, new_id, counts):
    """Right merged ids and counts, but merges ids in place and returns them."""
    ids[:] = update_with_lookups(list(ids), pair, new_id, counts)
    return ids


def update_keeping_zeros(ids, pair, new_id, counts):
    """Takes away the pairs around the merged places and adds those around the new ids, but
    leaves a pair whose count drops to 0 in counts."""
    merged = merge(ids, pair, new_id)
    places, i = [], 0  # where each merge starts, in ids
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            places.append(i)
            i += 2
        else:
            i += 1
    before = {j for p in places for j in (p - 1, p, p + 1) if 0 <= j < len(ids) - 1}
    for j in sorted(before):
        counts[(ids[j], ids[j + 1])] -= 1
    new = [k for k, token in enumerate(merged) if token == new_id]
    after = {j for k in new for j in (k - 1, k) if 0 <= j < len(merged) - 1}
    for j in sorted(after):
        counts[(merged[j], merged[j + 1])] = counts.get((merged[j], merged[j + 1]), 0) + 1
    return merged


def _owners(ids, vocab):
    return [k for k, i in enumerate(ids) for _ in vocab[i]]


def spans_to_next_byte(ids, vocab):
    """End exclusive: the token of the byte after the character (clamped at the last byte)."""
    owner, text, spans, position = _owners(ids, vocab), b"".join(vocab[i] for i in ids), [], 0
    for ch in text.decode():
        end = min(position + len(ch.encode()), len(owner) - 1)
        spans.append((owner[position], owner[end]))
        position += len(ch.encode())
    return spans


def spans_by_bisect_left(ids, vocab):
    """bisect_left on the tokens' starts, minus one, clamped at 0."""
    starts, at = [], 0
    for i in ids:
        starts.append(at)
        at += len(vocab[i])
    spans, position = [], 0
    for ch in b"".join(vocab[i] for i in ids).decode():
        last = position + len(ch.encode()) - 1
        first_token = max(0, bisect.bisect_left(starts, position) - 1)
        spans.append((first_token, max(0, bisect.bisect_left(starts, last) - 1)))
        position = last + 1
    return spans


def spans_of_graphemes(ids, vocab):
    """Grapheme clusters (\\X) taken for characters."""
    owner, spans, position = _owners(ids, vocab), [], 0
    for cluster in regex.findall(r"\X", b"".join(vocab[i] for i in ids).decode()):
        spans.append((owner[position], owner[position + len(cluster.encode()) - 1]))
        position += len(cluster.encode())
    return spans


def spans_decoded_at_once(ids, vocab):
    """Gives every character decoded at once the token where its pending bytes began: for
    [b'\\xc3', b'\\xa9a'] the a gets (0, 1)."""
    spans, pending, start = [], b"", 0
    for k, i in enumerate(ids):
        if not pending:
            start = k
        pending += vocab[i]
        try:
            text = pending.decode()
        except UnicodeDecodeError:
            continue
        spans += [(start, k)] * len(text)
        pending = b""
    return spans


# (spec, answer, the part it breaks: None when it breaks the central computation, all of it)
WRONG = [
    (ch05.SHRINK, shrink_unchecked, ch05.RANGE),
    (ch05.SHRINK, shrink_full_size_refused, ch05.RANGE),
    (ch05.STRANDED_MERGES, stranded_decoding_ignore, None),
    (ch05.STRANDED_MERGES, stranded_find_after_start, None),
    (ch05.MERGE_AND_UPDATE, update_in_place_of_ids, ch05.UNCHANGED),
    (ch05.MERGE_AND_UPDATE, update_keeping_zeros, None),
    (ch05.CHAR_SPANS, spans_to_next_byte, None),
    (ch05.CHAR_SPANS, spans_by_bisect_left, None),
    (ch05.CHAR_SPANS, spans_of_graphemes, None),
    (ch05.CHAR_SPANS, spans_decoded_at_once, None),
]


@pytest.mark.parametrize("spec, answer, broken", WRONG, ids=[w[1].__name__ for w in WRONG])
def test_a_wrong_answer_gets_the_same_grade_below_full_on_every_seed(spec, answer, broken):
    same_grade_below_full(spec, answer, broken)
