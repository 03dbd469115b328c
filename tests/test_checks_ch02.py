"""Chapter 02's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, the rule that
encode_nearest leaves its vocabulary alone, hints that never give the answer, right answers
written another way (full points on every seed; no target a rounding error from a ratio), and
the references' own properties (checked against independent implementations)."""

import random
import unicodedata

import pytest
from check_helpers import line
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.checks import ch02
from book.grading.calls import judge_in_process

RIGHT = {spec.name: spec.reference for spec in ch02.SPECS}


def test_right_answers_pass(capsys):
    for name, answer in RIGHT.items():
        assert line(capsys, ch02.check, name, answer).startswith(f"✔ {name}: all ")


def test_unanswered_and_undefined_say_so(capsys):
    def not_yet(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch02.check, "encode_nearest", not_yet)
    assert "not defined" in line(capsys, ch02.check, "fallback_budget", None)


def test_an_encoder_that_grows_its_vocabulary_earns_nothing(capsys):
    def grows(text, vocab):
        result = ch02.encode_nearest_reference(text, vocab)
        vocab.append("\x00")
        return result

    assert "0/3 points" in line(capsys, ch02.check, "encode_nearest", grows)


def test_a_slip_that_is_no_known_mistake_costs_only_its_group():
    def off_by_one(ids, vocab):  # refuses the byte 0xFF, the last byte id
        if len(vocab) + 255 in ids:
            raise ValueError("id out of range")
        return ch02.decode_report_reference(ids, vocab)

    result = ch02.DECODE_REPORT.result(off_by_one, random.Random(5))  # its draws hold 0xFF
    assert "groups passed: the examples; failed: damaged ids" in result.line
    assert result.line.endswith("— 2/3 points")


def test_a_missing_value_error_costs_one_group():
    def no_error(text, max_size=None):  # a negative max_size slices from the end
        return ch02.build_vocab_reference(text)[:max_size]

    def none_for_empty(text, ranked, target):
        return ch02.fallback_budget_reference(text, ranked, target) if text else None

    assert ch02.BUILD_VOCAB.result(no_error).line.endswith("— 1/2 points")
    assert ch02.FALLBACK_BUDGET.result(none_for_empty).line.endswith("— 2/3 points")


def test_hints_never_give_the_answer():
    for spec in ch02.SPECS:
        for text in [spec.hint, *(mistake.says for mistake in spec.mistakes)]:
            assert "NFKD" not in text and "sorted(" not in text and "lambda" not in text, text
            assert "key=" not in text and ".decode(" not in text, text


def test_the_judge_gives_half_right_answers_part_of_the_points():
    half = dict(
        RIGHT,
        build_vocab=ch02.BUILD_VOCAB.mistakes[0].function,
        decode_report=ch02.DECODE_REPORT.mistakes[0].function,
    )
    tasks = ch02.judge_tasks(random.Random(4))
    grades = {grade.task: grade for grade in judge_in_process(tasks, half)}
    assert {name: grade.points for name, grade in grades.items()} == {
        "build_vocab": 0,
        "encode_nearest": 3,
        "decode_report": 0,
        "fallback_budget": 3,
    }
    assert "not in the order they first occur" in grades["build_vocab"].message


def decode_report_right(ids, vocab):
    """Decodes each run of byte ids on its own: a character's bytes never span a known one."""
    text, lost, run = "", [], []

    def flush():
        nonlocal text
        data = bytes(ids[i] - len(vocab) for i in run)
        start = 0
        while start < len(data):
            try:
                text += data[start:].decode()
                break
            except UnicodeDecodeError as error:
                text += data[start : start + error.start].decode() + "\ufffd"
                lost.extend(run[start + error.start : start + error.end])
                start += error.end
        run.clear()

    for index, token_id in enumerate(ids):
        if token_id < len(vocab):
            flush()
            text += vocab[token_id]
        else:
            run.append(index)
    flush()
    return text, lost


@given(st.lists(st.integers(0, 4 + 255)), st.text(max_size=4))
def test_decode_report_reference_is_replace_decoding_with_the_lost_ids(ids, extra):
    vocab = list(dict.fromkeys("abé" + extra))
    ids = [i % (len(vocab) + 256) for i in ids]
    text, lost = ch02.decode_report_reference(ids, vocab)
    joined = b"".join(vocab[i].encode() if i < len(vocab) else bytes([i - len(vocab)]) for i in ids)
    assert text == joined.decode("utf-8", errors="replace")
    assert (text, lost) == decode_report_right(ids, vocab)
    intact = [i for k, i in enumerate(ids) if k not in lost]
    assert ch02.decode_report_reference(intact, vocab)[1] == []  # what is left is valid


