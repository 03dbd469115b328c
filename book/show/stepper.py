"""The merge stepper: watch BPE merges rebuild a segmentation one merge at a time.

    >>> from book.tokenizers.trace import Step, initial_step
    >>> class Hu:  # a one-merge "tokenizer", enough to drive the stepper
    ...     def trace(self, text):
    ...         return [initial_step(("h", "u")), Step(0, ("h", "u"), "hu", 3, ("hu",))]
    >>> stepper = merge_stepper(Hu(), "hu")
    >>> stepper.n_steps, stepper.next().pieces, stepper.current_pieces
    (1, ('hu',), ('hu',))

Why it is built the way it is: the rendered book has no kernel, yet readers must be able to
step through the chapter's example there. So every step's view is rendered to HTML up front and
put in a ``Stack``; the slider, the step box and the Stack are tied together with ``jslink``
(links that live in the browser), and the play, ◀ and ▶ buttons are plain HTML buttons that set
the step box. All of that keeps working from the widget state that myst-nb saves into the page.
Only the text box needs Python: a new text means a new trace and new views.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Protocol

import ipywidgets as widgets

from book.show.chips import CHIPS_CSS, chip_html, chips_html
from book.tokenizers.char_bpe import END_OF_WORD
from book.tokenizers.trace import Piece, Step


class Traceable(Protocol):
    """Anything with ``trace(text) -> list[Step]``: every BPE tokenizer of the book."""

    def trace(self, text: str) -> list[Step]: ...


TraceSource = Traceable | Callable[[str], Sequence[Step]]

STEPPER_CSS = """<style>
.tfs-view{padding:6px 2px}
.tfs-merge,.tfs-stats{font-size:14px;margin:4px 0}
.tfs-merge .tfs-chip{margin:0 2px}
.tfs-stats b{font-variant-numeric:tabular-nums}
.tfs-nav{display:flex;gap:4px}
.tfs-nav button{min-width:34px}
.tfs-error{color:#b00;font-size:14px}
</style>"""

# The buttons must work without a kernel, so they cannot be ipywidgets Buttons (a click is
# handled in Python), nor the ipywidgets Play widget (the book theme's Font Awesome script swaps
# its <i> icons for <svg>, after which the Play view throws on every change and breaks the
# links). They are HTML buttons that set the step box as if the reader had typed into it; the
# box moves the slider and the view through the browser-side links, and in Jupyter the new
# value also reaches Python. GOTO_JS defines go(k): clamp k to the box's bounds, then set it.
GOTO_JS = (
    "var s=this.closest('.tfs-stepper'),i=s&&s.querySelector('.tfs-step input');if(!i)return;"
    "var go=function(k){k=Math.max(+i.min,Math.min(+i.max,k));"
    "if(k!==+i.value){i.value=k;i.dispatchEvent(new Event('change',{bubbles:true}))}return k};"
)
BACK_JS = GOTO_JS + "go(+i.value-1)"
FORWARD_JS = GOTO_JS + "go(+i.value+1)"
# Play toggles a timer kept on the stepper's element; at the end it stops, and pressing play
# at the end starts over, like a media player.
PLAY_JS = GOTO_JS + (
    "var b=this,stop=function(){clearInterval(s.tfsTimer);s.tfsTimer=0;b.textContent='▶ play'};"
    "if(s.tfsTimer){stop();return}"
    "if(+i.value>=+i.max)go(+i.min);"
    "b.textContent='⏸ pause';"
    "s.tfsTimer=setInterval(function(){if(go(+i.value+1)>=+i.max)stop()},+b.dataset.interval)"
)


def read_trace(source: TraceSource, text: str) -> tuple[Step, ...]:
    """The trace of ``text``, from a tokenizer's ``trace`` method or a plain function."""
    trace = source.trace(text) if hasattr(source, "trace") else source(text)
    trace = tuple(trace)
    if not trace:
        raise ValueError(
            "the trace is empty: trace(text) must return at least the initial segmentation "
            "(use book.tokenizers.trace.initial_step)"
        )
    return trace


def piece_length(piece: Piece) -> int:
    """Characters (str) or bytes (bytes) a piece stands for; ``</w>`` is a marker, not text.

    >>> piece_length("g</w>"), piece_length(b"\\xe4\\xbd")
    (1, 2)
    """
    if isinstance(piece, str) and piece.endswith(END_OF_WORD):
        return len(piece) - len(END_OF_WORD)
    return len(piece)


def units_per_token(pieces: Sequence[Piece]) -> float:
    """Average characters (str pieces) or bytes (bytes pieces) per token.

    >>> units_per_token(["hu", "g</w>"])
    1.5
    """
    return sum(piece_length(piece) for piece in pieces) / len(pieces) if pieces else 0.0


def unit_name(pieces: Sequence[Piece]) -> str:
    """What the pieces are made of: ``"bytes"`` or ``"characters"``."""
    return "bytes" if pieces and isinstance(pieces[0], bytes) else "characters"


def merge_html(step: Step) -> str:
    """The merge that produced ``step``: pair → new token, with its training count."""
    if step.pair is None:
        return "the text before any merge"
    left, right = step.pair
    # rank counts from 0 in training order, as merges are stored; count may be unknown when
    # merges come from a published encoding rather than from our own training run.
    rank = "" if step.rank is None else f"merge rank {step.rank}: "
    count = "unknown" if step.count is None else str(step.count)
    return (
        f"{rank}{chip_html(left)} + {chip_html(right)} → {chip_html(step.new, highlight=True)}"
        f" · pair count in training: <b>{count}</b>"
    )


def view_html(step: Step, index: int, n_steps: int) -> str:
    """One frame of the stepper: which merge, the segmentation, and the numbers."""
    # Outline the tokens the latest merge created, so the eye finds what changed.
    highlight = [i for i, piece in enumerate(step.pieces) if piece == step.new]
    unit = unit_name(step.pieces)
    stats = (
        f"<b>{step.n_tokens}</b> tokens · "
        f"<b>{units_per_token(step.pieces):.2f}</b> {unit} per token"
    )
    return (
        f'<div class="tfs-view" data-step="{index}">'
        f'<div class="tfs-merge">step <b>{index}</b> of {n_steps} · {merge_html(step)}</div>'
        f"{chips_html(step.pieces, highlight=highlight, css=False)}"
        f'<div class="tfs-stats">{stats}</div></div>'
    )


def button_html(label: str, css_class: str, title: str, script: str, **data: int) -> str:
    """An HTML button that runs ``script`` when clicked (``data`` becomes data-* attributes)."""
    attrs = "".join(f' data-{key}="{value}"' for key, value in data.items())
    return (
        f'<button class="jupyter-button {css_class}" title="{title}"{attrs}'
        f' onclick="{html.escape(script, quote=True)}">{label}</button>'
    )


def nav_html(interval_ms: int) -> str:
    """The play, back and forward buttons (they work without a kernel), and the style sheets."""
    buttons = [
        button_html("▶ play", "tfs-play", "play through the merges", PLAY_JS, interval=interval_ms),
        button_html("◀", "tfs-back", "back one merge", BACK_JS),
        button_html("▶", "tfs-forward", "forward one merge", FORWARD_JS),
    ]
    return f"{CHIPS_CSS}{STEPPER_CSS}<div class='tfs-nav'>{''.join(buttons)}</div>"


class MergeStepper(widgets.VBox):
    """A widget that steps through the merges BPE applies to a text.

    ``text`` (set it to retrace), ``step`` (0 = before any merge, ``n_steps`` = fully merged),
    ``current`` / ``current_pieces`` (what is shown), ``next()`` / ``back()``.
    """

    def __init__(self, source: TraceSource, text: str, *, interval_ms: int = 700) -> None:
        self._source = source
        self._trace: tuple[Step, ...] = ()
        self._traced_text = ""
        self._views: list[widgets.HTML] = []  # reused across texts: fewer widgets to sync
        self._text_box = widgets.Text(
            description="text",
            placeholder="type a text, then press Enter",
            continuous_update=False,  # retrace on Enter, not on every keystroke
            layout=widgets.Layout(width="auto"),
        )
        self._nav = widgets.HTML(nav_html(interval_ms))
        tight = {"description_width": "initial"}  # labels as wide as their text, no wider
        self._step_box = widgets.BoundedIntText(
            description="step", style=tight, layout={"width": "110px"}
        )
        self._step_box.add_class("tfs-step")  # the HTML buttons find the box by this class
        self._slider = widgets.IntSlider(description="merges", readout=False, style=tight)
        self._stack = widgets.Stack()
        self._message = widgets.HTML()  # says why a typed text could not be traced
        # Browser-side links: they keep working in the static book, where no kernel runs.
        self._links = [
            widgets.jslink((self._slider, "value"), (self._stack, "selected_index")),
            widgets.jslink((self._step_box, "value"), (self._slider, "value")),
        ]
        self._controls = widgets.HBox(
            [self._nav, self._step_box, self._slider],
            layout=widgets.Layout(align_items="center", flex_flow="row wrap"),
        )
        super().__init__([self._text_box, self._controls, self._message, self._stack])
        self.add_class("tfs-stepper")
        self.text = text
        self._text_box.observe(self._on_text_typed, names="value")

    @property
    def text(self) -> str:
        """The text being segmented; setting it computes its trace and renders its views."""
        return self._traced_text

    @text.setter
    def text(self, text: str) -> None:
        was_at_end = bool(self._trace) and self.step == self.n_steps
        self._trace = read_trace(self._source, text)
        self._traced_text = text
        self._text_box.value = text
        self._message.value = ""
        self._render_views()
        # Someone watching the fully merged text keeps watching it as they type.
        self.step = self.n_steps if was_at_end else min(self.step, self.n_steps)

    @property
    def steps(self) -> tuple[Step, ...]:
        """The whole trace: ``steps[0]`` is the text before any merge."""
        return self._trace

    @property
    def n_steps(self) -> int:
        """How many merges change this text (the last step index)."""
        return len(self._trace) - 1

    @property
    def step(self) -> int:
        """Index of the step shown; the slider holds it, whoever moved it."""
        return self._slider.value

    @step.setter
    def step(self, index: int) -> None:
        index = max(0, min(int(index), self.n_steps))
        # Set every linked control here too: with no browser attached (tests, or while the
        # book executes and saves the widget state) the jslinks do not run.
        self._slider.value = index
        self._step_box.value = index
        self._stack.selected_index = index

    @property
    def current(self) -> Step:
        """The step shown."""
        return self._trace[self.step]

    @property
    def current_pieces(self) -> tuple[Piece, ...]:
        """The segmentation shown."""
        return self.current.pieces

    @property
    def view_html(self) -> str:
        """The HTML of the view shown (the merge, the chips and the numbers)."""
        return self._views[self.step].value

    def next(self) -> Step:
        """Apply one more merge (stays put at the end) and return the step now shown."""
        self.step += 1
        return self.current

    def back(self) -> Step:
        """Undo one merge (stays put at the start) and return the step now shown."""
        self.step -= 1
        return self.current

    def close(self) -> None:
        """Close this widget and every widget it made, links included."""
        owned = [
            self._text_box,
            self._nav,
            self._step_box,
            self._slider,
            self._controls,
            self._message,
        ]
        for widget in [*self._links, *self._views, self._stack, *owned]:
            widget.close()
        super().close()

    def _render_views(self) -> None:
        """Render one HTML view per step and bound the controls to the new number of steps."""
        while len(self._views) < len(self._trace):
            self._views.append(widgets.HTML())
        for index, step in enumerate(self._trace):
            self._views[index].value = view_html(step, index, self.n_steps)
        # When the text got shorter, move back into range before shrinking the bounds, so no
        # control ever holds an out-of-range value. (Only then: at first the Stack is empty.)
        if self.step > self.n_steps:
            self.step = self.n_steps
        for control in (self._slider, self._step_box):
            control.max = self.n_steps
        self._stack.children = self._views[: len(self._trace)]

    def _on_text_typed(self, change: dict) -> None:
        """Retrace when the reader edits the text box (the setter also writes the box)."""
        if change["new"] == self._traced_text:
            return
        try:
            self.text = change["new"]
        except ValueError as error:
            # A callback's exception would only reach a log the reader never sees: say it here,
            # and keep showing the last text that worked.
            self._message.value = (
                f'<div class="tfs-error">cannot trace this text: {html.escape(str(error))}</div>'
            )


def merge_stepper(tokenizer: TraceSource, text: str, *, interval_ms: int = 700) -> MergeStepper:
    """A :class:`MergeStepper` over ``tokenizer.trace(text)``; display it as the cell's result."""
    return MergeStepper(tokenizer, text, interval_ms=interval_ms)
