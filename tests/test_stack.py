"""The book's widgets on ipywidgets 7 (what Colab ships), where there is no ``Stack``."""

from __future__ import annotations

import ipywidgets
import pytest

from book.show.showcase import STEPPER_TEXT, english_char_bpe
from book.show.stack import STACK_CSS, stack
from book.show.stepper import merge_stepper
from book.show.viewer import TokenViewer


@pytest.fixture
def without_stack(monkeypatch):
    """ipywidgets as version 7 has it: no ``Stack`` widget."""
    monkeypatch.delattr(ipywidgets, "Stack")


def test_a_stack_is_ipywidgets_own_where_it_exists():
    assert isinstance(stack([ipywidgets.HTML("a")], selected_index=0), ipywidgets.Stack)


def test_without_stack_a_tab_stands_in_with_its_bar_hidden(without_stack):
    views = stack([ipywidgets.HTML("a"), ipywidgets.HTML("b")], selected_index=1)
    assert isinstance(views, ipywidgets.Tab) and "tfs-stack" in views._dom_classes
    assert views.selected_index == 1
    assert ".tfs-stack>.p-TabBar" in STACK_CSS  # ipywidgets 7's tab bar
    assert stack().selected_index is None  # an empty Tab cannot select a view


def test_the_merge_stepper_steps_on_ipywidgets_7(without_stack):
    stepper = merge_stepper(english_char_bpe(), STEPPER_TEXT)
    assert isinstance(stepper._stack, ipywidgets.Tab)
    assert len(stepper._stack.children) == stepper.n_steps + 1
    stepper.next()
    assert stepper._stack.selected_index == 1
    stepper.text = "hug"  # fewer steps: the views shrink and the index stays in range
    assert stepper._stack.selected_index <= stepper.n_steps
    assert STACK_CSS in stepper._nav.value
    stepper.close()


def test_the_token_viewer_switches_on_ipywidgets_7(without_stack):
    viewer = TokenViewer("Hi 🌍", ["gpt2", "o200k_base"])
    viewer.tokenizer = "o200k_base"
    assert isinstance(viewer._stack, ipywidgets.Tab) and viewer._stack.selected_index == 1
    assert STACK_CSS in viewer.children[0].value
    viewer.close()
