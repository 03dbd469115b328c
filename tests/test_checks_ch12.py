"""Chapter 12's specs beyond the generic test (tests/test_check_specs.py): wrong answers written
the way students slip (a boundary off by one, an error not raised, an empty input) lose exactly
the part they break, the same on seeds 1 and 2 and through the check cell and the judge; and the
references' own properties."""

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book.checks import ch12
from book.grading.calls import judge_in_process
from book.tokenizers.bpe.byte_bpe import ByteTokenizer
from book.tokenizers.bpe.superbpe import allowed_superword

SPECS = {spec.name: spec for spec in ch12.SPECS}


# --- students' wrong answers, each breaking one part ----------------------------------------------


def dropout_skips_on_equal(ids, merges, dropout, rng):
    """Skips a candidate whose draw equals dropout (<= where < is meant)."""
    if not 0 <= dropout <= 1:
        raise ValueError(dropout)
    ranks, ids = {pair: rank for rank, (pair, _) in enumerate(merges)}, list(ids)
    while True:
        candidates = sorted((ranks[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in ranks)
        kept = next(((r, i) for r, i in candidates if rng.random() > dropout), None)
        if kept is None:
            return ids
        ids[kept[1] : kept[1] + 2] = [256 + kept[0]]


def dropout_unchecked(ids, merges, dropout, rng):
    """Never raises: a dropout of 1.5 acts as 1, -0.1 as 0."""
    return ch12.dropout_encode_reference(ids, merges, min(max(dropout, 0.0), 1.0), rng)


def dropout_zero_shortcut(ids, merges, dropout, rng):
    """Plain BPE for dropout 0, without drawing."""
    if dropout == 0:
        return ch12.dropout_encode_reference(ids, merges, 0.0, random.Random(0))
    return ch12.dropout_encode_reference(ids, merges, dropout, rng)


def superword_any_whitespace(chunks, vocab):
    """Counts words split at any whitespace, a newline or a tab too."""
    counts: dict = {}
    for chunk, count in chunks.items():
        for pair in zip(chunk, chunk[1:]):
            counts[pair] = counts.get(pair, 0) + count
    allowed = {
        pair: n
        for pair, n in counts.items()
        if len((vocab[pair[0]] + vocab[pair[1]]).split()) <= 4
        and b": " not in vocab[pair[0]] + vocab[pair[1]]
    }
    best = max(allowed, key=allowed.__getitem__, default=None)
    return None if best is None else (best, allowed[best])


def superword_no_rules(chunks, vocab):
    """Refuses no token: stage two's two rules forgotten."""
    return ch12.next_superword_reference(chunks, dict.fromkeys(vocab, b"x"))


def superword_ties_by_sort(chunks, vocab):
    """Of equal counts, the smallest pair (iterating sorted pairs), not the first to occur."""
    counts: dict = {}
    for chunk, count in chunks.items():
        for pair in zip(chunk, chunk[1:]):
            counts[pair] = counts.get(pair, 0) + count
    best = None
    for pair in sorted(counts):
        token = vocab[pair[0]] + vocab[pair[1]]
        allowed = len([w for w in token.split(b" ") if w]) <= 4 and b": " not in token
        if allowed and (best is None or counts[pair] > best[1]):
            best = (pair, counts[pair])
    return best


def losses_no_loss_check(losses, text):
    """Checks the text but not the losses: a negative loss or NaN passes."""
    if not text:
        raise ValueError(text)
    return sum(losses) / math.log(2) / len(text.encode("utf-8"))


def losses_divide_by_zero(losses, text):
    """No check of the text: an empty one divides by zero."""
    if any(not loss >= 0 for loss in losses):
        raise ValueError(losses)
    return sum(losses) / math.log(2) / len(text.encode("utf-8"))


def losses_none_is_an_error(losses, text):
    """Refuses an empty list of losses."""
    if not losses:
        raise ValueError(losses)
    return ch12.bits_per_byte_reference(losses, text)


def patches_at_or_above(entropies, threshold, monotonic=False):
    """Starts a patch at an entropy (or rise) equal to the threshold too."""
    lower = math.nextafter(threshold, -math.inf) if isinstance(threshold, float) else threshold
    return ch12.patch_lengths_reference(entropies, lower, monotonic)


def patches_monotonic_ignored(entropies, threshold, monotonic=False):
    """The global threshold always."""
    return ch12.patch_lengths_reference(entropies, threshold)


def patches_nan_accepted(entropies, threshold, monotonic=False):
    """No check of the threshold: NaN compares false, so one patch."""
    if isinstance(threshold, float) and math.isnan(threshold):
        return [len(entropies)] if entropies else []
    return ch12.patch_lengths_reference(entropies, threshold, monotonic)


def patches_empty_is_one(entropies, threshold, monotonic=False):
    """No bytes give one empty patch."""
    return ch12.patch_lengths_reference(entropies, threshold, monotonic) or [0]


# (task, wrong answer, the parts it fails)
WRONG = [
    (
        "dropout_encode",
        dropout_skips_on_equal,
        {"dropout 0 and 1, a draw equal to dropout, no ids"},
    ),
    ("dropout_encode", dropout_unchecked, {"errors"}),
    ("dropout_encode", dropout_zero_shortcut, {"dropout 0 and 1, a draw equal to dropout, no ids"}),
    ("next_superword", superword_any_whitespace, {"four words and no ': '"}),
    ("next_superword", superword_no_rules, {"four words and no ': '"}),
    ("next_superword", superword_ties_by_sort, {"ties, overlaps, no pairs"}),
    ("bits_per_byte_from_losses", losses_no_loss_check, {"errors"}),
    ("bits_per_byte_from_losses", losses_divide_by_zero, {"errors"}),
    (
        "bits_per_byte_from_losses",
        losses_none_is_an_error,
        {"certain tokens, impossible tokens, no losses"},
    ),
    (
        "patch_lengths",
        patches_at_or_above,
        {"the monotonic rule", "no bytes, one byte, entropies equal to the threshold"},
    ),
    ("patch_lengths", patches_monotonic_ignored, {"the monotonic rule"}),
    ("patch_lengths", patches_nan_accepted, {"errors"}),
    (
        "patch_lengths",
        patches_empty_is_one,
        {"no bytes, one byte, entropies equal to the threshold"},
    ),
]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name, answer, broken", WRONG, ids=[w[1].__name__ for w in WRONG])
def test_a_slip_loses_only_the_part_it_breaks(name, answer, broken, seed):
    spec = SPECS[name]
    lost = sum(group.points for group in spec.groups if group.name in broken)
    task = spec.task(random.Random(seed))
    result = spec.result_on(task, answer)
    assert result.points == spec.points - lost, result.line
    for group in broken:
        assert group in result.line.split(" — ")[0].split("failed:")[1], result.line
    (grade,) = judge_in_process([task], {name: answer})
    assert grade.points == spec.points - lost, grade.message


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    ch12.check("patch_lengths", not_yet)
    ch12.check("next_superword", None)
    out = capsys.readouterr().out
    assert "not attempted" in out and "not defined" in out


# --- the references' own properties ---------------------------------------------------------------

ENGLISH = ByteTokenizer.train("the cat sat on the mat with the hat " * 4, 280)
WORDS = st.text(alphabet="the catsonmwié日", min_size=0, max_size=12)


@given(WORDS, st.integers(0, 2**16))
def test_dropout_0_is_bpe_and_every_dropout_spells_the_word(word, seed):
    ids, merges = list(word.encode()), list(ENGLISH.merges)
    plain = ch12.dropout_encode_reference(ids, merges, 0.0, random.Random(seed))
    assert plain == ENGLISH.encode(word)
    for dropout in (0.3, 1.0):
        dropped = ch12.dropout_encode_reference(ids, merges, dropout, random.Random(seed))
        assert ENGLISH.decode(dropped) == word
    assert ch12.dropout_encode_reference(ids, merges, 1.0, random.Random(seed)) == ids


CHUNKS = st.dictionaries(
    st.tuples(*[st.sampled_from(range(256, 262))] * 3), st.integers(1, 5), max_size=5
)


@given(CHUNKS)
def test_next_superword_is_the_most_frequent_allowed_pair_first_of_equals(chunks):
    vocab = ch12._vocab(b"the", b" cat", b": ", b" ", b"a b c", b"x")
    counts: dict = {}
    for chunk, count in chunks.items():
        for pair in zip(chunk, chunk[1:]):
            counts[pair] = counts.get(pair, 0) + count
    allowed = [p for p in counts if allowed_superword(vocab[p[0]] + vocab[p[1]])]
    expected = max(allowed, key=counts.__getitem__, default=None)
    got = ch12.next_superword_reference(chunks, vocab)
    assert got == (None if expected is None else (expected, counts[expected]))


@given(st.lists(st.floats(0, 8), max_size=20), st.floats(-1, 9), st.booleans())
def test_patch_lengths_cover_the_bytes(entropies, threshold, monotonic):
    lengths = ch12.patch_lengths_reference(entropies, threshold, monotonic)
    assert sum(lengths) == len(entropies) and all(n > 0 for n in lengths)


def test_bits_per_byte_is_the_losses_in_bits_over_the_bytes():
    assert ch12.bits_per_byte_reference([math.log(2)] * 3, "é!") == 1.0
    assert ch12.bits_per_byte_reference([1.0, math.inf], "ab") == math.inf
