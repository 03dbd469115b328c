"""Chapter 08's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, answers written as a learner writes them, partial credit by group, the
rule that ranks are loaded by name in the kernel, hints that never give the answer, and the
references' own properties."""

from __future__ import annotations

import json
import random

import regex
import tiktoken
from check_helpers import line, reviewer_tests
from hypothesis import given, settings
from hypothesis import strategies as st

from book.checks import ch08
from book.checks.ch08 import (
    ERRORS_PART,
    MALFORMED_PART,
    READ_PART,
    read_gpt2_reference,
    tiktoken_ranks_reference,
)
from book.encodings import get_encoding
from book.grading.calls import judge_in_process
from book.tokenizers.bpe.patterns import CL100K_PATTERN, GPT2_PATTERN
from book.tokenizers.bpe.regex_bpe import RegexTokenizer
from book.tokenizers.formats.gpt2_files import merges_text, vocab_text


def encode_ranks_right(text, ranks, pattern):
    """A right answer, as a learner writes it: tiktoken's algorithm on each chunk's bytes, each
    pair's rank kept, and only the pairs beside a merged piece looked up again."""
    ids = []
    for chunk in regex.findall(pattern, text):
        parts = [bytes([b]) for b in chunk.encode("utf-8")]
        if len(parts) > 1 and b"".join(parts) in ranks:  # the whole chunk is a token
            ids.append(ranks[b"".join(parts)])
            continue
        # `in` then `[]`, two look-ups where get() makes one: still within the budget
        pair_ranks = [ranks[a + b] if a + b in ranks else None for a, b in zip(parts, parts[1:])]  # noqa: SIM401
        while any(rank is not None for rank in pair_ranks):
            i = min((r, i) for i, r in enumerate(pair_ranks) if r is not None)[1]
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
            del pair_ranks[i]
            for j in (i - 1, i):
                if 0 <= j < len(pair_ranks):
                    joined = parts[j] + parts[j + 1]
                    pair_ranks[j] = ranks[joined] if joined in ranks else None  # noqa: SIM401
        ids += [ranks[part] for part in parts]
    return ids


def encode_ranks_split_token(text, ranks, pattern):
    """The chapter's split_token with its rank limit removed and a stop when no pair joins (the
    reviewer's answer): tiktoken's ids, every pair looked up again after each merge."""
    ids = []
    for chunk in regex.findall(pattern, text):
        parts = [bytes([b]) for b in chunk.encode("utf-8")]
        while len(parts) > 1:
            i = min(
                range(len(parts) - 1),
                key=lambda i: ranks.get(parts[i] + parts[i + 1], float("inf")),
            )
            if parts[i] + parts[i + 1] not in ranks:
                break
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        ids += [ranks[p] for p in parts]
    return ids


def test_right_answers_pass(capsys):
    for spec in ch08.SPECS:
        assert line(capsys, ch08.check, spec.name, spec.reference).startswith(f"✔ {spec.name}")
    assert line(capsys, ch08.check, "encode_ranks", encode_ranks_right).startswith("✔")
    assert line(capsys, ch08.check, "tiktoken_ranks", ranks_right).startswith("✔")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch08.check, "encode_ranks", not_yet)
    assert "not defined" in line(capsys, ch08.check, "read_gpt2_files", None)


def test_a_slip_on_errors_costs_only_its_group(capsys):
    def no_errors(vocab_json, merges_txt):
        try:
            return read_gpt2_reference(vocab_json, merges_txt)
        except ValueError:
            return {}, []

    text = line(capsys, ch08.check, "read_gpt2_files", no_errors)
    assert "3/4 points" in text and "failed: malformed files —" in text


def test_encode_ranks_cases_send_names_not_ranks():
    (task,) = [t for t in ch08.judge_tasks(random.Random(3)) if t.name == "encode_ranks"]
    sent = [call.args[1] for call in task.calls]
    assert {"gpt2", "cl100k_base"} <= {a for a in sent if isinstance(a, str)}
    assert all(isinstance(a, str) or len(a) < 1000 for a in sent)
    (grade,) = judge_in_process([task], {"encode_ranks": encode_ranks_right})
    assert grade.points == task.points, grade.message


def test_hints_never_hold_the_answer():
    for spec in ch08.SPECS:
        says = [spec.hint, *(mistake.says for mistake in spec.mistakes)]
        for text in says:
            assert "\\p{" not in text and "(?" not in text and "popitem" not in text, text
            assert "move_to_end" not in text and "min(" not in text, text


def test_the_chapter_cell_with_a_few_lines_changed_earns_nothing(capsys):
    """split_token without its limit gives tiktoken's ids, but looks every pair up again."""
    text = line(capsys, ch08.check, "encode_ranks", encode_ranks_split_token)
    assert "0/4 points" in text and "looked up again" in text


