"""Chapter 12's specs beyond the generic test (tests/test_check_specs.py): wrong answers written
the way students slip (a boundary off by one, an error not raised, an empty input) lose exactly
the part they break, the same on seeds 1 and 2 and through the check cell and the judge; and the
references' own properties."""

import math
import random
import unicodedata

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
        {"dropout 0 and 1, a draw equal to dropout, no ids, the caller's list"},
    ),
    ("dropout_encode", dropout_unchecked, {"errors"}),
    (
        "dropout_encode",
        dropout_zero_shortcut,
        {"dropout 0 and 1, a draw equal to dropout, no ids, the caller's list"},
    ),
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


# --- the review's wrong answers, on seeds 1-20 ----------------------------------------------------
# A fresh review of chapter 12 answered each task the ways a student slips (w1a: task 1's first
# such answer). Each must earn one grade on every seed, below full points, failing exactly the
# parts it breaks; the answers the statements allow earn full points.

RANKED = "rank order, one draw per candidate"
EDGES = "dropout 0 and 1, a draw equal to dropout, no ids, the caller's list"
RULES = "four words and no ': '"
TIES = "ties, overlaps, no pairs"
IN_BITS = "the losses in bits over the bytes"
CERTAIN = "certain tokens, impossible tokens, no losses"
MONOTONIC = "the monotonic rule"
EQUAL = "no bytes, one byte, entropies equal to the threshold"
ERRORS = "errors"
LN2 = math.log(2)  # nats in a bit
EVERY_PART = None  # a misconception of the central computation: every part lost


def _probability(dropout) -> bool:
    """An int or a float from 0 to 1 (NaN is outside the range)."""
    return not isinstance(dropout, bool) and isinstance(dropout, int | float) and 0 <= dropout <= 1


def _by_rank(ids, ranks):
    """The candidates, (rank, position): the lowest rank first, the leftmost of equal ranks."""
    return sorted((ranks[pair], i) for i, pair in enumerate(zip(ids, ids[1:])) if pair in ranks)


def _encode(ids, merges, dropout, rng, *, candidates=_by_rank, keep=float.__ge__, slip=""):
    """The task's encoding, or it with another list of candidates, another test of a draw, or
    one slip: the kept pair merged at every position ("everywhere"), a merge once skipped never
    tried again ("forget"), the caller's list edited ("in place")."""
    ranks = {pair: rank for rank, (pair, _) in enumerate(merges)}
    ids, skipped = (ids if slip == "in place" else list(ids)), set()
    while True:
        kept = None
        for candidate in [c for c in candidates(ids, ranks) if c[0] not in skipped]:
            if keep(rng.random(), float(dropout)):
                kept = candidate
                break
            if slip == "forget":
                skipped.add(candidate[0])
        if kept is None:
            return ids
        rank, i = kept
        if slip == "everywhere":
            pair, merged = tuple(ids[i : i + 2]), []
            for token in ids:
                if merged and (merged[-1], token) == pair:
                    merged[-1] = 256 + rank
                else:
                    merged.append(token)
            ids[:] = merged
        else:
            ids[i : i + 2] = [256 + rank]


def _dropout(check=_probability, short_first=False, **how):
    """dropout_encode: check(dropout) or ValueError (after the fewer than two ids, short_first),
    then _encode with how's changes."""

    def dropout_encode(ids, merges, dropout, rng):
        if short_first and len(ids) < 2:
            return list(ids)
        if not check(dropout):
            raise ValueError(dropout)
        return _encode(ids, merges, dropout, rng, **how)

    return dropout_encode


def _one_per_pair(ids, ranks):
    """One candidate for each distinct pair: its leftmost position."""
    firsts: dict = {}
    for rank, i in _by_rank(ids, ranks):
        firsts.setdefault(rank, i)
    return sorted(firsts.items())


def _draw_all_then_pick(ids, merges, dropout, rng):
    """Draws for every candidate first, then merges the best one kept."""
    if not _probability(dropout):
        raise ValueError(dropout)
    ranks, ids = {pair: rank for rank, (pair, _) in enumerate(merges)}, list(ids)
    while True:
        kept = [c for c in _by_rank(ids, ranks) if rng.random() >= dropout]
        if not kept:
            return ids
        rank, i = kept[0]
        ids[i : i + 2] = [256 + rank]


