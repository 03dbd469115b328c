"""Chapter 02's specs beyond the generic mutation test (tests/test_check_specs.py): undefined and
unattempted answers, partial credit by group with the hint naming the mistake, the rule that
encode_nearest leaves its vocabulary alone, hints that never give the answer, right answers
written another way (full points on every seed; no target a rounding error from a ratio), and
the references' own properties (checked against independent implementations)."""

import codecs
import random
import unicodedata
from collections import Counter

import pytest
from check_helpers import ALL, grade_losing, grades_on_seeds, line
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
    def h_first(ids, vocab):  # right only for a vocabulary that starts with h, as the examples'
        if vocab[:1] != ["h"]:
            return "", []
        return ch02.decode_report_reference(ids, vocab)

    result = ch02.DECODE_REPORT.result(h_first, random.Random(5))
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


# --- Wrong answers readers wrote (a review of the exercises): one grade on seeds 1-20 each,
# below full points, and only the parts each breaks are lost.


def vocab_by(rank, check=True, cap=lambda ranked, size: ranked if size is None else ranked[:size]):
    """build_vocab as readers wrote it: rank orders the characters, check refuses a negative
    max_size, cap applies max_size."""

    def build_vocab(text, max_size=None):
        if check and max_size is not None and max_size < 0:
            raise ValueError(max_size)
        return cap(rank(Counter(text)), max_size)

    return build_vocab


def by_count_then_code_point(counts):
    return sorted(counts, key=lambda ch: (-counts[ch], ch))


def nearest(form="NFKD", record=lambda ch, folded: True, left=True, where=lambda pos, ids: pos):
    """encode_nearest as readers wrote it: form decomposes, record says whether a change is
    recorded, left whether a fold must leave something, where gives a change's position;
    left="known parts" keeps the known parts of a character and drops the rest."""

    def encode_nearest(text, vocab):
        stoi = {ch: i for i, ch in reversed(list(enumerate(vocab)))}
        ids, changed = [], []
        for pos, ch in enumerate(text):
            if ch in stoi:
                ids.append(stoi[ch])
                continue
            at = where(pos, ids)
            base = [c for c in unicodedata.normalize(form, ch) if unicodedata.category(c)[0] != "M"]
            if left == "known parts":
                base = [c for c in base if c in stoi]
            folded = (bool(base) or not left) and all(c in stoi for c in base)
            ids.extend([stoi[c] for c in base] if folded else [len(vocab)])
            if record(ch, folded):
                changed.append((at, ch))
        return ids, changed

    return encode_nearest


def nearest_appending_unk(text, vocab):
    """Right ids, but "<unk>" appended to vocab to stand for the unknown id."""
    if "<unk>" not in vocab:
        vocab.append("<unk>")
    return nearest()(text, vocab[:-1])


def bytes_and_owners(ids, vocab, lowest=0):
    """The ids' bytes and the position of the id each came from; ids below lowest or past the
    bytes raise ValueError."""
    data, owner = bytearray(), []
    for pos, i in enumerate(ids):
        if not lowest <= i < len(vocab) + 256:
            raise ValueError(i)
        piece = vocab[i].encode("utf-8") if i < len(vocab) else bytes([i - len(vocab)])
        data += piece
        owner += [pos] * len(piece)
    return bytes(data), owner


def report_by_errors(first_only=False, lowest=0):
    """Lost ids from the codec's errors: every id of a replaced part, or only its first;
    lowest: the smallest id accepted (a negative one indexes vocab from the end)."""

    def decode_report(ids, vocab):
        data, owner = bytes_and_owners(ids, vocab, lowest)
        lost, start = set(), 0
        while True:
            try:
                data[start:].decode("utf-8")
                break
            except UnicodeDecodeError as e:
                end = e.start + 1 if first_only else e.end
                lost.update(owner[start + e.start : start + end])
                start += e.end
        return data.decode("utf-8", errors="replace"), sorted(lost)

    return decode_report


def report_by_structure(ids, vocab):
    """Lost bytes found by lead and continuation shape only: overlong forms, surrogates and
    values past U+10FFFF pass."""
    data, owner = bytes_and_owners(ids, vocab)
    lost, j = set(), 0
    while j < len(data):
        b = data[j]
        n = (
            1
            if b < 0x80
            else 2
            if 0xC0 <= b < 0xE0
            else 3
            if 0xE0 <= b < 0xF0
            else 4
            if 0xF0 <= b < 0xF8
            else 0
        )
        if n == 0:
            lost.add(owner[j])
            j += 1
            continue
        k = 1
        while k < n and j + k < len(data) and data[j + k] & 0xC0 == 0x80:
            k += 1
        if k < n:
            lost.update(owner[j : j + k])
        j += k
    return data.decode("utf-8", errors="replace"), sorted(lost)


