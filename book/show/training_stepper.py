"""The training stepper: watch BPE *choose* its merges, one round of pair counting at a time.

The merge stepper shows what merges do to a text; this one shows why each merge was chosen.
Each step shows the table of pair counts (the top pairs, ties visible), the chosen pair, the
tie-break rule, the new vocabulary entry, and the corpus re-segmented after the merge.

    >>> stepper = training_stepper("hug hug pug pun", num_merges=3)
    >>> stepper.n_steps, stepper.next().chosen, stepper.current.count
    (3, ('u', 'g'), 3)
    >>> "first in the data" in stepper.view_html
    True

Like the merge stepper it steps in the static book without a kernel (every step is rendered
up front); typing a new corpus retrains, which needs a running kernel.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Literal

import ipywidgets as widgets

from book.show.chips import chip_html, chips_html
from book.show.stepper import Stepper
from book.tokenizers.bpe.training_trace import (
    TIE_BREAK_RULE,
    TrainingStep,
    byte_training_trace,
    char_training_trace,
)

TRACES: dict[str, Callable[[str, int], list[TrainingStep]]] = {
    "characters": char_training_trace,
    "bytes": byte_training_trace,
}


def pairs_table_html(step: TrainingStep, top: int) -> str:
    """The ``top`` most frequent pairs (more if tied at the cut), chosen pair and ties marked.

    >>> from book.tokenizers.bpe.training_trace import char_training_trace
    >>> table = pairs_table_html(char_training_trace("ab ab", 1)[1], top=5)
    >>> table.count("<tr"), "tfs-chosen" in table  # a header, (a, b) and (b, </w>), tied at 2
    (3, True)
    >>> "tie" in pairs_table_html(char_training_trace("ab ab b", 1)[0], top=5)  # one top pair
    False
    """
    shown = list(step.counts[:top])
    # Never cut a tie in half: a reader must see every pair the tie-break chose between.
    shown += [item for item in step.counts[top:] if shown and item[1] == shown[-1][1]]
    # "tie" only where two or more pairs share the top count; a lone top pair before any merge
    # is the one the first round will merge, and is marked so.
    tie = len(step.tied) > 1
    rows = []
    for pair, count in shown:
        if pair == step.chosen:
            css, mark = "tfs-chosen", "← merged"
        elif pair in step.tied:
            css, mark = ("tfs-tie", "tie") if tie else ("", "top")
        else:
            css, mark = "", ""
        rows.append(
            f'<tr class="{css}"><td>{chip_html(pair[0])} {chip_html(pair[1])}</td>'
            f'<td class="tfs-n">{count}</td><td>{mark}</td></tr>'
        )
    hidden = len(step.counts) - len(shown)
    more = f'<tr><td colspan="3">… {hidden} more pairs</td></tr>' if hidden else ""
    head = "<tr><th>pair</th><th>count</th><th></th></tr>"
    return f'<table class="tfs-pairs">{head}{"".join(rows)}{more}</table>'


def tie_html(step: TrainingStep) -> str:
    """One sentence on how the pair was chosen: the tie-break rule, named, and whether it acted."""
    if step.chosen is None:
        if not step.counts:
            return "No pair is left: every word is a single token."
        return f"Training merges the top pair of this table first. Rule: {TIE_BREAK_RULE}."
    if len(step.tied) == 1:
        return f"One pair has the top count, {step.count}. Rule: {TIE_BREAK_RULE}."
    return (
        f"{len(step.tied)} pairs tie at {step.count}; the one that occurs first in the "
        f"training data wins. Rule: {TIE_BREAK_RULE}."
    )


def corpus_html(step: TrainingStep) -> str:
    """The corpus in this state: each distinct word as chips, with its frequency."""
    words = []
    for pieces, freq in step.segmentation:
        highlight = [i for i, piece in enumerate(pieces) if piece == step.new]
        chips = chips_html(pieces, highlight=highlight, break_lines=False, css=False)
        times = f'<span class="tfs-freq">×{freq}</span>' if len(step.segmentation) > 1 else ""
        words.append(f'<span class="tfs-word">{chips}{times}</span>')
    return f'<div class="tfs-corpus">{"".join(words)}</div>'


def training_view_html(step: TrainingStep, index: int, n_steps: int, top: int = 8) -> str:
    """One frame: the merge, the counts it was chosen from, the rule, the corpus after it."""
    if step.chosen is None:
        merge = "the corpus before any merge"
    else:
        left, right = step.chosen
        merge = (
            f"merge rank {step.rank}: {chip_html(left)} + {chip_html(right)} → "
            f"new vocabulary entry {chip_html(step.new, highlight=True)}"
        )
    return (
        f'<div class="tfs-view" data-step="{index}">'
        f'<div class="tfs-merge">step <b>{index}</b> of {n_steps} · {merge}</div>'
        f'<div class="tfs-note">Pair counts {"before this merge" if index else "now"}:</div>'
        f"{pairs_table_html(step, top)}"
        f'<div class="tfs-note">{html.escape(tie_html(step))}</div>'
        f'<div class="tfs-note">The corpus{" after the merge" if index else ""}:</div>'
        f"{corpus_html(step)}"
        f'<div class="tfs-stats"><b>{step.n_tokens}</b> tokens in the corpus</div></div>'
    )


class TrainingStepper(Stepper):
    """A widget that steps through BPE training on a small corpus, one merge at a time.

    ``unit`` is ``"characters"`` (words, ``</w>``, as in chapter 04) or ``"bytes"`` (the text
    as one byte sequence, as in chapter 05); ``num_merges`` how many rounds to train; ``top``
    how many pairs each table shows.
    """

    def __init__(
        self,
        corpus: str,
        *,
        num_merges: int = 10,
        unit: Literal["characters", "bytes"] = "characters",
        top: int = 8,
        interval_ms: int = 900,
    ) -> None:
        if unit not in TRACES:
            raise ValueError(f"unit must be one of {sorted(TRACES)}, got {unit!r}")
        self._trace = TRACES[unit]
        self.num_merges = num_merges
        self.top = top
        text_box = widgets.Textarea(
            description="corpus",
            placeholder="type a small corpus; training reruns when you leave the box",
            continuous_update=False,
            rows=2,
            layout=widgets.Layout(width="auto"),
        )
        super().__init__(
            corpus, interval_ms=interval_ms, text_box=text_box, slider_label="merges learned"
        )
        self.add_class("tfs-training")  # pages that show both kinds of stepper tell them apart

    def _compute(self, text: str) -> list[TrainingStep]:
        return self._trace(text, self.num_merges)

    def _view(self, index: int) -> str:
        return training_view_html(self._steps[index], index, self.n_steps, self.top)


def training_stepper(
    corpus: str,
    *,
    num_merges: int = 10,
    unit: Literal["characters", "bytes"] = "characters",
    top: int = 8,
) -> TrainingStepper:
    """A :class:`TrainingStepper` on ``corpus``; display it as the cell's result."""
    return TrainingStepper(corpus, num_merges=num_merges, unit=unit, top=top)
