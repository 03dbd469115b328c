"""The checks of chapter 02's exercises pass right answers and catch plausible wrong ones."""

import pytest

from book.checks import ch02
from book.tokenizers.characters import CharTokenizer

from check_helpers import line, passes


def encode_right(text, vocab, unk=False):
    return CharTokenizer(vocab, unk=True).encode(text) if unk else CharTokenizer(vocab).encode(text)


def decode_right(ids, vocab):
    return CharTokenizer(vocab, unk=True).decode(ids)


def encode_fallback_right(text, vocab):
    return ch02.fallback_ids(text, vocab)


def decode_fallback_right(ids, vocab):
    return b"".join(vocab[i].encode() if i < len(vocab) else bytes([i - len(vocab)]) for i in ids).decode()


def growth_right(text):
    seen = set()
    return [len(seen.add(ch) or seen) for ch in text]


def test_right_answers_pass(capsys):
    assert passes(capsys, ch02.check_build_vocab, lambda text: sorted(set(text)))
    assert passes(capsys, ch02.check_encode, encode_right)
    assert passes(capsys, ch02.check_decode, decode_right)
    assert passes(capsys, ch02.check_byte_fallback, encode_fallback_right, decode_fallback_right)
    assert passes(capsys, ch02.check_vocab_growth, growth_right)


@pytest.mark.parametrize("wrong", [
    lambda text: list(dict.fromkeys(text)),  # order of first appearance
    lambda text: sorted(text),  # repeats
    lambda text: [" ", "a", "c", "e", "h", "m", "n", "o", "s", "t"],  # a constant
])
def test_build_vocab_catches(capsys, wrong):
    assert not passes(capsys, ch02.check_build_vocab, wrong)


def encode_by_sorted_ids(text, vocab, unk=False):
    return encode_right(text, sorted(vocab), unk)


def encode_key_error(text, vocab, unk=False):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return [stoi.get(ch, len(vocab)) if unk else stoi[ch] for ch in text]


def encode_unk_zero(text, vocab, unk=False):
    stoi = {ch: i for i, ch in enumerate(vocab)}
    return [stoi.get(ch, 0) for ch in text]


@pytest.mark.parametrize("wrong", [encode_by_sorted_ids, encode_key_error, encode_unk_zero])
def test_encode_catches(capsys, wrong):
    assert not passes(capsys, ch02.check_encode, wrong)


def decode_negative_ids_work(ids, vocab):
    return "".join("<unk>" if i == len(vocab) else vocab[i] for i in ids)


def decode_unk_as_question_mark(ids, vocab):
    return decode_right(ids, vocab).replace("<unk>", "?")


@pytest.mark.parametrize("wrong", [decode_negative_ids_work, decode_unk_as_question_mark])
def test_decode_catches(capsys, wrong):
    assert not passes(capsys, ch02.check_decode, wrong)


def decode_each_byte_alone(ids, vocab):
    return "".join(vocab[i] if i < len(vocab) else bytes([i - len(vocab)]).decode("latin-1") for i in ids)


def encode_code_points(text, vocab):
    return [ord(ch) for ch in text]


def test_byte_fallback_catches(capsys):
    assert not passes(capsys, ch02.check_byte_fallback, encode_fallback_right, decode_each_byte_alone)
    assert not passes(capsys, ch02.check_byte_fallback, encode_code_points, lambda ids, vocab: "".join(map(chr, ids)))


def test_vocab_growth_catches(capsys):
    assert not passes(capsys, ch02.check_vocab_growth, lambda text: list(range(1, len(text) + 1)))
    assert not passes(capsys, ch02.check_vocab_growth, lambda text: [len(set(text))] * len(text))


def test_unattempted_and_missing_answers_fail_with_a_message(capsys):
    def stub(*args):
        raise NotImplementedError()

    assert "not attempted" in line(capsys, ch02.check_encode, stub)
    assert "not defined" in line(capsys, ch02.check_byte_fallback, encode_fallback_right, None)


def test_error_kind():
    assert ch02.error_kind(int, "x") == "ValueError"
    assert ch02.error_kind(CharTokenizer(["a"]).encode, "b") == "ValueError"  # a subclass counts
    assert ch02.error_kind({}.__getitem__, "k") == "KeyError"
    assert ch02.error_kind(len, "ok") == "no error"
    with pytest.raises(NotImplementedError):
        ch02.error_kind(lambda: (_ for _ in ()).throw(NotImplementedError()))
