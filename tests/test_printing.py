"""Tests for book.show.printing: lines wrapped to the book's column, never inside a string."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from book.show.printing import (
    COLUMN,
    INDENT,
    break_points,
    display_width,
    print_wrapped,
    wrap,
    wrap_line,
)

WORD = st.text(st.characters(codec="utf-8", exclude_characters=" \n"), min_size=1, max_size=12)
LABEL = st.text("abcdefghij:", min_size=1, max_size=20)


def unwrap(text: str) -> str:
    """``text`` with each continuation line joined back to its line by one space."""
    return text.replace("\n" + INDENT, " ")


@given(st.lists(WORD, min_size=1, max_size=40), st.integers(10, 100))
def test_wrapping_single_spaced_words_only_moves_spaces(words, width):
    text = " ".join(words)
    assert unwrap(wrap(text, width)) == text


@given(st.lists(WORD, min_size=1, max_size=40), st.integers(10, 100))
def test_a_line_is_only_longer_than_the_column_when_it_cannot_break(words, width):
    for line in wrap(" ".join(words), width).split("\n"):
        body = line.removeprefix(INDENT)
        assert display_width(line) <= width or not break_points(body)


@given(LABEL, st.lists(st.one_of(st.text(max_size=15), st.binary(max_size=8)), max_size=30))
def test_a_list_repr_breaks_only_between_its_items(label, items):
    text = f"{label} {items!r}"
    lines = wrap(text, 30).split("\n")
    assert unwrap("\n".join(lines)) == text
    assert ast.literal_eval(unwrap("\n".join(lines)).removeprefix(label + " ")) == items
    # A break in a list's repr comes after its label or after the ", " between two items.
    assert all(line == label or line.endswith(",") for line in lines[:-1])


@given(st.text(max_size=COLUMN).filter(lambda t: "\n" not in t and display_width(t) <= COLUMN))
def test_a_line_that_fits_is_left_alone(line):
    assert wrap_line(line) == [line]


def test_runs_of_spaces_are_kept_where_the_line_does_not_break():
    assert wrap("gpt2      887 tokens " + "x" * 80) == "gpt2      887 tokens\n" + INDENT + "x" * 80


def test_apostrophes_and_quotes_in_prose():
    assert break_points("the word 'Gainst isn't quoted") == [3, 8, 16, 22]
    assert break_points("it printed 'a b' and \"c d\"") == [2, 10, 16, 20]


def test_wide_characters_count_twice():
    assert wrap("日本語 日本語 日本語", width=13) == "日本語 日本語\n" + INDENT + "日本語"


def test_print_wrapped_prints_like_print(capsys):
    print_wrapped("a", 1, [2], sep="-")
    assert capsys.readouterr().out == "a-1-[2]\n"
