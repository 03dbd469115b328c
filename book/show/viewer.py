"""The token viewer: a text as coloured token chips, under any tokenizer of the book or tiktoken.

Each token is a chip with its id; whitespace is made visible, and a token that is not whole
UTF-8 characters (part of an emoji, say) is shown as its bytes in hex instead of as U+FFFD.
Above the chips: the tokenizer, the number of tokens and the bytes per token.

    >>> view = token_view("🌍!", "o200k_base")
    >>> view.ids, view.pieces
    ((64364, 235, 0), (b'\\xf0\\x9f\\x8c', b'\\x8d', b'!'))
    >>> view.n_tokens, round(view.bytes_per_token, 2)
    (3, 1.67)

A view is plain HTML with no script (its ``_repr_html_``), so the rendered book shows it
without a kernel. :class:`TokenViewer` wraps views in ipywidgets: a text box and a menu of
tokenizers. Switching tokenizers works in the static book too (the menu and the views are
linked in the browser); typing a new text needs a running kernel (Jupyter, Binder).
"""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from book.chat import special_tokens_of
from book.encodings import ENCODINGS, get_encoding
from book.show.chips import CHIPS_CSS, Piece, chips_html
from book.show.fallback import HIDE_STATIC_CSS, StaticFallback
from book.show.fallback import static_html as fallback_html
from book.show.stack import STACK_CSS, stack
from book.tokenizers.base import token_piece

# The menu of the widget by default: gpt2 and r50k_base hold the same tokens, so one of them.
DEFAULT_TOKENIZERS = ("gpt2", "cl100k_base", "o200k_base")
# What the static copy shown before every viewer says (book.show.fallback).
NEEDS_JS = (
    "Switching tokenizers needs JavaScript (the widget's scripts did not load): the text is "
    "shown under each of them. Run the notebook (Binder, Colab, Jupyter) to type your own text."
)

VIEWER_CSS = """<style>
.tfs-tokview{margin:4px 0 10px}
.tfs-tokview-head{font-size:14px;margin:2px 0 4px;color:#222}
.tfs-tokview-head b{font-variant-numeric:tabular-nums}
.tfs-tokview-error{color:#b00;font-size:14px}
</style>"""


def load(tokenizer: Any) -> tuple[str, Any]:
    """``(name, tokenizer)``: a tiktoken encoding name is loaded (offline); anything else is kept.

    >>> load("gpt2")[0], load(load("gpt2")[1])[0]
    ('gpt2', 'gpt2')
    """
    if isinstance(tokenizer, str):
        if tokenizer not in ENCODINGS:
            raise ValueError(
                f"unknown encoding {tokenizer!r}: the book provides {', '.join(ENCODINGS)}; "
                "or pass a tokenizer object (anything with encode and a way to show each token)"
            )
        return tokenizer, get_encoding(tokenizer)
    name = getattr(tokenizer, "name", None)
    return (name if isinstance(name, str) else type(tokenizer).__name__), tokenizer


def special_ids(tokenizer: Any) -> frozenset[int]:
    """The ids of the tokenizer's special tokens (tiktoken's, the book's regex BPE's, and a
    SentencePiece tokenizer's control, user-defined and unknown pieces).

    >>> sorted(special_ids(get_encoding("o200k_base")))
    [199999, 200018]
    """
    return frozenset(special_tokens_of(tokenizer).values())


