"""Tests for book.show.stepper, driven from Python the way a notebook cell would drive it."""

from __future__ import annotations

import ast
import html
import re
import sys
from pathlib import Path

import ipywidgets as widgets
import pytest
from ipywidgets.embed import dependency_state

from book.show.stepper import MergeStepper, merge_stepper, units_per_token
from book.tokenizers.bpe.trace import Step, initial_step

# The tiny tokenizer is shared with the browser test's fixture book.
sys.path.insert(0, str(Path(__file__).parent / "browser"))
from tiny_bpe import (  # noqa: E402
    BYTE_FIXTURE_TEXT,
    FIXTURE_TEXT,
    byte_fixture_tokenizer,
    fixture_tokenizer,
)


def shown_pieces(view: str) -> list[str | bytes]:
    """The pieces a view displays, read back from the chips' tooltips (``repr`` of each)."""
    chips = re.search(r'<div class="tfs-chips">(.*?)</div>', view).group(1)
    titles = re.findall(r'class="tfs-chip[^"]*"[^>]*title="([^"]*)"', chips)
    return [ast.literal_eval(html.unescape(title)) for title in titles]


@pytest.fixture
def stepper():
    """A stepper over the fixture book's example, closed after the test."""
    stepper = merge_stepper(fixture_tokenizer(), FIXTURE_TEXT)
    yield stepper
    stepper.close()


def test_starts_before_any_merge(stepper):
    trace = fixture_tokenizer().trace(FIXTURE_TEXT)
    assert stepper.text == FIXTURE_TEXT
    assert stepper.n_steps == len(trace) - 1
    assert stepper.step == 0
    assert stepper.current_pieces == trace[0].pieces


def test_next_walks_the_trace_and_stops_at_the_end(stepper):
    trace = fixture_tokenizer().trace(FIXTURE_TEXT)
    seen = [stepper.current] + [stepper.next() for _ in range(stepper.n_steps)]
    assert seen == trace
    assert stepper.next() == trace[-1]  # one more press changes nothing


def test_back_walks_back_and_stops_at_the_start(stepper):
    stepper.step = stepper.n_steps
    trace = fixture_tokenizer().trace(FIXTURE_TEXT)
    seen = [stepper.back() for _ in range(stepper.n_steps)]
    assert seen == trace[-2::-1]
    assert stepper.back() == trace[0]


@pytest.mark.parametrize("asked, expected", [(-3, 0), (10**6, None)])
def test_step_is_clamped(stepper, asked, expected):
    stepper.step = asked
    assert stepper.step == (stepper.n_steps if expected is None else expected)


def test_every_view_shows_its_steps_segmentation(stepper):
    for index, step in enumerate(stepper.steps):
        stepper.step = index
        assert shown_pieces(stepper.view_html) == list(step.pieces)
        assert f"<b>{step.n_tokens}</b> tokens" in stepper.view_html
        assert (
            f"<b>{units_per_token(step.pieces):.2f}</b> characters per token" in stepper.view_html
        )


def test_view_names_the_merge_and_its_training_count(stepper):
    step = stepper.next()
    left, right = step.pair
    assert f"merge rank {step.rank}:" in stepper.view_html
    assert f"pair count in training: <b>{step.count}</b>" in stepper.view_html
    merge_line = re.search(r'<div class="tfs-merge">(.*?)</div>', stepper.view_html).group(1)
    assert shown_pieces(f'<div class="tfs-chips">{merge_line}</div>') == [left, right, step.new]


def test_the_displayed_stack_child_is_the_current_view(stepper):
    stack = stepper.children[-1]
    for index in range(stepper.n_steps + 1):
        stepper.step = index
        assert stack.children[stack.selected_index].value == stepper.view_html


def test_new_text_retraces_and_rerenders():
    tokenizer = fixture_tokenizer()
    stepper = merge_stepper(tokenizer, FIXTURE_TEXT)
    new_text = "pun bun pun"
    stepper.text = new_text
    trace = tokenizer.trace(new_text)
    assert stepper.steps == tuple(trace)
    assert len(stepper.children[-1].children) == len(trace)
    stepper.step = stepper.n_steps
    assert shown_pieces(stepper.view_html) == list(trace[-1].pieces)
    stepper.close()


def test_typing_in_the_text_box_retraces():
    tokenizer = fixture_tokenizer()
    stepper = merge_stepper(tokenizer, FIXTURE_TEXT)
    text_box = stepper.children[0]
    text_box.value = "hug"
    assert stepper.text == "hug"
    assert stepper.steps == tuple(tokenizer.trace("hug"))
    stepper.close()