def _superword(
    allowed=allowed_superword, parts=False, pairs=lambda c: zip(c, c[1:]), order=list, first=False
):
    """next_superword with another rule for a token (allowed(joined bytes), or allowed(left,
    right) when it reads the parts), another list of a chunk's pairs, ties decided by
    order(pairs), or the rule applied only to the most frequent pair (first)."""

    def ok(vocab, pair):
        left, right = vocab[pair[0]], vocab[pair[1]]
        return allowed(left, right) if parts else allowed(left + right)

    def next_superword(chunks, vocab):
        counts: dict = {}
        for chunk, n in chunks.items():
            for pair in pairs(chunk):
                counts[pair] = counts.get(pair, 0) + n
        if first:
            best = max(counts, key=counts.__getitem__, default=None)
            return None if best is None or not ok(vocab, best) else (best, counts[best])
        best = max((p for p in order(counts) if ok(vocab, p)), key=counts.__getitem__, default=None)
        return None if best is None else (best, counts[best])

    return next_superword


def _words(token: bytes) -> int:
    return len([word for word in token.split(b" ") if word])


def _once_per_run(chunk):
    """Overlapping pairs counted once: a a a holds (a, a) once."""
    end = -1
    for i, pair in enumerate(zip(chunk, chunk[1:])):
        if pair[0] == pair[1] and end == i:
            continue
        end = i + 1
        yield pair


def _bits(
    size=lambda text: len(text.encode("utf-8")),
    loss_ok=lambda loss: loss >= 0,
    nats=LN2,
    empty_text_first=True,
):
    """bits_per_byte_from_losses with another size of the text, another check of a loss,
    another number of nats in a bit, or no losses answered before the text is checked."""

    def bits_per_byte_from_losses(losses, text):
        if not empty_text_first and not losses:
            return 0.0
        if size(text) == 0:
            raise ValueError("an empty text")
        if not all(loss_ok(loss) for loss in losses):
            raise ValueError(losses)
        return sum(losses) / nats / size(text)

    return bits_per_byte_from_losses


def _stops_at_inf(losses, text):
    """Returns inf at the first inf loss, before the losses after it are checked."""
    if math.inf in losses:
        _bits()(losses[: losses.index(math.inf)], text)  # the checks of the text and losses before
        return math.inf
    return _bits()(losses, text)


def _mean_times_tokens(losses, text):
    """The mean loss per token in bits times the tokens per byte: the same sum over the bytes."""
    size = len(text.encode("utf-8"))
    if size == 0 or not all(loss >= 0 for loss in losses):
        raise ValueError(losses)
    return sum(losses) / len(losses) / math.log(2) * (len(losses) / size) if losses else 0.0


def _int_zero(losses, text):
    """No losses give the int 0."""
    return 0 if text and not losses else _bits()(losses, text)


def _number(threshold) -> bool:
    return (
        not isinstance(threshold, bool)
        and isinstance(threshold, int | float)
        and not math.isnan(threshold)
    )


def _patches(check=_number, no_bytes_first=False, at=(False, False), rise=None, start=None):
    """patch_lengths with another check of the threshold (made after the no bytes,
    no_bytes_first), starts at equal values (at: global, monotonic), another monotonic rise
    rise(e, t, starts), or another rule for byte t (start(e, t, threshold, monotonic))."""

    def patch_lengths(entropies, threshold, monotonic=False):
        if no_bytes_first and not entropies:
            return []
        if not check(threshold):
            raise ValueError(threshold)
        if not entropies:
            return []
        starts = [0]
        for t in range(1, len(entropies)):
            if start is not None:
                if start(entropies, t, threshold, monotonic):
                    starts.append(t)
                continue
            if monotonic:
                value = (rise or (lambda e, t, s: e[t] - e[t - 1]))(entropies, t, starts)
                equal = at[1]
            else:
                value, equal = entropies[t], at[0]
            if value > threshold or (equal and value == threshold):
                starts.append(t)
        cuts = [*starts, len(entropies)]
        return [b - a for a, b in zip(cuts, cuts[1:])]

    return patch_lengths


