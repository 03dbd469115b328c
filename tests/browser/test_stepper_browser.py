"""The merge stepper in the rendered book, with no kernel: a real browser steps through merges.

Each target is a built HTML page plus the traces (computed here, in Python) that its steppers
must show, in page order. The fixture book is built from ``fixture_book/`` in a temporary
directory (the ``fixture_book_site`` fixture); a chapter of the real book joins as another
:class:`StepperPage`, e.g.
``StepperPage("stepper-04_char_bpe", built_book_page("chapters/04_char_bpe.html"), traces)``
where ``traces`` recomputes the chapter's example with ``book.tokenizers``; the real book is
built once per session by the ``built_book`` fixture, which the build test shares.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pagekit import ROOT, widget_script_problems
from tiny_bpe import (
    BYTE_FIXTURE_TEXT,
    FIXTURE_TEXT,
    byte_fixture_tokenizer,
    fixture_tokenizer,
)

from book.show.showcase import (
    BYTE_STEPPER_TEXT,
    PARALLEL_VOCAB_SIZE,
    REGEX_STEPPER_ENCODING,
    REGEX_STEPPER_TEXT,
    STEPPER_TEXT,
    english_char_bpe,
    parallel_text,
)
from book.tokenizers import ByteTokenizer, RegexTokenizer
from book.tokenizers.bpe.trace import Step

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
SCREENSHOTS = ROOT / "_build" / "screenshots"
Trace = Sequence[Step]


@dataclass(frozen=True)
class StepperPage:
    """A page to test: how to get its HTML file, and the trace of each stepper on it."""

    name: str  # also the screenshot's file name
    build: Callable[[Path, pytest.FixtureRequest], Path]  # scratch dir, request -> built .html page
    traces: Callable[[], list[Trace]]


def built_book_page(relative: str) -> Callable[[Path, pytest.FixtureRequest], Path]:
    """A page of the real book, built into ``_build/html`` once per session (as make book does)."""

    def page(scratch: Path, request: pytest.FixtureRequest) -> Path:
        build = request.getfixturevalue("built_book")
        if build.returncode != 0:
            pytest.fail(
                f"the book did not build:\n{(build.stdout + build.stderr)[-4000:]}", pytrace=False
            )
        return ROOT / "_build" / "html" / relative

    return page


PAGES = [
    StepperPage(
        "stepper",
        lambda scratch, request: request.getfixturevalue("fixture_book_site") / "stepper.html",
        lambda: [
            fixture_tokenizer().trace(FIXTURE_TEXT),
            byte_fixture_tokenizer().trace(BYTE_FIXTURE_TEXT),
        ],
    ),
    StepperPage(
        "stepper-04_char_bpe",
        built_book_page("chapters/04_char_bpe.html"),
        lambda: [english_char_bpe().trace(STEPPER_TEXT)],
    ),
    StepperPage(
        "stepper-05_byte_bpe",
        built_book_page("chapters/05_byte_bpe.html"),
        lambda: [
            ByteTokenizer.train(parallel_text(), PARALLEL_VOCAB_SIZE).trace(BYTE_STEPPER_TEXT)
        ],
    ),
    StepperPage(
        "stepper-06_pretokenization",
        built_book_page("chapters/06_pretokenization.html"),
        lambda: [RegexTokenizer.from_tiktoken(REGEX_STEPPER_ENCODING).trace(REGEX_STEPPER_TEXT)],
    ),
]


@pytest.fixture(scope="session", params=PAGES, ids=[p.name for p in PAGES])
def target(request, tmp_path_factory, serve) -> tuple[StepperPage, Path, str]:
    """A target page, built once per session, and its URL on the loopback server."""
    spec: StepperPage = request.param
    html_page = spec.build(tmp_path_factory.mktemp(spec.name), request)
    site = html_page.parent
    while not (site / "_static").is_dir():  # serve from the site root so _static/ resolves
        site = site.parent
    return spec, html_page, serve(site) + html_page.relative_to(site).as_posix()


def open_steppers(
    visit, url: str, traces: list[Trace], clock: bool = False
) -> tuple[Any, list[Any]]:
    """Open the page, wait for every stepper to render, and return the page and steppers."""
    from playwright.sync_api import expect

    opened = visit(url, clock=clock)
    steppers = opened.page.locator(".tfs-stepper:not(.tfs-training)")  # merge steppers only
    expect(steppers.first.locator(".tfs-view").first).to_be_attached()
    expect(steppers).to_have_count(len(traces))
    return opened, [steppers.nth(i) for i in range(len(traces))]


def shown_pieces(stepper: Any) -> list[str | bytes]:
    """The pieces the visible view shows, read from each chip's tooltip (the piece's repr)."""
    titles = stepper.locator(".tfs-view:visible .tfs-chips .tfs-chip").evaluate_all(
        "chips => chips.map(chip => chip.title)"
    )
    return [ast.literal_eval(title) for title in titles]


def expect_step(stepper: Any, trace: Trace, index: int) -> None:
    """Assert that ``stepper`` shows step ``index`` of ``trace``: tokens, count and box."""
    from playwright.sync_api import expect

    view = stepper.locator(".tfs-view:visible")
    expect(view).to_have_attribute("data-step", str(index))
    assert shown_pieces(stepper) == list(trace[index].pieces)
    expect(view.locator(".tfs-stats")).to_contain_text(f"{trace[index].n_tokens} tokens")
    expect(stepper.locator(".tfs-step input")).to_have_value(str(index))


def go_to(stepper: Any, index: int) -> None:
    """Type a step number into the step box, as a reader would."""
    box = stepper.locator(".tfs-step input")
    box.fill(str(index))
    box.press("Enter")


def test_page_loads_widget_js_that_npm_provides(target, widget_js):
    _, html_page, _ = target
    assert not widget_script_problems(html_page.read_text(encoding="utf-8"), widget_js)


def test_buttons_box_and_slider_step_through_the_trace(target, visit):
    spec, _, url = target
    traces = spec.traces()
    opened, steppers = open_steppers(visit, url, traces)
    for stepper, trace in zip(steppers, traces, strict=True):
        n_steps = len(trace) - 1
        assert n_steps >= 2, "a target's example should have at least two merges to step through"
        expect_step(stepper, trace, 0)
        for index in range(1, n_steps + 1):  # ▶ all the way, one merge at a time
            stepper.locator(".tfs-forward").click()
            expect_step(stepper, trace, index)
        stepper.locator(".tfs-forward").click()  # past the end: stays at the end
        expect_step(stepper, trace, n_steps)
        stepper.locator(".tfs-back").click()
        expect_step(stepper, trace, n_steps - 1)
        go_to(stepper, 0)
        expect_step(stepper, trace, 0)
        handle = stepper.locator(".noUi-handle")  # the slider takes arrow keys
        handle.focus()
        handle.press("ArrowRight")
        expect_step(stepper, trace, 1)
        handle.press("ArrowLeft")
        expect_step(stepper, trace, 0)
    assert not opened.unexpected_errors()
    assert opened.served, "no widget JavaScript was served from the local copies"


def test_play_runs_to_the_end_and_pause_stops(target, visit):
    # The play timer runs on the test's clock: each run_for(interval) is exactly one tick,
    # however slow the machine, so the test sees every step in turn and never races the timer.
    from playwright.sync_api import expect

    spec, _, url = target
    traces = spec.traces()
    opened, steppers = open_steppers(visit, url, traces, clock=True)
    clock = opened.page.clock
    clock.pause_at(opened.page.evaluate("Date.now()") + 1_000)
    stepper, trace = steppers[0], traces[0]
    play = stepper.locator(".tfs-play")
    interval_ms = int(play.get_attribute("data-interval"))
    n_steps = len(trace) - 1
    play.click()
    expect(play).to_contain_text("pause")
    clock.run_for(interval_ms - 1)  # not yet a whole interval: still the first step
    expect_step(stepper, trace, 0)
    for index in range(1, n_steps + 1):  # one merge per tick
        clock.run_for(1 if index == 1 else interval_ms)
        expect_step(stepper, trace, index)
    expect(play).to_contain_text("play")  # it stopped by itself at the end
    clock.run_for(interval_ms * 3)
    expect_step(stepper, trace, n_steps)

    play.click()  # at the end, play starts over
    expect_step(stepper, trace, 0)
    clock.run_for(interval_ms)
    expect_step(stepper, trace, 1)
    play.click()
    expect(play).to_contain_text("play")
    clock.run_for(interval_ms * 3)  # paused: ticks no longer move it (go() sets the box at once)
    expect_step(stepper, trace, 1)
    assert not opened.unexpected_errors()


def test_screenshot_of_a_middle_step(target, visit):
    spec, _, url = target
    traces = spec.traces()
    opened, steppers = open_steppers(visit, url, traces)
    middle = {}
    for stepper, trace in zip(steppers, traces, strict=True):
        middle[id(stepper)] = (len(trace) - 1) // 2 + 1
        go_to(stepper, middle[id(stepper)])
        expect_step(stepper, trace, middle[id(stepper)])
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    steppers[0].screenshot(path=SCREENSHOTS / f"{spec.name}.png")
    opened.page.screenshot(path=SCREENSHOTS / f"{spec.name}-page.png", full_page=True)
    assert (SCREENSHOTS / f"{spec.name}.png").stat().st_size > 0
