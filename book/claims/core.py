"""A checked claim: what a source says, what the book's code computes, and whether they agree.

A :class:`Claim` holds the claim as its source states it, the source's key in
``references.bib``, the chapter that discusses it, the claimed value in a form the computed one
can be compared with, and a function that computes that value with the book's own code. The
chapters show a few claims each; the "Claims checked" appendix shows them all. Both render the
same records with :func:`claims_table`, so the two cannot drift apart.

>>> claim = Claim("demo-bytes", 1, "rfc3629", "“é” is two bytes", 2,
...               lambda: len("é".encode("utf-8")))
>>> checked = check(claim)
>>> checked.computed, checked.agrees
(2, True)
>>> print(claims_table([checked]).markdown.splitlines()[2])
| 1 | “é” is two bytes | {cite}`rfc3629` | 2 | ✔ |

Where the answer depends on how the quantity is measured (two fits of one law that give
different values), ``agrees`` returns None and the table says so with "–" instead of a verdict.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

# (claimed, computed) -> do they agree? None: it depends on how the value is measured.
Agrees = Callable[[Any, Any], bool | None]
VERDICTS = {True: "✔", False: "✘", None: "–"}


def show_value(value: Any, limit: int = 90) -> str:
    """A short text for a computed value: ints with thousands separators, floats to 2 places.

    >>> show_value(50257), show_value(1.23456), show_value([1, 2]), show_value("x" * 200)[-3:]
    ('50,257', '1.23', '[1, 2]', 'xx…')
    """
    if isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, int):
        text = f"{value:,}"
    elif isinstance(value, float):
        text = f"{value:,.2f}"
    elif isinstance(value, str):
        text = value
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Markdown would read these: emphasis, code, links, HTML (``</w>``), math (``$2.50``), roles.
MARKDOWN_SPECIALS = "\\`*_[]<>|$~{}#"


def cell(text: str) -> str:
    r"""Text shown as written inside a markdown table cell: specials escaped, no newlines.

    >>> print(cell("est</w> | $2.50\nnext"))
    est\</w\> \| \$2.50 next
    """
    escaped = "".join("\\" + ch if ch in MARKDOWN_SPECIALS else ch for ch in text)
    return escaped.replace("\n", " ")


@dataclass(frozen=True)
class Claim:
    """One statement of a source, checked by running the book's code.

    - ``id``: a short unique name, used by the chapters to pick claims;
    - ``chapter``: the chapter (1-12) whose subject the claim is;
    - ``source``: the key of the source in ``references.bib``;
    - ``says``: the claim as the source states it (its words in quotes where quoted);
    - ``claimed``: the claimed value, in the form ``compute`` returns;
    - ``compute``: the book's code computing that value;
    - ``agrees``: ``agrees(claimed, computed)`` says whether they agree (default ``==``), or
      None when the answer depends on the method of measurement (``show`` then gives each);
    - ``show``: how the computed value is written in a table;
    - ``uses``: the names in :mod:`book.walkthroughs` the claim checks, if any.
    """

    id: str
    chapter: int
    source: str
    says: str
    claimed: Any
    compute: Callable[[], Any]
    agrees: Agrees = operator.eq
    show: Callable[[Any], str] = show_value
    uses: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.id or any(ch.isspace() for ch in self.id):
            raise ValueError(f"a claim id must be one word without spaces, got {self.id!r}")
        if not 1 <= self.chapter <= 12:
            raise ValueError(f"claim {self.id}: chapter must be 1 to 12, got {self.chapter}")


@dataclass(frozen=True)
class Checked:
    """A claim with what the code computed and the verdict (None: no single verdict)."""

    claim: Claim
    computed: Any
    agrees: bool | None

    @property
    def shown(self) -> str:
        """The computed value as the tables write it."""
        return cell(self.claim.show(self.computed))


def check(claim: Claim) -> Checked:
    """Compute the claim's value with the book's code and compare it with the claimed one."""
    computed = claim.compute()
    verdict = claim.agrees(claim.claimed, computed)
    return Checked(claim, computed, None if verdict is None else bool(verdict))


def approx(rel: float) -> Agrees:
    """Agreement up to a relative error: for claims that say "about" or "~".

    >>> approx(0.05)(150_000, 144_762), approx(0.01)(150_000, 144_762)
    (True, False)
    """
    if rel <= 0:
        raise ValueError(f"the relative tolerance must be positive, got {rel}")
    return lambda claimed, computed: abs(computed - claimed) <= rel * abs(claimed)


def approx_each(rel: float) -> Agrees:
    """For a value measured several ways (``{method: value}``): agreement when every way is
    within ``rel`` of the claim, disagreement when none is, None when it depends on the way.

    >>> fits = {"least squares": 1.01, "maximum likelihood": 0.90}
    >>> approx_each(0.05)(1.0, fits), approx_each(0.15)(1.0, fits), approx_each(0.05)(2.0, fits)
    (None, True, False)
    """
    close = approx(rel)

    def agrees(claimed: float, computed: dict[str, float]) -> bool | None:
        verdicts = {close(claimed, value) for value in computed.values()}
        return verdicts.pop() if len(verdicts) == 1 else None

    return agrees


def between(claimed: tuple[float, float], computed: float) -> bool:
    """Agreement with a claimed range, ends included: ``between((60, 100), 61)`` is True.

    >>> between((1.2, 1.4), 1.08)
    False
    """
    low, high = claimed
    return low <= computed <= high


@dataclass(frozen=True)
class ClaimTable:
    """Checked claims as a table: in a notebook and on a page, MyST markdown with citations.

    The markdown cites each source with ``{cite}`` so that the rendered book links it to the
    bibliography; a notebook cell that displays it needs the cell metadata
    ``{"mystnb": {"markdown_format": "myst"}}``.
    """

    rows: tuple[Checked, ...]

    @property
    def markdown(self) -> str:
        """The table in MyST markdown: chapter, claim, source, computed, agrees."""
        lines = [
            "| ch. | claim | source | the book's code computes | agrees |",
            "|---|---|---|---|---|",
        ]
        for row in self.rows:
            verdict = VERDICTS[row.agrees]
            lines.append(
                f"| {row.claim.chapter} | {cell(row.claim.says)} | {{cite}}`{row.claim.source}` "
                f"| {row.shown} | {verdict} |"
            )
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def n_agree(self) -> int:
        """How many of the claims agree with what the code computes."""
        return sum(row.agrees is True for row in self.rows)

    @property
    def n_disagree(self) -> int:
        """How many of the claims the code contradicts."""
        return sum(row.agrees is False for row in self.rows)


def claims_table(rows: Iterable[Checked]) -> ClaimTable:
    """The table of already checked claims (see :class:`ClaimTable`)."""
    return ClaimTable(tuple(rows))