def _isnan_first(entropies, threshold, monotonic=False):
    """math.isnan on a string raises TypeError, not ValueError."""
    if math.isnan(threshold):
        raise ValueError(threshold)
    return _patches(check=lambda threshold: True)(entropies, threshold, monotonic)


def _byte0_not_forced(entropies, threshold, monotonic=False):
    """Patches start only above the threshold; the first start is moved to byte 0."""
    if not _number(threshold):
        raise ValueError(threshold)
    starts = [
        t
        for t in range(len(entropies))
        if (entropies[t] - entropies[t - 1] if monotonic and t else entropies[t]) > threshold
    ]
    if not starts:
        return [len(entropies)] if entropies else []
    cuts = [0, *starts[1:], len(entropies)]
    return [b - a for a, b in zip(cuts, cuts[1:])]


def _rightmost_first(ids, ranks):
    return sorted(_by_rank(ids, ranks), key=lambda candidate: (candidate[0], -candidate[1]))


def _words_below(limit):
    return lambda token: _words(token) < limit and b": " not in token


# (review's name, task, answer, the parts it fails: a set, EVERY_PART, or set() for an answer
# the statement allows)
REVIEW = [
    ("w1a_merge_everywhere", "dropout_encode", _dropout(slip="everywhere"), {RANKED, EDGES}),
    (
        "w1b_draw_once_per_pair",
        "dropout_encode",
        _dropout(candidates=_one_per_pair),
        {RANKED, EDGES},
    ),
    ("w1c_draw_all_then_pick", "dropout_encode", _draw_all_then_pick, EVERY_PART),
    ("w1d_equal_draw_skips", "dropout_encode", _dropout(keep=float.__gt__), {EDGES}),
    ("w1e_nan_passes", "dropout_encode", _dropout(check=lambda p: not (p < 0 or p > 1)), {ERRORS}),
    ("w1f_in_place", "dropout_encode", _dropout(slip="in place"), {EDGES}),
    ("w1g_checks_two_ids_only", "dropout_encode", _dropout(short_first=True), {ERRORS}),
    ("w1h_rightmost_first", "dropout_encode", _dropout(candidates=_rightmost_first), {RANKED}),
    (
        "w1i_float_only",
        "dropout_encode",
        _dropout(check=lambda p: isinstance(p, float) and 0 <= p <= 1),
        {ERRORS},
    ),
    ("w1j_skipped_for_good", "dropout_encode", _dropout(slip="forget"), {RANKED}),
    (
        "w1k_last_position_missed",
        "dropout_encode",
        _dropout(candidates=lambda ids, ranks: _by_rank(ids[:-1], ranks)),
        EVERY_PART,
    ),
    (
        "w2a_any_whitespace",
        "next_superword",
        _superword(lambda t: len(t.split()) <= 4 and b": " not in t),
        {RULES},
    ),
    (
        "w2b_spaces_plus_one",
        "next_superword",
        _superword(lambda t: t.count(b" ") < 4 and b": " not in t),
        {RULES},
    ),
    ("w2c_fewer_than_four", "next_superword", _superword(_words_below(4)), {RULES}),
    (
        "w2d_colon_in_parts",
        "next_superword",
        _superword(lambda a, b: _words(a + b) <= 4 and b": " not in a and b": " not in b, True),
        {RULES},
    ),
    (
        "w2e_any_colon",
        "next_superword",
        _superword(lambda t: _words(t) <= 4 and b":" not in t),
        {RULES},
    ),
    (
        "w2f_decoded_split",
        "next_superword",
        _superword(lambda t: len(t.decode("utf-8", "replace").split()) <= 4 and b": " not in t),
        {RULES},
    ),
    (
        "w2g_words_of_parts",
        "next_superword",
        _superword(lambda a, b: _words(a) + _words(b) <= 4 and b": " not in a + b, True),
        {RULES},
    ),
    ("w2h_rule_after_max", "next_superword", _superword(first=True), {RULES}),
    ("w2i_overlaps_once", "next_superword", _superword(pairs=_once_per_run), {TIES}),
    ("w2j_ties_smallest_pair", "next_superword", _superword(order=sorted), {TIES}),
    ("w2k_ties_set_order", "next_superword", _superword(order=set), {TIES}),
    (
        "w2l_last_pair_missed",
        "next_superword",
        _superword(pairs=lambda c: zip(c, c[1:-1])),
        EVERY_PART,
    ),
    ("w3a_characters", "bits_per_byte_from_losses", _bits(size=len), EVERY_PART),
    ("w3b_nan_passes", "bits_per_byte_from_losses", _bits(loss_ok=lambda x: not x < 0), {ERRORS}),
    (
        "w3c_inf_refused",
        "bits_per_byte_from_losses",
        _bits(loss_ok=lambda x: 0 <= x < math.inf),
        {CERTAIN},
    ),
    ("w3d_no_losses_first", "bits_per_byte_from_losses", _bits(empty_text_first=False), {ERRORS}),
    ("w3e_times_ln2", "bits_per_byte_from_losses", _bits(nats=1 / math.log(2)), EVERY_PART),
    ("w3f_mean_times_tokens", "bits_per_byte_from_losses", _mean_times_tokens, set()),
    ("w3g_stops_at_inf", "bits_per_byte_from_losses", _stops_at_inf, {ERRORS}),
    (
        "w3h_nfc_first",
        "bits_per_byte_from_losses",
        _bits(size=lambda text: len(unicodedata.normalize("NFC", text).encode("utf-8"))),
        {IN_BITS},
    ),
    ("w3i_int_zero", "bits_per_byte_from_losses", _int_zero, {CERTAIN}),
    ("w4a_at_or_above", "patch_lengths", _patches(at=(True, True)), {MONOTONIC, EQUAL}),
    (
        "w4b_rise_of_the_next",
        "patch_lengths",
        _patches(rise=lambda e, t, s: e[t + 1] - e[t] if t + 1 < len(e) else -math.inf),
        {MONOTONIC},
    ),
    (
        "w4c_rise_or_above",
        "patch_lengths",
        _patches(start=lambda e, t, th, m: e[t] > th or (m and e[t] - e[t - 1] > th)),
        {MONOTONIC},
    ),
    (
        "w4d_any_change",
        "patch_lengths",
        _patches(rise=lambda e, t, s: abs(e[t] - e[t - 1])),
        {MONOTONIC},
    ),
    ("w4e_byte0_not_forced", "patch_lengths", _byte0_not_forced, EVERY_PART),
    ("w4f_isnan_first", "patch_lengths", _isnan_first, {ERRORS}),
    ("w4g_no_bytes_first", "patch_lengths", _patches(no_bytes_first=True), {ERRORS}),
    (
        "w4h_bool_threshold",
        "patch_lengths",
        _patches(check=lambda th: isinstance(th, int | float) and not math.isnan(th)),
        set(),
    ),
    (
        "w4i_float_only",
        "patch_lengths",
        _patches(check=lambda th: isinstance(th, float) and not math.isnan(th)),
        {ERRORS},
    ),
    (
        "w4j_rise_from_patch_start",
        "patch_lengths",
        _patches(rise=lambda e, t, s: e[t] - e[s[-1]]),
        {MONOTONIC},
    ),
    ("w4k_at_or_above_global", "patch_lengths", _patches(at=(True, False)), {EQUAL}),
    ("w4l_at_or_above_monotonic", "patch_lengths", _patches(at=(False, True)), {MONOTONIC}),
]


# Each seed's task, kept alive: the memo of outcomes is keyed by the calls' identities.
TASKS = {
    name: {seed: spec.task(random.Random(seed)) for seed in range(1, 21)}
    for name, spec in SPECS.items()
}


@pytest.mark.parametrize(
    "name, answer, broken", [r[1:] for r in REVIEW], ids=[r[0] for r in REVIEW]
)
def test_the_reviews_answers_earn_one_grade_losing_the_parts_they_break(name, answer, broken):
    spec = SPECS[name]
    broken = {group.name for group in spec.groups} if broken is EVERY_PART else broken
    expected = spec.points - sum(group.points for group in spec.groups if group.name in broken)
    memo: dict = {}
    for seed, task in TASKS[name].items():
        result = spec.result_on(task, answer, memo)
        assert result.points == expected, (seed, result.line)
        failed = result.line.split(" — ")[0].split("failed:")[1] if broken else ""
        assert {group.name for group in spec.groups if group.name in failed} == broken, result.line
    (grade,) = judge_in_process([TASKS[name][1]], {name: answer})
    assert grade.points == expected, grade.message


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
