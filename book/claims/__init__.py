"""Every claim the book checks: who makes it, what the book's code computes, whether they agree.

The published walkthroughs the book learns from (in ``references.bib``) make many concrete
claims: token ids, byte counts, merge tables, vocabulary sizes, prices. Each is a
:class:`~book.claims.core.Claim` here, with a function that computes the same quantity with
the book's code. A chapter shows the few that teach something (``table(["id", ...])``); the
"Claims checked" appendix shows all of them (``table()``). Both render the same records.

- :mod:`book.claims.text`: text, bytes, characters and words (chapters 01-03);
- :mod:`book.claims.bpe`: the BPE worked examples of :mod:`book.walkthroughs` (04-07);
- :mod:`book.claims.real`: tiktoken's encodings, costs, language premiums (08);
- :mod:`book.claims.frontier`: chapter 12's papers beside the book's measurements (12).

>>> get("cs336-code-points").source
'cs336_2025_lecture1'
>>> checked = table(["utf8-family-emoji", "cs336-code-points"])
>>> len(checked), checked.n_agree
(2, 2)
"""

from __future__ import annotations

from collections.abc import Iterable

from book.claims import bpe, frontier, real, text
from book.claims.core import (
    Checked,
    Claim,
    ClaimTable,
    approx,
    approx_each,
    between,
    check,
    claims_table,
)

__all__ = [
    "CLAIMS",
    "Checked",
    "Claim",
    "ClaimTable",
    "approx",
    "approx_each",
    "between",
    "check",
    "for_chapter",
    "get",
    "table",
]

# In chapter order; within a chapter, in the order the chapter meets them.
CLAIMS: tuple[Claim, ...] = tuple(
    sorted(
        [*text.CLAIMS, *bpe.CLAIMS, *real.CLAIMS, *frontier.CLAIMS], key=lambda claim: claim.chapter
    )
)
_BY_ID = {claim.id: claim for claim in CLAIMS}
if len(_BY_ID) != len(CLAIMS):
    raise RuntimeError("two claims share an id; every claim id must be unique")


def get(claim_id: str) -> Claim:
    """The claim called ``claim_id``; a KeyError lists close ids when there is none."""
    if claim_id not in _BY_ID:
        close = [known for known in _BY_ID if claim_id.split("-")[0] in known]
        raise KeyError(f"no claim {claim_id!r}; ids that look close: {close or sorted(_BY_ID)[:8]}")
    return _BY_ID[claim_id]


def for_chapter(chapter: int) -> list[Claim]:
    """The claims whose subject is chapter ``chapter``, in order.

    >>> [claim.id for claim in for_chapter(3)][:2]
    ['word-still-unknowns', 'zipf-exponent']
    """
    return [claim for claim in CLAIMS if claim.chapter == chapter]


def table(ids: Iterable[str] | None = None) -> ClaimTable:
    """The named claims (all of them when ``ids`` is None), checked, as a table."""
    chosen = CLAIMS if ids is None else [get(claim_id) for claim_id in ids]
    return claims_table(check(claim) for claim in chosen)
