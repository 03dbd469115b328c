"""book.analysis.comparison: one measurement over many tokenizers, on the book's tokenizers, real
vendors' vocabularies and tiktoken's encodings."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from book import corpora
from book.analysis import bytes_per_token
from book.analysis.comparison import (
    bytes_per_token_table,
    digit_groups,
    digits_per_token,
    indent_costs,
    keeps_text,
    premiums,
    token_counts,
    unknown_shares,
)
from book.encodings import get_encoding
from book.tokenizers import CharTokenizer, WordTokenizer
from book.vocabularies import load

CHARS = CharTokenizer.train(string.ascii_letters + string.digits + " \n")


def test_token_counts_are_the_lengths_of_each_encoding():
    gpt2 = get_encoding("gpt2")
    texts = {"one": "the cat", "two": "on the mat\n"}
    counts = token_counts({"chars": CHARS, "gpt2": gpt2}, texts)
    assert counts == {
        "chars": {"one": 7, "two": 11},
        "gpt2": {"one": len(gpt2.encode("the cat")), "two": len(gpt2.encode("on the mat\n"))},
    }


@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c"]),
        st.dictionaries(st.sampled_from(["Hindi", "Tamil", "Greek"]), st.integers(0, 10**6)),
    ),
    st.integers(1, 10**6),
)
def test_a_premium_divides_by_the_same_tokenizers_reference(counts, english):
    counts = {label: {"English": english + i, **by} for i, (label, by) in enumerate(counts.items())}
    table = premiums(counts)
    for label, by_language in counts.items():
        assert table[label]["English"] == 1.0
        for language, n in by_language.items():
            assert table[label][language] == n / by_language["English"]


@pytest.mark.parametrize("english", [None, 0])
def test_a_premium_needs_a_reference_count(english):
    counts = {"ok": {"English": 3}, "bad": {"Hindi": 3}}
    if english is not None:
        counts["bad"]["English"] = english
    with pytest.raises(ValueError, match="bad: a premium divides by the English count"):
        premiums(counts)


def test_bytes_per_token_table_is_metrics_bytes_per_token():
    texts = {"English": corpora.parallel()["English"], "Hindi": corpora.parallel()["Hindi"]}
    llama2 = load("llama-spm")
    table = bytes_per_token_table({"Llama 2": llama2}, texts)
    assert table == {"Llama 2": {k: bytes_per_token(llama2, t) for k, t in texts.items()}}


def test_unknown_shares_count_the_unknown_token():
    words = WordTokenizer.train("the cat", unk=True)
    shares = unknown_shares({"words": words, "chars": CHARS}, {"t": "the dog"})
    assert shares == {"words": {"t": 0.5}, "chars": {"t": 0.0}}
    bert = load("bert-bge")  # BERT's WordPiece spells an Ethiopic word it cannot cover [UNK]
    assert unknown_shares({"BERT": bert}, {"am": "ሰላም"})["BERT"]["am"] == 1.0


@pytest.mark.parametrize(
    ("source", "groups"),
    [
        ("cl100k_base", ["123", "456", "7"]),  # \p{N}{1,3} from the left
        ("llama-bpe", ["123", "456", "7"]),  # Llama 3 kept cl100k's rule
        ("llama-spm", ["1", "2", "3", "4", "5", "6", "7"]),  # Llama 2 splits every digit
        ("qwen2", ["1", "2", "3", "4", "5", "6", "7"]),
        ("falcon", ["123", "456", "7"]),
    ],
)
def test_digit_groups_show_each_vendors_rule(source, groups):
    tok = get_encoding(source) if source == "cl100k_base" else load(source)
    assert digit_groups(tok, "x 1234567 y") == groups


def test_digits_per_token_averages_the_groups_and_needs_digits():
    assert digits_per_token({"chars": CHARS}, "a 12 b 3") == {"chars": 1.0}
    assert digits_per_token({"cl100k": get_encoding("cl100k_base")}, "1234567") == {"cl100k": 7 / 3}
    with pytest.raises(ValueError, match="chars: no token of the text carries a digit"):
        digits_per_token({"chars": CHARS}, "the cat")


def test_indent_costs_and_what_a_tokenizer_keeps():
    gpt2, cl100k = get_encoding("gpt2"), get_encoding("cl100k_base")
    costs = indent_costs({"gpt2": gpt2, "cl100k": cl100k, "chars": CHARS}, [0, 4])
    # GPT-2 has no token for a run of spaces: 3 lone ones, the 4th joins the word.
    assert costs == {"gpt2": {0: 0, 4: 3}, "cl100k": {0: 0, 4: 1}, "chars": {0: 0, 4: 4}}
    bert = load("bert-bge")
    assert indent_costs({"BERT": bert}, [8]) == {"BERT": {8: 0}}  # it drops the spaces...
    assert keeps_text({"BERT": bert, "gpt2": gpt2}, {"code": "    return x"}) == {
        "BERT": {"code": False},  # ...so it cannot give them back
        "gpt2": {"code": True},
    }
    with pytest.raises(ValueError, match="0 or more spaces"):
        indent_costs({"gpt2": gpt2}, [-1])