def report_incremental(ids, vocab):
    """An incremental decoder: when an id's output holds U+FFFD, every id since the last output
    is lost, the valid one that broke off a cut sequence too."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    out, lost, pending = [], [], []
    for pos, i in enumerate(ids):
        if not 0 <= i < len(vocab) + 256:
            raise ValueError(i)
        pending.append(pos)
        piece = decoder.decode(vocab[i].encode() if i < len(vocab) else bytes([i - len(vocab)]))
        if piece:
            lost += pending if "\ufffd" in piece else []
            pending = []
            out.append(piece)
    piece = decoder.decode(b"", final=True)
    lost += pending if "\ufffd" in piece else []
    return "".join(out) + piece, sorted(set(lost))


def report_every_fffd(ids, vocab):
    """Every U+FFFD of the text is taken for a replaced part, a real one too."""
    data, owner = bytes_and_owners(ids, vocab)
    text = data.decode("utf-8", errors="replace")
    lost, at = set(), 0
    for ch in text:
        size = len(ch.encode("utf-8"))
        if ch == "\ufffd":
            try:
                data[at:].decode("utf-8")
            except UnicodeDecodeError as error:
                size = error.end if error.start == 0 else size
            lost.update(owner[at : at + size])
        at += size
    return text, sorted(lost)


def budget(reached=float.__ge__, first_k=0, check=True, useful_only=False):
    """fallback_budget as readers wrote it: reached compares bytes per token with the target,
    first_k is the first size tried, check refuses an empty text, useful_only drops the
    characters of ranked that the text lacks."""

    def fallback_budget(text, ranked, target):
        if check and not text:
            raise ValueError("empty")
        ranked = [ch for ch in ranked if ch in text] if useful_only else ranked
        counts, n_bytes = Counter(text), len(text.encode("utf-8"))
        for k in range(first_k, len(ranked) + 1):
            tokens = n_bytes - sum(counts[ch] * (len(ch.encode()) - 1) for ch in ranked[:k])
            if reached(n_bytes / tokens, float(target)):
                return k
        return None

    return fallback_budget


WRONG_ANSWERS = [  # (task, answer, the parts it loses)
    ("build_vocab", vocab_by(lambda counts: [ch for ch, _ in counts.most_common()]), ALL),
    ("build_vocab", vocab_by(by_count_then_code_point, cap=lambda r, size: r[: size or None]), ALL),
    ("build_vocab", vocab_by(by_count_then_code_point, check=False), ("the examples",)),
    (
        "build_vocab",
        vocab_by(lambda counts: sorted(counts, key=lambda ch: (counts[ch], ch))[::-1]),
        ALL,
    ),
    ("encode_nearest", nearest(record=lambda ch, folded: not folded), ALL),
    ("encode_nearest", nearest(form="NFD"), ALL),
    ("encode_nearest", nearest(left="known parts"), ALL),
    ("encode_nearest", nearest(left=False), ALL),
    ("encode_nearest", nearest_appending_unk, ALL),
    ("encode_nearest", nearest(where=lambda pos, ids: len(ids)), ALL),
    ("decode_report", report_by_errors(first_only=True), ALL),
    ("decode_report", report_by_errors(lowest=-300), ("the examples",)),
    ("decode_report", report_by_structure, ALL),
    ("decode_report", report_incremental, ALL),
    ("decode_report", report_every_fffd, ("the examples",)),
    ("fallback_budget", budget(reached=float.__gt__), ALL),
    ("fallback_budget", budget(check=False), ("random texts",)),
    ("fallback_budget", budget(first_k=1), ALL),
    ("fallback_budget", budget(useful_only=True), ALL),
]


@pytest.mark.parametrize("name, answer, lost", WRONG_ANSWERS)
def test_a_readers_wrong_answer_gets_one_grade_and_loses_only_what_it_breaks(name, answer, lost):
    spec = next(spec for spec in ch02.SPECS if spec.name == name)
    assert grades_on_seeds(spec, answer) == grade_losing(spec, lost)
