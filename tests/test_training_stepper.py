"""The training trace (book.tokenizers.bpe.training_trace) and the stepper that shows it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from book.show.fallback import HIDE_STATIC_CSS
from book.show.stepper import NEEDS_JS
from book.show.training_stepper import TrainingStepper, pairs_table_html, training_stepper
from book.tokenizers import ByteTokenizer
from book.tokenizers.bpe.char_bpe import initial_splits, learn_merges, word_freqs
from book.tokenizers.bpe.core import build_vocab
from book.tokenizers.bpe.training_trace import (
    TIE_BREAK_RULE,
    byte_training_trace,
    char_training_trace,
)

HUG = " ".join(["hug"] * 10 + ["pug"] * 5 + ["pun"] * 12 + ["bun"] * 4 + ["hugs"] * 5)
words = st.text(alphabet="abcé ", min_size=1, max_size=40).filter(lambda text: text.split())


@given(words, st.integers(0, 12))
@settings(max_examples=60, deadline=None)
def test_char_trace_chooses_what_training_learns(text, num_merges):
    freqs = word_freqs(text)
    merges, splits = learn_merges(initial_splits(freqs), freqs, num_merges)
    steps = char_training_trace(text, num_merges)
    assert [(s.chosen, s.count) for s in steps[1:]] == merges
    assert dict(zip(freqs, (pieces for pieces, _ in steps[-1].segmentation))) == splits


@given(st.text(min_size=1, max_size=30), st.integers(0, 10))
@settings(max_examples=60, deadline=None)
def test_byte_trace_chooses_what_byte_bpe_learns(text, num_merges):
    tok = ByteTokenizer.train(text, vocab_size=256 + num_merges)
    vocab = build_vocab(tok.merges)
    steps = byte_training_trace(text, num_merges)
    chosen = [(vocab[a], vocab[b]) for (a, b), _count in tok.merges]
    assert [s.chosen for s in steps[1:]] == chosen
    assert [s.new for s in steps[1:]] == [a + b for a, b in chosen]


def test_each_round_shows_the_counts_it_chose_from_with_ties_in_data_order():
    steps = char_training_trace(HUG, 3)
    first = steps[1]
    assert first.counts[0] == (("u", "g"), 20) and first.chosen == ("u", "g")
    # The count table is the full pair count, most frequent first.
    assert sum(count for _, count in first.counts) == sum(
        (len(w) + 1 - 1) * n for w, n in word_freqs(HUG).items()
    )
    assert steps[0].counts == first.counts and steps[0].chosen is None
    # ('u', 'n') and ('n', '</w>') tie at 16 after the first merge; ('u', 'n') comes first.
    assert steps[2].tied == (("u", "n"), ("n", "</w>")) and steps[2].chosen == ("u", "n")


def test_token_counts_fall_by_the_count_of_each_merge():
    steps = char_training_trace(HUG, 5)
    for before, after in zip(steps, steps[1:]):
        assert before.n_tokens - after.n_tokens == after.count


def test_training_stops_when_no_pair_is_left():
    steps = char_training_trace("a b", 5)  # (a, </w>) then (b, </w>): then each word is one token
    assert len(steps) == 3
    assert steps[-1].segmentation == ((("a</w>",), 1), (("b</w>",), 1))


@pytest.mark.parametrize("bad", ["", "   \n"])
def test_an_empty_corpus_says_what_to_type(bad):
    with pytest.raises(ValueError, match="type"):
        char_training_trace(bad, 3)


def test_negative_merges_are_refused():
    with pytest.raises(ValueError, match="num_merges"):
        char_training_trace("ab", -1)


@pytest.fixture
def stepper():
    stepper = training_stepper(HUG, num_merges=4)
    yield stepper
    stepper.close()


def test_stepper_walks_the_rounds_and_names_the_rule(stepper):
    assert stepper.n_steps == 4 and stepper.step == 0
    assert stepper.next().chosen == ("u", "g")
    view = stepper.view_html
    assert TIE_BREAK_RULE in view and "merge rank 0" in view and "← merged" in view
    assert re.search(r'data-step="1"', view)
    stepper.step = 2
    assert "2 pairs tie at 16" in stepper.view_html
    assert stepper.back().chosen == ("u", "g")


def test_typing_a_corpus_retrains_and_a_bad_one_is_explained(stepper):
    stepper._text_box.value = "aaab aab"
    assert stepper.text == "aaab aab" and stepper.steps[1].chosen == ("a", "a")
    stepper._text_box.value = "   "
    assert "type at least one word" in stepper._message.value
    assert stepper.text == "aaab aab"  # the last corpus that worked stays


def test_bytes_unit_shows_partial_characters_as_hex():
    stepper = TrainingStepper("ééé", num_merges=2, unit="bytes")
    assert stepper.steps[1].chosen == (b"\xc3", b"\xa9")
    assert "&lt;c3&gt;" in stepper.view_html  # the lead byte alone is not a character
    stepper.close()
    with pytest.raises(ValueError, match="unit"):
        TrainingStepper("a", unit="words")


def test_a_cut_never_splits_a_tie():
    step = char_training_trace("ab cd ef gh", 1)[1]  # eight pairs, all with count 1
    assert pairs_table_html(step, top=2).count('<td class="tfs-n">1</td>') == 8


def test_static_copy_is_the_first_step_and_the_widget_hides_it(stepper):
    static = stepper.static_html()
    assert 'class="tfs-static"' in static and NEEDS_JS in static
    assert stepper._views[0].value in static
    assert HIDE_STATIC_CSS not in static  # else the copy would hide itself
    assert HIDE_STATIC_CSS in stepper._nav.value


def marks(table: str) -> list[str]:
    """The third column of a pair table: '← merged', 'tie', 'top' or ''."""
    return re.findall(r'<td class="tfs-n">\d+</td><td>([^<]*)</td>', table)


def test_a_lone_top_pair_is_not_called_a_tie_in_the_widget_or_its_static_copy(stepper):
    # Before any merge only ('u', 'g') has the top count (20): nothing ties with it.
    first = stepper.steps[0]
    assert first.tied == (("u", "g"),)
    static = stepper.static_html()
    assert marks(static)[0] == "top" and "tie" not in marks(static)
    assert 'class="tfs-tie"' not in static
    # Where pairs do tie before any merge, every one of them is marked.
    tied_first = char_training_trace("ab cd", 1)[0]
    assert marks(pairs_table_html(tied_first, top=8)).count("tie") == len(tied_first.tied) == 4