def test_a_tiktoken_encoding_built_from_the_ranks_earns_nothing(capsys):
    """The probe refuses an answer that reaches tiktoken (and copying the ranks would read
    every key, more than the look-ups allowed)."""

    def through_tiktoken(text, ranks, pattern):
        import tiktoken

        table = dict(ranks)
        encoding = tiktoken.Encoding("x", pat_str=pattern, mergeable_ranks=table, special_tokens={})
        return encoding.encode_ordinary(text)

    text = line(capsys, ch08.check, "encode_ranks", through_tiktoken)
    assert "0/4 points" in text and "reaches tiktoken" in text


GPT2_TABLE = dict(get_encoding("gpt2")._mergeable_ranks)


def _gpt2_ids(text, pattern):
    """A notebook helper that asks tiktoken."""
    return get_encoding("gpt2").encode_ordinary(text)


_gpt2_ids.__module__ = "__main__"  # as if defined in the notebook


def test_answers_that_reach_behind_the_ranks_earn_nothing(capsys):
    """The reviewer's holes: the count reset by the answer, tiktoken reached through the table
    behind the view; and the routes around them: a copy of a table held by the notebook, a
    notebook function that asks tiktoken, the view's closure read by name."""

    def reset_count(text, ranks, pattern):
        ids = encode_ranks_split_token(text, ranks, pattern)
        ranks.lookups = 0  # the view has no such attribute: AttributeError
        return ids

    def through_table(text, ranks, pattern):
        return encode_ranks_right(text, ranks._table, pattern)

    def global_copy(text, ranks, pattern):
        return encode_ranks_right(text, GPT2_TABLE, pattern)

    def notebook_helper(text, ranks, pattern):
        return _gpt2_ids(text, pattern)

    def closure(text, ranks, pattern):
        cells = type(ranks).get.__closure__
        table = next(c.cell_contents for c in cells if isinstance(c.cell_contents, dict))
        return encode_ranks_right(text, table, pattern)

    for answer in (reset_count, through_table, global_copy, notebook_helper, closure):
        assert "0/4 points" in line(capsys, ch08.check, "encode_ranks", answer), answer.__name__
    assert "reaches tiktoken" in line(capsys, ch08.check, "encode_ranks", global_copy)
    assert "reaches tiktoken" in line(capsys, ch08.check, "encode_ranks", notebook_helper)
    assert "reaches behind" in line(capsys, ch08.check, "encode_ranks", closure)


def test_the_refusals_agree_in_the_judge():
    """The judge's calls go through the same probe: a refused answer earns 0 there too."""
    (task,) = [t for t in ch08.judge_tasks(random.Random(5)) if t.name == "encode_ranks"]

    def through_tiktoken(text, ranks, pattern):
        return get_encoding("gpt2").encode_ordinary(text)

    (grade,) = judge_in_process([task], {"encode_ranks": through_tiktoken})
    assert grade.points == 0


def test_read_reference_round_trips_the_books_writer():
    tok = RegexTokenizer.train("the cat sat on the mat, naïve 🦙", 280, pattern=GPT2_PATTERN)
    vocab, merges = tok.vocab_and_merges()
    ranks, read = read_gpt2_reference(vocab_text(vocab), merges_text(merges))
    assert read == merges and ranks == {token: i for i, token in vocab.items()}


def test_the_reference_is_tiktoken():
    enc = get_encoding("cl100k_base")
    ranks = enc._mergeable_ranks
    for text in ch08.TEST_SET:
        expected = enc.encode_ordinary(text)
        assert ch08.encode_ranks_reference(text, ranks, CL100K_PATTERN) == expected
        assert encode_ranks_right(text, ranks, CL100K_PATTERN) == expected


def ranks_right(vocab, merges):
    ids = {token: token_id for token_id, token in vocab.items()}
    made = [bytes([b]) for b in range(256)] + [a + b for a, b in merges]
    if any(token not in ids for token in made):
        raise ValueError("missing")
    merged = [ids[a + b] for a, b in merges]
    if merged != sorted(set(merged)):
        raise ValueError("order")
    return {token: ids[token] for token in made}


# --- tiktoken_ranks ------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_ranks_make_a_tiktoken_encoding_that_encodes_like_the_book(rng):
    text = ch08.random_text(rng, 30)
    tok = RegexTokenizer.train(text, 256 + 20, pattern=GPT2_PATTERN)
    vocab, merges = tok.vocab_and_merges()
    encoding = tiktoken.Encoding(
        "t",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=tiktoken_ranks_reference(vocab, merges),
        special_tokens={},
    )
    for sample in (text, ch08.random_text(rng, 10)):
        assert encoding.encode_ordinary(sample) == tok.encode_ordinary(sample)


# --- the reviewer's wrong answers (review of chapters 07-08), as learners wrote them ------------


def _byte_of(printable_end: int = 0xAD) -> dict[str, int]:
    """The learner's table, the printable bytes up to printable_end (¬ is 0xAC, kept)."""
    kept = [*range(ord("!"), ord("~") + 1), *range(0xA1, printable_end), *range(0xAE, 0x100)]
    shifted = [b for b in range(256) if b not in kept]
    return {chr(b): b for b in kept} | {chr(256 + n): b for n, b in enumerate(shifted)}


