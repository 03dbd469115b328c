"""The training stepper in a built page with no kernel, and every stepper's static fallback.

A real browser steps through the rounds of training on the fixture book's corpus and reads the
chosen pair and the tie note of each round; then the same pages are opened with the widget
scripts refused, and each stepper's place must show its first step and a sentence saying why.
"""

from __future__ import annotations

import pytest
from tiny_bpe import TRAINING_CORPUS

from book.show.stepper import NEEDS_JS
from book.tokenizers.bpe.training_trace import TIE_BREAK_RULE, char_training_trace

pytestmark = [pytest.mark.browser, pytest.mark.slow]

N_MERGES = 5  # as in fixture_book/training.ipynb


@pytest.fixture(scope="module")
def training_url(fixture_book_site, serve) -> str:
    return serve(fixture_book_site) + "training.html"


@pytest.fixture(scope="module")
def stepper_url(fixture_book_site, serve) -> str:
    return serve(fixture_book_site) + "stepper.html"


def test_training_stepper_steps_without_a_kernel(training_url, visit):
    from playwright.sync_api import expect

    steps = char_training_trace(TRAINING_CORPUS, N_MERGES)
    opened = visit(training_url)
    stepper = opened.page.locator(".tfs-stepper")
    expect(stepper.locator(".tfs-view").first).to_be_attached()
    expect(opened.page.locator(".tfs-static")).to_be_hidden()  # the widget hid its copy
    for index, step in enumerate(steps):
        view = stepper.locator(".tfs-view:visible")
        expect(view).to_have_attribute("data-step", str(index))
        expect(view.locator(".tfs-stats")).to_contain_text(f"{step.n_tokens} tokens")
        expect(view).to_contain_text(TIE_BREAK_RULE)
        if step.chosen is not None:
            chosen_row = view.locator("tr.tfs-chosen")
            titles = chosen_row.locator(".tfs-chip").evaluate_all("cs => cs.map(c => c.title)")
            assert titles == [repr(piece) for piece in step.chosen]
            expect(chosen_row).to_contain_text(str(step.count))
            if len(step.tied) > 1:
                expect(view).to_contain_text(f"{len(step.tied)} pairs tie at {step.count}")
                expect(view.locator("tr.tfs-tie")).to_have_count(len(step.tied) - 1)
        stepper.locator(".tfs-forward").click()
    assert not opened.unexpected_errors()
    assert opened.served, "no widget JavaScript was served from the local copies"


@pytest.mark.parametrize("page", ["stepper", "training"])
def test_without_widget_scripts_each_stepper_shows_its_first_step(
    page, fixture_book_site, serve, visit
):
    from playwright.sync_api import expect

    opened = visit(serve(fixture_book_site) + f"{page}.html", serve_widgets=False)
    assert opened.refused, "the widget scripts should have been requested and refused"
    copies = opened.page.locator(".tfs-static")
    expect(copies.first).to_be_visible()
    expected = {"stepper": 2, "training": 1}[page]  # steppers on the page
    expect(copies).to_have_count(expected)
    for index in range(expected):
        copy = copies.nth(index)
        expect(copy).to_contain_text(NEEDS_JS)
        expect(copy.locator(".tfs-view")).to_have_attribute("data-step", "0")
        assert copy.locator(".tfs-chip").count() > 0  # the first step's tokens, not an empty box
        assert copy.bounding_box()["height"] > 40
    expect(opened.page.locator(".tfs-stepper")).to_have_count(0)  # no widget rendered
