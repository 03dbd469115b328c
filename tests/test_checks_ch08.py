"""The checks of chapter 08's exercises pass right answers and catch plausible wrong ones."""

import pytest

from book.checks import ch08
from book.encodings import get_encoding

from check_helpers import passes


def prompt_cost_right(text, encoding_name, usd_per_million):
    n = len(get_encoding(encoding_name).encode_ordinary(text))
    return n, n * usd_per_million / 1_000_000


def premium_table_right(passages, encoding_names, reference="English"):
    if reference not in passages:
        raise ValueError(f"no {reference}")
    table = {}
    for name in encoding_names:
        counts = {lang: len(get_encoding(name).encode_ordinary(text)) for lang, text in passages.items()}
        table[name] = {lang: n / counts[reference] for lang, n in counts.items()}
    return table


def tokens_only_in_right(text, other, encoding_name):
    enc = get_encoding(encoding_name)
    return sorted(set(enc.encode_ordinary(text)) - set(enc.encode_ordinary(other)))


def digit_chunks_right(digits):
    return [digits[i:i + 3] for i in range(0, len(digits), 3)]


def split_years_right():
    gpt2 = get_encoding("gpt2")
    return [year for year in range(1900, 2100) if len(gpt2.encode(f" {year}")) > 1]


def test_right_answers_pass(capsys):
    assert passes(capsys, ch08.check_prompt_cost, prompt_cost_right)
    assert passes(capsys, ch08.check_premium_table, premium_table_right)
    assert passes(capsys, ch08.check_tokens_only_in, tokens_only_in_right)
    assert passes(capsys, ch08.check_digit_chunks, digit_chunks_right)
    assert passes(capsys, ch08.check_split_years, split_years_right())


@pytest.mark.parametrize("wrong", [
    lambda text, name, price: (len(get_encoding(name).encode(text)), len(get_encoding(name).encode(text)) * price / 1e6),
    lambda text, name, price: (len(text.split()), len(text.split()) * price / 1e6),  # words, not tokens
    lambda text, name, price: prompt_cost_right(text, name, price)[0] * price,  # a bare number
    lambda text, name, price: (prompt_cost_right(text, name, price)[0], price / 1e6),  # price of one token
    lambda text, name, price: (24, 6e-05),  # a constant
])
def test_prompt_cost_catches(capsys, wrong):
    assert not passes(capsys, ch08.check_prompt_cost, wrong)


def first_language_right(passages, names, reference="English"):
    """Divides by the first passage, whatever the reference."""
    return premium_table_right(passages, names, next(iter(passages)))


def key_error_right(passages, names, reference="English"):
    """Right table, but a KeyError for an unknown reference."""
    if reference not in passages:
        raise KeyError(reference)
    return premium_table_right(passages, names, reference)


@pytest.mark.parametrize("wrong", [
    first_language_right,
    key_error_right,
    lambda passages, names, reference="English": {  # inverted ratio
        name: {lang: 1 / r for lang, r in premium_table_right(passages, [name], reference)[name].items()}
        for name in names},
    lambda passages, names, reference="English": {  # characters instead of tokens
        name: {lang: len(text) / len(passages[reference]) for lang, text in passages.items()} for name in names},
    lambda passages, names, reference="English": {  # encodings in another order
        name: premium_table_right(passages, [name], reference)[name] for name in sorted(names)},
])
def test_premium_table_catches(capsys, wrong):
    assert not passes(capsys, ch08.check_premium_table, wrong)


def test_premium_table_needs_the_value_error(capsys):
    def no_error(passages, names, reference="English"):
        return premium_table_right(passages, names, reference) if reference in passages else {}
    assert not passes(capsys, ch08.check_premium_table, no_error)


@pytest.mark.parametrize("wrong", [
    lambda text, other, name: sorted(set(get_encoding(name).encode(text)) ^ set(get_encoding(name).encode(other))),
    lambda text, other, name: list(set(tokens_only_in_right(text, other, name))),  # not sorted
    lambda text, other, name: tokens_only_in_right(other, text, name),  # the other way round
    lambda text, other, name: [i for i in get_encoding(name).encode(text)  # repeats kept
                               if i not in set(get_encoding(name).encode(other))],
    lambda text, other, name: sorted(set(get_encoding("gpt2").encode(text)) - set(get_encoding("gpt2").encode(other))),
])
def test_tokens_only_in_catches(capsys, wrong):
    assert not passes(capsys, ch08.check_tokens_only_in, wrong)


@pytest.mark.parametrize("wrong", [
    lambda digits: [digits[max(0, i - 3):i] for i in range(len(digits), 0, -3)][::-1],  # grouped from the right
    lambda digits: [digits[i:i + 2] for i in range(0, len(digits), 2)],  # pairs
    lambda digits: [digits],  # one chunk
    lambda digits: list(digits),  # single digits
])
def test_digit_chunks_catches(capsys, wrong):
    assert not passes(capsys, ch08.check_digit_chunks, wrong)


def test_split_years_catches(capsys):
    gpt2 = get_encoding("gpt2")
    without_space = [year for year in range(1900, 2100) if len(gpt2.encode(str(year))) > 1]
    assert not passes(capsys, ch08.check_split_years, without_space)
    assert not passes(capsys, ch08.check_split_years, split_years_right()[1:])
    assert not passes(capsys, ch08.check_split_years, None)