def _reader(printable_end=0xAD, skip_first=False, any_space=False, strip=False, lenient=False):
    """read_gpt2_files as the reviewer wrote it, with one slip: the range of printable bytes
    ends one early, the first line is always skipped, lines are cut at any whitespace or
    stripped first, or a character below 256 outside the table is read as its code."""
    byte_of = _byte_of(printable_end)

    def read_gpt2_files(vocab_json, merges_txt):
        def token(written):
            try:
                return bytes(byte_of.get(c, ord(c)) if lenient else byte_of[c] for c in written)
            except (KeyError, ValueError) as error:
                raise ValueError(f"character {error} outside the byte table") from None

        ranks = {token(t): i for t, i in json.loads(vocab_json).items()}
        merges = []
        for k, row in enumerate(merges_txt.split("\n")):
            if k == 0 and (skip_first or row.startswith("#version")):
                continue
            row = row.strip() if strip else row
            if row == "":
                continue
            parts = row.split() if any_space else row.split(" ")
            if len(parts) != 2 or not parts[0] or not parts[1]:
                raise ValueError(f"line {k + 1}: not two tokens: {row!r}")
            merges.append((token(parts[0]), token(parts[1])))
        return ranks, merges

    return read_gpt2_files


def _kept_pair_ranks(rightmost=False, left_update=True):
    """The reviewer's efficient encode_ranks: each pair's rank kept, ties broken leftmost (or
    rightmost), the left neighbour's rank refreshed after a merge (or not)."""

    def encode_ranks(text, mergeable_ranks, pattern):
        out, inf = [], float("inf")
        for chunk in regex.findall(pattern, text):
            b = chunk.encode("utf-8")
            parts = [b[i : i + 1] for i in range(len(b))]
            pr = [mergeable_ranks.get(x + y, inf) for x, y in zip(parts, parts[1:])]
            while pr and (best := min(pr)) != inf:
                i = len(pr) - 1 - pr[::-1].index(best) if rightmost else pr.index(best)
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
                del pr[i]
                if i < len(pr):
                    pr[i] = mergeable_ranks.get(parts[i] + parts[i + 1], inf)
                if i > 0 and left_update:
                    pr[i - 1] = mergeable_ranks.get(parts[i - 1] + parts[i], inf)
            out.extend(mergeable_ranks[p] for p in parts)
        return out

    return encode_ranks


def _ranks_answer(n_bytes=256, growth="strict"):
    """The reviewer's tiktoken_ranks: bytes range(n_bytes), growth checked strictly, loosely
    (an equal id passes) or not at all."""

    def tiktoken_ranks(vocab, merges):
        inv = {tok: i for i, tok in vocab.items()}
        ranks = {}
        for b in range(n_bytes):
            if bytes([b]) not in inv:
                raise ValueError(f"byte {b} missing from vocab")
            ranks[bytes([b])] = inv[bytes([b])]
        last = -1
        for a, c in merges:
            if a + c not in inv:
                raise ValueError(f"merge token {a + c!r} not in vocab")
            if (growth == "strict" and inv[a + c] <= last) or (
                growth == "loose" and inv[a + c] < last
            ):
                raise ValueError("merge ids do not grow in merge order")
            last = ranks[a + c] = inv[a + c]
        return ranks

    return tiktoken_ranks


# (task, answer, the part it loses: None for every part, words of its hint).
READ, ENCODE, RANKS = (spec.name for spec in ch08.SPECS)
WRONG = {
    "1a_range_end_off_by_one": (READ, _reader(printable_end=0xAC), READ_PART, ""),
    "1b_always_skip_first_line": (READ, _reader(skip_first=True), READ_PART, ""),
    "1c_split_any_whitespace": (READ, _reader(any_space=True), MALFORMED_PART, ""),
    "1d_no_error_outside_table": (READ, _reader(lenient=True), MALFORMED_PART, "below 256"),
    "1e_strip_lines": (READ, _reader(strip=True), MALFORMED_PART, ""),
    "2a_rightmost_tie": (ENCODE, _kept_pair_ranks(rightmost=True), None, "the leftmost first"),
    "2b_no_left_update": (ENCODE, _kept_pair_ranks(left_update=False), None, "piece's left"),
    "2c_rescan_every_pair": (ENCODE, encode_ranks_split_token, None, "looked up again"),
    "3a_invert_whole_vocab": (
        RANKS,
        lambda vocab, merges: {t: i for i, t in vocab.items()},
        None,
        "",
    ),
    "3b_no_growth_check": (RANKS, _ranks_answer(growth="none"), ERRORS_PART, ""),
    "3c_bytes_range_255": (RANKS, _ranks_answer(n_bytes=255), None, ""),
    "3d_nonstrict_growth": (RANKS, _ranks_answer(growth="loose"), ERRORS_PART, "a merge repeated"),
}
SPEC = {spec.name: spec for spec in ch08.SPECS}


test_reviewers_wrong_answers = reviewer_tests(SPEC, WRONG)
