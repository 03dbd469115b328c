"""The checks of chapter 02's exercises pass right answers and catch plausible wrong ones.

The wrong answers are the mistakes a reader makes here: ties broken by first occurrence,
the size limit off by one, marks kept or NFC used instead of NFKD, one id per character,
positions counted in ids instead of in the text, the vocabulary changed in place, byte ids
decoded one by one, lost positions counted in the text, characters counted instead of bytes.
The judge's tasks are graded in this process too: full marks for the model solutions, none
for unattempted answers, part for half-right ones.
"""

import random
import unicodedata
from collections import Counter

import pytest
from check_helpers import line, passes
from hypothesis import given
from hypothesis import strategies as st
from test_checks_ch01 import grade_locally

from book import corpora
from book.checks import ch02


def build_vocab_right(text, max_size=None):
    if max_size is not None and max_size < 0:
        raise ValueError("negative")
    counts = Counter(text)
    return sorted(counts, key=lambda ch: (-counts[ch], ch))[:max_size]


def encode_nearest_right(text, vocab):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    ids, changed = [], []
    for position, ch in enumerate(text):
        if ch in stoi:
            ids.append(stoi[ch])
            continue
        changed.append((position, ch))
        base = "".join(
            c for c in unicodedata.normalize("NFKD", ch) if unicodedata.category(c)[0] != "M"
        )
        ids += [stoi[c] for c in base] if base and set(base) <= stoi.keys() else [len(vocab)]
    return ids, changed


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
        if not 0 <= token_id < len(vocab) + 256:
            raise ValueError(f"bad id {token_id}")
        if token_id < len(vocab):
            flush()
            text += vocab[token_id]
        else:
            run.append(index)
    flush()
    return text, lost


def per_token_right(text, vocab):
    if not text:
        raise ValueError("empty")
    tokens = sum(1 if ch in vocab else len(ch.encode()) for ch in text)
    return len(text.encode()) / tokens


RIGHT = {
    "build_vocab": build_vocab_right,
    "encode_nearest": encode_nearest_right,
    "decode_report": decode_report_right,
    "fallback_bytes_per_token": per_token_right,
    "chinese_budget": 530,
    "fallback_answer": "c",
}


def test_right_answers_pass(capsys):
    assert passes(capsys, ch02.check_build_vocab, build_vocab_right)
    assert passes(capsys, ch02.check_encode_nearest, encode_nearest_right)
    assert passes(capsys, ch02.check_decode_report, decode_report_right)
    assert passes(capsys, ch02.check_fallback_measure, per_token_right, 530, "c")


def test_the_references_agree_with_what_they_stand_for():
    vocab = ["h", "i", "é"]
    for ids in (
        [0, 3 + 0xE4, 3 + 0xBD],
        [3 + 0xC3, 3 + 0xA9, 2],
        [3 + 0x80, 1, 3 + 0xFF, 3 + 0xE4],
    ):
        text, lost = ch02.decode_report_reference(ids, vocab)
        joined = b"".join(vocab[i].encode() if i < 3 else bytes([i - 3]) for i in ids)
        assert text == joined.decode("utf-8", errors="replace")
        assert (text, lost) == decode_report_right(ids, vocab)
    chinese = corpora.parallel()["Chinese"]
    multilingual = "".join(corpora.parallel().values())
    k = ch02.chinese_budget_reference()
    assert per_token_right(chinese, build_vocab_right(multilingual, k)) >= 2.0
    assert per_token_right(chinese, build_vocab_right(multilingual, k - 1)) < 2.0


@given(st.lists(st.integers(0, 4 + 255)), st.text(max_size=4))
def test_decode_report_reference_is_replace_decoding_with_the_lost_ids(ids, extra):
    vocab = list(dict.fromkeys("abé" + extra))
    ids = [i % (len(vocab) + 256) for i in ids]
    text, lost = ch02.decode_report_reference(ids, vocab)
    assert (text, lost) == decode_report_right(ids, vocab)
    intact = [i for k, i in enumerate(ids) if k not in lost]
    assert ch02.decode_report_reference(intact, vocab)[1] == []  # what is left is valid


@given(st.text())
def test_byte_fallback_of_any_text_decodes_with_nothing_lost(text):
    vocab = build_vocab_right("the cat sat on the mat")
    ids = ch02._fallback_ids(text, vocab)
    assert ch02.decode_report_reference(ids, vocab) == (text, [])


def first_occurrence(text, max_size=None):
    """Ties in the order characters first occur (what the chapter 03 vocabulary does)."""
    counts = Counter(text)
    return sorted(counts, key=lambda ch: -counts[ch])[:max_size]


@pytest.mark.parametrize(
    "wrong, says",
    [
        (first_occurrence, "not by first occurrence"),
        (lambda text, max_size=None: sorted(set(text))[:max_size], "most frequent first"),
        (
            lambda text, max_size=None: build_vocab_right(text)[: (max_size or 0) + 1],
            "max_size",
        ),
        (
            lambda text, max_size=None: build_vocab_right(text, max_size and abs(max_size)),
            "negative",
        ),
    ],
)
def test_build_vocab_catches(capsys, wrong, says):
    out = line(capsys, ch02.check_build_vocab, wrong)
    assert out.startswith("✘") and says in out