def test_watching_the_end_keeps_watching_the_end_across_texts(stepper):
    stepper.step = stepper.n_steps
    stepper.text = FIXTURE_TEXT + " hugs"
    assert stepper.step == stepper.n_steps
    stepper.step = 0
    stepper.text = FIXTURE_TEXT
    assert stepper.step == 0


def test_bytes_pieces_count_bytes_per_token_and_show_hex():
    tokenizer = byte_fixture_tokenizer()
    stepper = merge_stepper(tokenizer, BYTE_FIXTURE_TEXT)
    trace = tokenizer.trace(BYTE_FIXTURE_TEXT)
    assert units_per_token(trace[0].pieces) == 1.0  # before any merge, one byte per token
    stepper.step = 1
    assert "bytes per token" in stepper.view_html
    assert shown_pieces(stepper.view_html) == list(trace[1].pieces)
    partial = [p for p in trace[1].pieces if not p.decode("utf-8", errors="ignore")]
    assert partial and 'class="tfs-hex"' in stepper.view_html
    stepper.close()


def test_a_plain_function_can_supply_the_trace():
    steps = [initial_step(("a", "b")), Step(0, ("a", "b"), "ab", None, ("ab",))]
    stepper = MergeStepper(lambda text: steps, "ab")
    assert stepper.next().pieces == ("ab",)
    assert "pair count in training: <b>unknown</b>" in stepper.view_html
    stepper.close()


def test_an_empty_trace_is_refused_with_advice():
    with pytest.raises(ValueError, match="initial_step"):
        MergeStepper(lambda text: [], "ab")


def saved_state(stepper: MergeStepper) -> dict[str, dict]:
    """The models a page would get for this stepper, by id: its widgets and their links.

    nbclient saves every open widget when the book executes; links are widgets no other widget
    points to, so they are found by what they link.
    """
    everything = widgets.Widget.get_manager_state(drop_defaults=True)["state"]
    models = dependency_state(stepper, drop_defaults=True)
    for model_id, model in everything.items():
        ends = model["state"].get("source", [None])[0], model["state"].get("target", [None])[0]
        if model["model_name"] == "LinkModel" and any(
            end and end.removeprefix("IPY_MODEL_") in models for end in ends
        ):
            models[model_id] = model
    return models


def test_saved_widget_state_steps_without_a_kernel(stepper):
    """What myst-nb saves into the page holds every view, linked to the controls in JS."""
    models = saved_state(stepper)
    # Every step's view is in the saved state, so the page can show any step.
    html_values = [
        m["state"].get("value", "") for m in models.values() if m["model_name"] == "HTMLModel"
    ]
    for index, step in enumerate(stepper.steps):
        view = next(v for v in html_values if f'data-step="{index}"' in v)
        assert shown_pieces(view) == list(step.pieces)

    # Browser-side links tie the slider to the Stack and the step box to the slider.
    def end(link_end: list[str]) -> tuple[str, str]:
        return models[link_end[0].removeprefix("IPY_MODEL_")]["model_name"], link_end[1]

    links = {
        (end(m["state"]["source"]), end(m["state"]["target"]))
        for m in models.values()
        if m["model_name"] == "LinkModel"
    }
    assert (("IntSliderModel", "value"), ("StackModel", "selected_index")) in links
    assert (("BoundedIntTextModel", "value"), ("IntSliderModel", "value")) in links
    # The play, back and forward buttons are plain HTML, so they need no kernel either.
    nav = next(v for v in html_values if "tfs-nav" in v)
    assert all(f"tfs-{name}" in nav for name in ("play", "back", "forward"))


def descendants(widget: widgets.Widget) -> list[widgets.Widget]:
    """A widget and every widget inside it."""
    return [widget] + [w for child in getattr(widget, "children", ()) for w in descendants(child)]


def test_close_closes_every_widget_it_made():
    stepper = merge_stepper(fixture_tokenizer(), FIXTURE_TEXT)
    made = descendants(stepper)
    stepper.close()
    assert all(widget.comm is None for widget in made)


def test_a_typed_text_that_cannot_be_traced_says_why_and_keeps_the_last_view():
    def picky_trace(text: str) -> list[Step]:
        if "x" in text:
            raise ValueError("'x' is not in the vocabulary")
        return fixture_tokenizer().trace(text)

    stepper = MergeStepper(picky_trace, FIXTURE_TEXT)
    text_box, message = stepper.children[0], stepper.children[2]
    text_box.value = "xylophone"
    assert "not in the vocabulary" in message.value
    assert stepper.text == FIXTURE_TEXT  # still showing the last text that worked
    text_box.value = "hug"
    assert message.value == "" and stepper.text == "hug"
    stepper.close()