@given(st.text())
def test_byte_fallback_of_any_text_decodes_with_nothing_lost(text):
    vocab = ch02.build_vocab_reference("the cat sat on the mat")
    ids = ch02._fallback_ids(text, vocab)
    assert ch02.decode_report_reference(ids, vocab) == (text, [])


@given(st.text(min_size=1, max_size=30), st.floats(1.0, 4.0))
def test_the_budget_is_the_first_k_that_reaches_the_target(text, target):
    ranked = ch02.build_vocab_reference(text)
    k = ch02.fallback_budget_reference(text, ranked, target)

    def per_token(size):
        known = set(ranked[:size])
        return len(text.encode()) / sum(1 if c in known else len(c.encode()) for c in text)

    if k is None:
        assert per_token(len(ranked)) < target
    else:
        assert per_token(k) >= target and (k == 0 or per_token(k - 1) < target)


def test_the_nearest_reference_folds_by_compatibility_and_drops_marks():
    vocab = ["f", "i", "e", "F", "1", "⁄", "2"]
    ids, changed = ch02.encode_nearest_reference("ﬁé½Ｆ日", vocab)
    assert [vocab[i] if i < len(vocab) else None for i in ids] == [*"fie1⁄2F", None]
    assert changed == [(0, "ﬁ"), (1, "é"), (2, "½"), (3, "Ｆ"), (4, "日")]
    assert unicodedata.normalize("NFD", "ﬁ") == "ﬁ"  # why the NFD mistake differs


def test_chinese_needs_hundreds_of_the_passages_characters():
    """What the solution prints: the Chinese passage reaches 2.0 bytes per token only with a
    vocabulary of hundreds of characters, and the plays' ASCII never gets past 1.0."""
    passages = corpora.parallel()
    ranked = ch02.build_vocab_reference("".join(passages.values()))
    assert 300 < ch02.fallback_budget_reference(passages["Chinese"], ranked, 2.0) < len(ranked)
    plays = ch02._plays_vocab()
    assert all(ch02.fallback_budget_reference(p, plays, 1.01) is None for p in passages.values())


def budget_by_products(text, ranked, target):
    """Right, but compares bytes with target * tokens instead of dividing."""
    if not text:
        raise ValueError("empty")
    n_bytes = len(text.encode())
    for k in range(len(ranked) + 1):
        known = set(ranked[:k])
        if n_bytes >= target * sum(1 if c in known else len(c.encode()) for c in text):
            return k
    return None


def lost_by_scanning(ids, vocab):
    """Right, but finds the lost bytes by trying 1 to 4 bytes at each position."""
    text = ch02.decode_report_reference(ids, vocab)[0]
    data, owner = ch02._bytes_of(ids, vocab)
    lost, at = set(), 0
    while at < len(data):
        for size in (1, 2, 3, 4):
            try:
                data[at : at + size].decode()
            except UnicodeDecodeError:
                continue
            at += size
            break
        else:
            lost.add(owner[at])
            at += 1
    return text, sorted(lost)


def vocab_by_stable_sorts(text, max_size=None):
    """Right, by two stable sorts: code point, then count."""
    if max_size is not None and max_size < 0:
        raise ValueError(max_size)
    return sorted(sorted(set(text)), key=text.count, reverse=True)[:max_size]


@pytest.mark.parametrize(
    ("spec", "answer"),
    [
        (ch02.FALLBACK_BUDGET, budget_by_products),
        (ch02.DECODE_REPORT, lost_by_scanning),
        (ch02.BUILD_VOCAB, vocab_by_stable_sorts),
    ],
)
def test_right_answers_written_another_way_earn_full_points(spec, answer):
    for seed in range(1, 21):
        result = spec.result(answer, random.Random(seed))
        assert result.points == spec.points, (seed, result.line)


def test_no_budget_case_puts_the_target_a_rounding_error_from_a_ratio():
    cases = [args for args, _ in ch02._budget_examples()]
    for seed in range(1, 51):
        task = ch02.FALLBACK_BUDGET.task(random.Random(seed))
        cases += [call.args for call in task.calls if call.hidden]
    assert all(ch02.unambiguous(*args) for args in cases)
