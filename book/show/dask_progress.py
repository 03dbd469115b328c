"""Dask's progress display for a count on a cluster, kept on the page when it is done.

:func:`dask_progress` is what Appendix A passes as ``progress`` to
:func:`~book.tokenizers.bpe.dask_counts.dask_chunk_counts`: the tokenizers floor computes,
this floor shows. Like every widget of the book it leaves a static copy (``book.show.fallback``)
for pages whose widget scripts do not load: here, where the bars ended.

>>> print(bars_text({"count": (36, 36), "add": (6, 6)}, "Finished: 1.2s"))
count  36 / 36
add     6 / 6
Finished: 1.2s
"""

from __future__ import annotations

import html
import re
import sys

from distributed import Client, Future
from distributed.diagnostics.progressbar import MultiProgressWidget, TextProgressBar
from distributed.utils import is_kernel

from book.show.fallback import HIDE_STATIC_CSS, static_html

NEEDS_JS = "Dask's live progress bars need the widget scripts; this is where they ended."


class KeptProgressBar(TextProgressBar):
    """Dask's text progress bar (``progress(..., notebook=False)``), left on screen when done.

    Dask's erases itself at the end; this one ends its line instead, so the finished bar stays.
    """

    def _draw_stop(self, **kwargs) -> None:
        sys.stdout.write("\n")
        sys.stdout.flush()


def dask_progress(client: Client, future: Future) -> None:
    """Dask's progress display for ``future`` and the tasks it depends on; returns when done.

    In Jupyter it is Dask's widget, one bar per kind of task, as ``distributed.progress``
    draws it; that call returns at once and updates the bars later, while this one updates
    them from the client's event loop as it waits, so the notebook keeps the finished bars
    (and the rendered book shows them). Elsewhere it is Dask's text bar.
    """
    if is_kernel():
        from IPython.display import HTML, display
        from ipywidgets import HTML as HTMLWidget
        from ipywidgets import VBox

        bar = MultiProgressWidget([future], scheduler=client.scheduler.address, complete=True)
        # The widget carries the style sheet that hides the static copy wherever it renders.
        display(VBox([HTMLWidget(HIDE_STATIC_CSS), bar.widget]))
        client.sync(bar.listen)
        text = bars_text(finished_bars(bar), _plain(bar.elapsed_time.value))
        display(HTML(static_html(f"<pre>{html.escape(text)}</pre>", NEEDS_JS)))
    else:
        KeptProgressBar([future], scheduler=client.scheduler.address)


def finished_bars(bar: MultiProgressWidget) -> dict[str, tuple[int, int]]:
    """Each kind of task's (done, total), as the widget's texts ("36 / 36") show them."""
    done_of = {}
    for key, text in bar.bar_texts.items():
        done, total = _plain(text.value).split(" / ")
        done_of[str(key)] = (int(done), int(total))
    return done_of


def bars_text(bars: dict[str, tuple[int, int]], status: str) -> str:
    """The bars as lines of text: the kind of task, done / total; then the status line."""
    name_width = max(len(name) for name in bars)
    total_width = max(len(str(total)) for _, total in bars.values())
    lines = [
        f"{name:<{name_width}}  {done:>{total_width}} / {total}"
        for name, (done, total) in bars.items()
    ]
    return "\n".join([*lines, status])


def _plain(markup: str) -> str:
    """The text of a bit of Dask's HTML ('<div ...><b>Finished:</b> 1.2s</div>' -> ...)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup)).strip()
