"""The merge stepper: watch BPE merges rebuild a segmentation one merge at a time.

    >>> from book.tokenizers.bpe.trace import Step, initial_step
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
from book.show.fallback import HIDE_STATIC_CSS, StaticFallback
from book.show.fallback import static_html as fallback_html
from book.show.stack import STACK_CSS, stack
from book.tokenizers.bpe.char_bpe import END_OF_WORD
from book.tokenizers.bpe.trace import Piece, Step


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
.tfs-pairs{border-collapse:collapse;font-size:13px;margin:4px 0}
.tfs-pairs td,.tfs-pairs th{padding:1px 8px;text-align:left}
.tfs-pairs td.tfs-n{text-align:right;font-variant-numeric:tabular-nums}
.tfs-pairs tr.tfs-tie td{background:#f3f3f3}
.tfs-pairs tr.tfs-chosen td{background:#fff3c4;font-weight:700}
.tfs-corpus{display:flex;flex-wrap:wrap;gap:4px 14px;margin:4px 0}
.tfs-word{display:flex;align-items:baseline;gap:3px}
.tfs-word .tfs-chips{display:inline-flex}
.tfs-freq{font-size:12px;color:#555}
.tfs-note{font-size:13px;color:#333;margin:4px 0}
</style>"""

# What the static copy of the first step, shown before every stepper, says (book.show.fallback).
NEEDS_JS = (
    "Stepping through this needs JavaScript (the widget's scripts did not load): the first "
    "step is shown. Run the notebook (Binder, Colab, Jupyter) to step through it."
)

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
    css = CHIPS_CSS + STEPPER_CSS + HIDE_STATIC_CSS + STACK_CSS
    return f"{css}<div class='tfs-nav'>{''.join(buttons)}</div>"


def static_html(first_view: str) -> str:
    """What a page without the widget's JavaScript shows instead: the first step and why.

    >>> "needs JavaScript" in static_html("<div>step 0</div>")
    True
    """
    return CHIPS_CSS + STEPPER_CSS + fallback_html(first_view, NEEDS_JS)


