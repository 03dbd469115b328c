"""Dask's progress display for a count on a cluster, kept on the page when it is done.

:func:`dask_progress` is what chapter 09 passes as ``progress`` to
:func:`~book.tokenizers.bpe.dask_counts.dask_chunk_counts`: the tokenizers floor computes,
this floor shows.
"""

from __future__ import annotations

import sys

from distributed import Client, Future
from distributed.diagnostics.progressbar import MultiProgressWidget, TextProgressBar
from distributed.utils import is_kernel


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
        from IPython.display import display

        bar = MultiProgressWidget([future], scheduler=client.scheduler.address, complete=True)
        display(bar.widget)
        client.sync(bar.listen)
    else:
        KeptProgressBar([future], scheduler=client.scheduler.address)
