"""Tests for book.text_types: the texts of chapter 09's compression table."""

import json

import pytest

from book import corpora
from book.text_types import URLS, json_sample, number_sample, text_types, url_sample


def test_every_kind_is_a_nonempty_text_ending_in_a_newline():
    kinds = text_types()
    assert list(kinds) == [
        "prose",
        "technical prose",
        "Python code",
        "C code",
        "JSON",
        "URLs",
        "numbers",
    ]
    assert all(
        isinstance(text, str) and text.endswith("\n") and text.strip() for text in kinds.values()
    )
    assert kinds["prose"] == corpora.english("all") and kinds["Python code"] == corpora.code(
        "python"
    )


def test_json_is_valid_and_describes_every_language_of_the_passage():
    document = json.loads(json_sample())
    passages = corpora.parallel()
    assert [record["language"] for record in document["languages"]] == list(passages)
    english = document["languages"][0]
    assert english["bytes"] == len(passages["English"].encode()) and english["spaces"] is True
    thai = next(r for r in document["languages"] if r["language"] == "Thai")
    assert thai["characters"] == len(passages["Thai"])


def test_urls_one_per_line_each_with_a_scheme():
    lines = url_sample().splitlines()
    assert lines == list(URLS) and len(set(lines)) == len(lines)
    assert all(
        line.split("://")[0] in {"http", "https", "ftp"} and " " not in line for line in lines
    )


def test_numbers_are_reproducible_and_vary_in_length():
    assert number_sample() == number_sample(400, seed=8)
    assert number_sample(50, seed=1) != number_sample(50, seed=2)
    lines = number_sample().splitlines()
    numbers = number_sample().split()
    assert len(numbers) == 400 and all(len(line.split()) == 10 for line in lines)
    assert all(float(n) >= 0 for n in numbers)
    integer_lengths = {len(n) for n in numbers if "." not in n}
    assert integer_lengths == set(range(1, 10))
    assert any("." in n for n in numbers)


def test_number_count_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        number_sample(0)