@dataclass(frozen=True)
class TokenView:
    """A text split into tokens by one tokenizer, ready to display (``_repr_html_``)."""

    text: str
    name: str
    ids: tuple[int, ...]
    pieces: tuple[Piece, ...]
    highlight: tuple[int, ...] = ()  # positions to outline: the special tokens

    @property
    def n_tokens(self) -> int:
        """How many tokens the text costs."""
        return len(self.ids)

    @property
    def n_bytes(self) -> int:
        """UTF-8 bytes of the text (a lone surrogate counts its 3 bytes instead of failing)."""
        return len(self.text.encode("utf-8", errors="surrogatepass"))

    @property
    def bytes_per_token(self) -> float:
        """Bytes of text per token; 0.0 for a text with no tokens."""
        return self.n_bytes / self.n_tokens if self.n_tokens else 0.0

    def html(self, css: bool = True) -> str:
        """The view as static HTML: a header with the numbers, then the chips."""
        head = (
            f"<b>{html.escape(self.name)}</b> · <b>{self.n_tokens:,}</b> "
            f"{'token' if self.n_tokens == 1 else 'tokens'} · "
            f"<b>{self.n_bytes:,}</b> bytes · <b>{self.bytes_per_token:.2f}</b> bytes per token"
        )
        chips = chips_html(self.pieces, self.ids, self.highlight, css=False)
        style = CHIPS_CSS + VIEWER_CSS if css else ""
        head_html = f'<div class="tfs-tokview-head">{head}</div>'
        return f'{style}<div class="tfs-tokview">{head_html}{chips}</div>'

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return (
            f"TokenView({self.name!r}, {self.n_tokens} "
            f"{'token' if self.n_tokens == 1 else 'tokens'}, "
            f"{self.bytes_per_token:.2f} bytes per token)"
        )


def token_view(
    text: str,
    tokenizer: Any = "o200k_base",
    *,
    label: str | None = None,
    allowed_special: Collection[str] | str = (),
) -> TokenView:
    """The view of ``text`` under ``tokenizer`` (an encoding name or a tokenizer object).

    ``label`` is the name shown (by default the encoding's name, or the tokenizer's class).
    ``allowed_special`` is passed to ``encode`` when given, as in tiktoken: the special tokens
    whose text becomes their special id (they are outlined in the view).

    >>> token_view("<|endoftext|>", "gpt2", allowed_special="all").ids
    (50256,)
    """
    if not isinstance(text, str):
        raise TypeError(f"token_view needs a str, got {type(text).__name__}")
    name, tokenizer = load(tokenizer)
    if allowed_special:
        ids = tokenizer.encode(text, allowed_special=allowed_special)
    else:
        ids = tokenizer.encode(text)
    return ids_view(tokenizer, ids, label=label or name, text=text)


def ids_view(
    tokenizer: Any, ids: Sequence[int], *, label: str | None = None, text: str | None = None
) -> TokenView:
    """The view of ``ids`` made by any tokenizer: one chip per id, special tokens outlined.

    ``text`` is what the ids encode (by default ``tokenizer.decode(ids)``); it gives the byte
    count of the header. Use it to show ids built without ``encode``, e.g. a chat template's.

    >>> ids_view(get_encoding("gpt2"), [15496, 50256]).pieces
    (b'Hello', b'<|endoftext|>')
    """
    name, tokenizer = load(tokenizer)
    specials = special_ids(tokenizer)
    highlight = tuple(position for position, token_id in enumerate(ids) if token_id in specials)
    pieces = tuple(token_piece(tokenizer, token_id) for token_id in ids)
    text = tokenizer.decode(list(ids)) if text is None else text
    return TokenView(text, label or name, tuple(ids), pieces, highlight)


@dataclass(frozen=True)
class TokenViews:
    """Several views shown one under the other, with the style sheet once."""

    views: tuple[TokenView, ...]

    def html(self) -> str:
        """All the views as one piece of static HTML."""
        return CHIPS_CSS + VIEWER_CSS + "".join(view.html(css=False) for view in self.views)

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        return "\n".join(map(repr, self.views))


def compare(
    text: str, tokenizers: Iterable[Any] | Mapping[str, Any] = DEFAULT_TOKENIZERS
) -> TokenViews:
    """The same text under several tokenizers; a mapping gives each one a label.

    >>> [view.n_tokens for view in compare("Hello world", ["gpt2", "o200k_base"]).views]
    [2, 2]
    """
    if isinstance(tokenizers, Mapping):
        return TokenViews(
            tuple(token_view(text, tok, label=label) for label, tok in tokenizers.items())
        )
    return TokenViews(tuple(token_view(text, tokenizer) for tokenizer in tokenizers))


def error_html(name: str, error: Exception) -> str:
    """What a view shows instead of chips when the tokenizer refuses the text."""
    message = html.escape(f"{name} cannot encode this text: {type(error).__name__}: {error}")
    return f'<div class="tfs-tokview-error">{message}</div>'