class Stepper(StaticFallback, widgets.VBox):
    """What every stepper shares: a text box, ◀ ▶ play, a step box, a slider and one view a step.

    A subclass computes the steps of a text (``_compute``) and renders one step (``_view``).
    ``text`` (set it to recompute), ``step`` (0 = the start, ``n_steps`` = the end),
    ``next()`` / ``back()``, ``view_html``. Displayed, it is preceded by a static copy of its
    first step, which the widget hides once it renders (``book.show.fallback``).
    """

    def __init__(
        self, text: str, *, interval_ms: int, text_box: widgets.Widget, slider_label: str
    ) -> None:
        self._steps: tuple = ()
        self._shown_text = ""
        self._views: list[widgets.HTML] = []  # reused across texts: fewer widgets to sync
        self._text_box = text_box
        self._nav = widgets.HTML(nav_html(interval_ms))
        tight = {"description_width": "initial"}  # labels as wide as their text, no wider
        self._step_box = widgets.BoundedIntText(
            description="step", style=tight, layout={"width": "110px"}
        )
        self._step_box.add_class("tfs-step")  # the HTML buttons find the box by this class
        self._slider = widgets.IntSlider(description=slider_label, readout=False, style=tight)
        self._stack = stack()
        self._message = widgets.HTML()  # says why a typed text could not be used
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

    def _compute(self, text: str) -> Sequence:
        """The steps of ``text`` (at least one); ValueError if the text cannot be used."""
        raise NotImplementedError

    def _view(self, index: int) -> str:
        """The HTML of step ``index``."""
        raise NotImplementedError

    @property
    def text(self) -> str:
        """The text shown; setting it computes its steps and renders their views."""
        return self._shown_text

    @text.setter
    def text(self, text: str) -> None:
        was_at_end = bool(self._steps) and self.step == self.n_steps
        self._steps = tuple(self._compute(text))
        self._shown_text = text
        self._text_box.value = text
        self._message.value = ""
        self._render_views()
        # Someone watching the last step keeps watching the last step as they type.
        self.step = self.n_steps if was_at_end else min(self.step, self.n_steps)

    @property
    def steps(self) -> tuple:
        """Every step: ``steps[0]`` is the start."""
        return self._steps

    @property
    def n_steps(self) -> int:
        """The last step's index."""
        return len(self._steps) - 1

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
    def current(self):
        """The step shown."""
        return self._steps[self.step]

    @property
    def view_html(self) -> str:
        """The HTML of the view shown."""
        return self._views[self.step].value

    def static_html(self) -> str:
        """The page's copy of the first step, for readers whose browser runs no widget."""
        return static_html(self._views[0].value)

    def next(self):
        """Go one step forward (stays put at the end) and return the step now shown."""
        self.step += 1
        return self.current

    def back(self):
        """Go one step back (stays put at the start) and return the step now shown."""
        self.step -= 1
        return self.current

    def close(self) -> None:
        """Close this widget and every widget it made, links included."""
        # getattr: ipywidgets also calls close() on a stepper whose __init__ raised.
        names = ["_text_box", "_nav", "_step_box", "_slider", "_controls", "_message", "_stack"]
        owned = [getattr(self, name, None) for name in names]
        for widget in [*getattr(self, "_links", []), *getattr(self, "_views", []), *owned]:
            if widget is not None:
                widget.close()
        super().close()

    def _render_views(self) -> None:
        """Render one HTML view per step and bound the controls to the new number of steps."""
        while len(self._views) < len(self._steps):
            self._views.append(widgets.HTML())
        for index in range(len(self._steps)):
            self._views[index].value = self._view(index)
        # When there are fewer steps now, move back into range before shrinking the bounds, so
        # no control ever holds an out-of-range value. (Only then: at first the Stack is empty.)
        if self.step > self.n_steps:
            self.step = self.n_steps
        for control in (self._slider, self._step_box):
            control.max = self.n_steps
        self._stack.children = self._views[: len(self._steps)]

    def _on_text_typed(self, change: dict) -> None:
        """Recompute when the reader edits the text box (the setter also writes the box)."""
        if change["new"] == self._shown_text:
            return
        try:
            self.text = change["new"]
        except ValueError as error:
            # A callback's exception would only reach a log the reader never sees: say it here,
            # and keep showing the last text that worked.
            self._message.value = (
                f'<div class="tfs-error">cannot use this text: {html.escape(str(error))}</div>'
            )


class MergeStepper(Stepper):
    """A widget that steps through the merges BPE applies to a text.

    ``text`` (set it to retrace), ``step`` (0 = before any merge, ``n_steps`` = fully merged),
    ``current`` / ``current_pieces`` (what is shown), ``next()`` / ``back()``.
    """

    def __init__(self, source: TraceSource, text: str, *, interval_ms: int = 700) -> None:
        self._source = source
        # A text area, not a one-line box: on a narrow page the text wraps instead of hiding.
        text_box = widgets.Textarea(
            description="text",
            placeholder="type a text; the merges are retraced when you leave the box",
            continuous_update=False,  # retrace when the reader is done, not on every keystroke
            rows=2,
            layout=widgets.Layout(width="auto"),
        )
        super().__init__(
            text, interval_ms=interval_ms, text_box=text_box, slider_label="merges applied"
        )

    def _compute(self, text: str) -> tuple[Step, ...]:
        return read_trace(self._source, text)

    def _view(self, index: int) -> str:
        return view_html(self._steps[index], index, self.n_steps)

    @property
    def current_pieces(self) -> tuple[Piece, ...]:
        """The segmentation shown."""
        return self.current.pieces


def merge_stepper(tokenizer: TraceSource, text: str, *, interval_ms: int = 700) -> MergeStepper:
    """A :class:`MergeStepper` over ``tokenizer.trace(text)``; display it as the cell's result."""
    return MergeStepper(tokenizer, text, interval_ms=interval_ms)