def nearest_nfc(text, vocab):
    """Composes instead of decomposing: é stays é, and falls to <unk>."""
    stoi = {ch: i for i, ch in enumerate(vocab)}
    ids, changed = [], []
    for position, ch in enumerate(text):
        base = unicodedata.normalize("NFC", ch)
        if ch not in stoi:
            changed.append((position, ch))
        ids.append(stoi.get(base, len(vocab)))
    return ids, changed


def nearest_one_id_per_character(text, vocab):
    """Keeps only the first base character: 'ﬁ' becomes 'f'."""
    ids, changed = encode_nearest_right(text, vocab)
    return ids[: len(text)], changed


def nearest_positions_in_ids(text, vocab):
    """Records where the ids of a change start, not where the character is in the text."""
    ids, changed = encode_nearest_right(text, vocab)
    stoi = {ch: i for i, ch in enumerate(vocab)}
    out, position = [], 0
    for ch in text:
        if ch not in stoi:
            out.append((position, ch))
        position += len(encode_nearest_right(ch, vocab)[0])
    return ids, out


def nearest_mutating(text, vocab):
    """Adds the unknown characters it meets to the vocabulary."""
    result = encode_nearest_right(text, vocab)
    vocab.extend(ch for _, ch in result[1])
    return result


@pytest.mark.parametrize(
    "wrong",
    [
        nearest_nfc,
        nearest_one_id_per_character,
        nearest_positions_in_ids,
        nearest_mutating,
        lambda text, vocab: (encode_nearest_right(text, vocab)[0], []),  # no record
    ],
)
def test_encode_nearest_catches(capsys, wrong):
    assert not passes(capsys, ch02.check_encode_nearest, wrong)


def report_byte_by_byte(ids, vocab):
    """Decodes every byte id alone: every non-ASCII character is lost."""
    pieces, lost = [], []
    for index, token_id in enumerate(ids):
        if not 0 <= token_id < len(vocab) + 256:
            raise ValueError("bad id")
        if token_id < len(vocab):
            pieces.append(vocab[token_id])
        else:
            piece = bytes([token_id - len(vocab)]).decode(errors="replace")
            pieces.append(piece)
            if piece == "\ufffd":
                lost.append(index)
    return "".join(pieces), lost


def report_text_positions(ids, vocab):
    """Lost positions counted in the decoded text instead of in ids."""
    text, _ = decode_report_right(ids, vocab)
    return text, [i for i, ch in enumerate(text) if ch == "\ufffd"]


@pytest.mark.parametrize(
    "wrong, says",
    [
        (report_byte_by_byte, "a byte id decoded alone is lost"),
        (report_text_positions, "positions in ids, not in the text"),
        (lambda ids, vocab: decode_report_right([i for i in ids if i >= 0], vocab), "ValueError"),
    ],
)
def test_decode_report_catches(capsys, wrong, says):
    out = line(capsys, ch02.check_decode_report, wrong)
    assert out.startswith("✘") and says in out


def test_fallback_measure_catches_characters_and_wrong_answers_without_revealing_them(capsys):
    def per_character(text, vocab):
        return len(text.encode()) / len(text)

    out = line(capsys, ch02.check_fallback_measure, per_character, 530, "c")
    assert out.startswith("✘") and "one token per UTF-8 byte" in out
    out = line(capsys, ch02.check_fallback_measure, per_token_right, 529, "c")
    assert "chinese_budget — expected 'right', got 'wrong'" in out and "530" not in out
    out = line(capsys, ch02.check_fallback_measure, per_token_right, 530, "a")
    assert "fallback_answer — expected 'right', got 'wrong'" in out


def test_unattempted_and_missing_answers_fail_with_a_message(capsys):
    def stub(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch02.check_encode_nearest, stub)
    assert "not defined" in line(capsys, ch02.check_fallback_measure, per_token_right, None, "c")


@pytest.mark.parametrize("seed", [1, 2])
def test_the_judge_gives_the_solutions_full_marks(tmp_path, seed):
    tasks = ch02.judge_tasks(random.Random(seed))
    assert grade_locally(tasks, RIGHT, tmp_path) == {task.name: task.points for task in tasks}


def test_the_judge_gives_unattempted_answers_nothing(tmp_path):
    def unattempted(*args):
        raise NotImplementedError()

    answers = {name: unattempted for name in RIGHT}
    tasks = ch02.judge_tasks(random.Random(3))
    assert set(grade_locally(tasks, answers, tmp_path).values()) == {0}


def test_the_judge_gives_half_right_answers_part_of_the_points(tmp_path):
    half = dict(RIGHT, build_vocab=first_occurrence, decode_report=report_byte_by_byte)
    tasks = ch02.judge_tasks(random.Random(4))
    assert grade_locally(tasks, half, tmp_path) == {
        "build_vocab": 0,
        "encode_nearest": 3,
        "decode_report": 0,
        "fallback_measure": 3,
    }


def test_a_hidden_case_catches_an_encoder_that_changes_its_vocabulary(tmp_path):
    tasks = [t for t in ch02.judge_tasks(random.Random(5)) if t.name == "encode_nearest"]
    answers = dict(RIGHT, encode_nearest=nearest_mutating)
    assert grade_locally(tasks, answers, tmp_path) == {"encode_nearest": 0}