class TokenViewer(StaticFallback, widgets.VBox):
    """A text box, a menu of tokenizers and the token view of the text under the chosen one.

    ``text`` and ``tokenizer`` (the menu's label) can be set from code; ``view`` is the
    :class:`TokenView` shown (None if that tokenizer refused the text). Displayed, it is
    preceded by a static copy of every tokenizer's view, which the widget hides once it renders
    (``book.show.fallback``).
    """

    def __init__(
        self,
        text: str = "",
        tokenizers: Iterable[Any] | Mapping[str, Any] = DEFAULT_TOKENIZERS,
        *,
        rows: int = 3,
    ) -> None:
        pairs = tokenizers.items() if isinstance(tokenizers, Mapping) else map(load, tokenizers)
        self._tokenizers: dict[str, Any] = dict(pairs)
        if not self._tokenizers:
            raise ValueError("TokenViewer needs at least one tokenizer, e.g. ['o200k_base']")
        self._views: dict[str, TokenView | None] = {}
        self._text = ""
        # "auto", not "100%": the widget's own margins would make it wider than the page.
        self._text_box = widgets.Textarea(
            rows=rows, placeholder="type a text", layout=widgets.Layout(width="auto")
        )
        self._menu = widgets.Dropdown(options=list(self._tokenizers), description="tokenizer")
        self._html = [widgets.HTML() for _ in self._tokenizers]
        self._stack = stack(self._html, selected_index=0)
        # A browser-side link: the menu switches views in the static book, where no kernel runs.
        self._link = widgets.jslink((self._menu, "index"), (self._stack, "selected_index"))
        style = widgets.HTML(CHIPS_CSS + VIEWER_CSS + HIDE_STATIC_CSS + STACK_CSS)
        super().__init__([style, self._text_box, self._menu, self._stack])
        self._owned = [self._link, *self._html, self._stack, self._menu, self._text_box, style]
        self.text = text
        self._text_box.observe(self._on_text_typed, names="value")

    @property
    def text(self) -> str:
        """The text shown; setting it encodes it with every tokenizer of the menu."""
        return self._text

    @text.setter
    def text(self, text: str) -> None:
        self._text = text
        self._text_box.value = text
        for (name, tokenizer), output in zip(self._tokenizers.items(), self._html):
            try:
                view = token_view(text, tokenizer, label=name)
            except Exception as error:  # shown in the view: a callback's error would be lost
                self._views[name] = None
                output.value = error_html(name, error)
            else:
                self._views[name] = view
                output.value = view.html(css=False)

    @property
    def tokenizer(self) -> str:
        """The label of the tokenizer shown."""
        return self._menu.value

    @tokenizer.setter
    def tokenizer(self, name: str) -> None:
        if name not in self._tokenizers:
            raise ValueError(
                f"no tokenizer {name!r} in the menu; choose one of {list(self._tokenizers)}"
            )
        self._menu.value = name
        # Set the Stack too: with no browser attached (tests, the book's build) the link is idle.
        self._stack.selected_index = self._menu.index

    @property
    def view(self) -> TokenView | None:
        """The view shown, or None if the chosen tokenizer refused the text."""
        return self._views[self.tokenizer]

    @property
    def view_html(self) -> str:
        """The HTML shown for the chosen tokenizer."""
        return self._html[self._menu.index].value

    def static_html(self) -> str:
        """The page's copy for readers whose browser runs no widget: the text under each one."""
        views = "".join(output.value for output in self._html)
        return CHIPS_CSS + VIEWER_CSS + fallback_html(views, NEEDS_JS)

    def close(self) -> None:
        """Close this widget and every widget it made, the link included."""
        # getattr: ipywidgets also calls close() on a viewer whose __init__ raised.
        for widget in getattr(self, "_owned", []):
            widget.close()
        super().close()

    def _on_text_typed(self, change: dict) -> None:
        """Re-encode when the reader edits the text box (the setter also writes the box)."""
        if change["new"] != self._text:
            self.text = change["new"]


def token_viewer(
    text: str = "", tokenizers: Iterable[Any] | Mapping[str, Any] = DEFAULT_TOKENIZERS
) -> TokenViewer:
    """A :class:`TokenViewer`; display it as the cell's result."""
    return TokenViewer(text, tokenizers)
