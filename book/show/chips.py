"""Render a segmentation as HTML "chips": one coloured span per token.

Used by the merge stepper and the token viewer. The input is just a sequence of pieces
(``str`` tokens or ``bytes`` tokens) and optional ids; the output is a self-contained HTML
string, so it works in Jupyter, in a widget, and in the static book alike.

    >>> out = chips_html(["hu", "g</w>"])
    >>> "hu" in out and "&lt;/w&gt;" in out
    True
"""

from __future__ import annotations

import html
import zlib
from collections.abc import Collection, Sequence

from book.tokenizers.bpe.char_bpe import END_OF_WORD

Piece = str | bytes

# Chip backgrounds (figures use book.show.plots.PALETTE, which must carry lines, not black text).
# Paul Tol's "light" scheme: designed to stay distinguishable for colour-blind readers and to
# carry black text. Pale grey is left out (it reads as "disabled"), and so is olive, too close
# to pear for readers with red-green colour blindness.
CHIP_COLORS: tuple[str, ...] = (
    "#77AADD",  # light blue
    "#EE8866",  # orange
    "#EEDD88",  # light yellow
    "#FFAABB",  # pink
    "#99DDFF",  # light cyan
    "#44BB99",  # mint
    "#BBCC33",  # pear
)

# Characters that would be invisible (or would break the layout) get a visible stand-in.
# Every other C0 control character becomes its Unicode "control picture" (U+2400 + code).
VISIBLE_WHITESPACE: dict[str, str] = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍", "\u00a0": "⍽"}

# Zero-width characters change how text renders (a ZWJ glues emoji into one glyph) while
# showing nothing; a tokenizer sees them as code points like any other, so the chips name them.
ZERO_WIDTH: dict[str, str] = {
    "\u200b": "ZWSP",
    "\u200c": "ZWNJ",
    "\u200d": "ZWJ",
    "\u2060": "WJ",
    "\ufeff": "BOM",
}

# One style sheet for every chip, so each chip only carries a class and its colour.
# Class names are prefixed "tfs-" (Tokenization from Scratch) so they never clash with a theme.
CHIPS_CSS = """<style>
.tfs-chips{display:flex;flex-wrap:wrap;gap:3px 2px;align-items:baseline;
  font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:14px;line-height:1.9}
.tfs-chip{color:#111;padding:1px 4px;border-radius:4px;border:1px solid rgba(0,0,0,.25);
  white-space:pre}
.tfs-chip.tfs-hl{outline:2px solid #111;outline-offset:1px;font-weight:700}
.tfs-ws,.tfs-eow{color:#555}
.tfs-eow{font-size:75%;margin-left:1px}
.tfs-eow.tfs-solo{font-size:100%;margin-left:0}
.tfs-hex{font-size:85%;color:#333}
.tfs-zw{font-size:65%;color:#555;border:1px dotted #777;border-radius:2px;padding:0 1px}
.tfs-id{font-size:70%;color:#333;margin-left:3px;vertical-align:sub}
.tfs-br{flex-basis:100%;height:0}
</style>"""


def color_index(key: int | Piece, n_colors: int = len(CHIP_COLORS)) -> int:
    """Palette slot for a token: from its id if known, else a stable hash of the piece.

    >>> color_index(9), color_index("hu") == color_index("hu")
    (2, True)
    """
    if isinstance(key, int):
        return key % n_colors
    # crc32, not hash(): Python salts str hashes per process, and colours must not change.
    data = key if isinstance(key, bytes) else key.encode("utf-8")
    return zlib.crc32(data) % n_colors


def visible_text(text: str) -> str:
    """HTML for ``text`` with whitespace, zero-width and control characters made visible.

    >>> visible_text("a b\\n")
    'a<span class="tfs-ws">·</span>b<span class="tfs-ws">↵</span>'
    >>> visible_text("\\u200d")
    '<span class="tfs-ws tfs-zw">ZWJ</span>'
    """
    parts = []
    for char in text:
        if char in ZERO_WIDTH:
            parts.append(f'<span class="tfs-ws tfs-zw">{ZERO_WIDTH[char]}</span>')
            continue
        if char in VISIBLE_WHITESPACE:
            stand_in = VISIBLE_WHITESPACE[char]
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            stand_in = chr(0x2400 + ord(char)) if ord(char) < 0x20 else "␡"
        else:
            parts.append(html.escape(char))
            continue
        parts.append(f'<span class="tfs-ws">{stand_in}</span>')
    return "".join(parts)


def hex_label(data: bytes) -> str:
    """Bytes as a hex label, for pieces that are not whole UTF-8 text.

    >>> hex_label(b"\\xe4\\xbd")
    '<e4 bd>'
    """
    return "<" + " ".join(f"{byte:02x}" for byte in data) + ">"


def piece_html(piece: Piece) -> str:
    """The inside of one chip: text with visible whitespace, a marked ``</w>``, or hex.

    >>> piece_html("g</w>")
    'g<span class="tfs-eow">&lt;/w&gt;</span>'
    >>> piece_html(b"\\xe4\\xbd")
    '<span class="tfs-hex">&lt;e4 bd&gt;</span>'
    """
    if isinstance(piece, bytes):
        try:
            piece = piece.decode("utf-8")
        except UnicodeDecodeError:
            # A byte-level token can hold part of a character; decoding it would only show
            # a replacement character and hide which bytes it is.
            return f'<span class="tfs-hex">{html.escape(hex_label(piece))}</span>'
    # Character-level BPE's end-of-word marker, made smaller so the word stays readable.
    if piece.endswith(END_OF_WORD):
        body = visible_text(piece[: -len(END_OF_WORD)])
        # A marker standing alone as a token is shown full size, or the chip would be a sliver.
        classes = "tfs-eow" if body else "tfs-eow tfs-solo"
        return f'{body}<span class="{classes}">{html.escape(END_OF_WORD)}</span>'
    return visible_text(piece)


def piece_title(piece: Piece, token_id: int | None = None) -> str:
    """Tooltip text for a chip: the exact piece (Python repr) and its id if known.

    >>> piece_title("hu", 7)
    "id 7: 'hu'"
    """
    return repr(piece) if token_id is None else f"id {token_id}: {piece!r}"


def chip_html(
    piece: Piece, token_id: int | None = None, highlight: bool = False, color: int | None = None
) -> str:
    """One token as a coloured ``<span>``, with its id as a subscript if given.

    ``color`` is a palette slot; by default it comes from the id, or else from the piece.
    """
    if color is None:
        color = color_index(piece if token_id is None else token_id)
    classes = "tfs-chip tfs-hl" if highlight else "tfs-chip"
    id_html = "" if token_id is None else f'<span class="tfs-id">{token_id}</span>'
    title = html.escape(piece_title(piece, token_id), quote=True)
    return (
        f'<span class="{classes}" style="background:{CHIP_COLORS[color]}" title="{title}">'
        f"{piece_html(piece)}{id_html}</span>"
    )


def ends_line(piece: Piece) -> bool:
    """Whether a piece ends with a newline, so the next chip belongs on a new line."""
    return piece.endswith(b"\n" if isinstance(piece, bytes) else "\n")


def chips_html(
    pieces: Sequence[Piece],
    ids: Sequence[int] | None = None,
    highlight: Collection[int] = (),
    *,
    break_lines: bool = True,
    css: bool = True,
) -> str:
    """A segmentation as a row of chips; ``highlight`` holds positions to outline.

    Set ``css=False`` when the page already holds :data:`CHIPS_CSS` (e.g. many views at once).

    >>> chips_html(["a", " b"], css=False).count('class="tfs-chip"')
    2
    """
    if ids is not None and len(ids) != len(pieces):
        raise ValueError(f"got {len(pieces)} pieces but {len(ids)} ids: pass one id per piece")
    highlight = set(highlight)
    chips = []
    previous_color = None
    for position, piece in enumerate(pieces):
        token_id = None if ids is None else ids[position]
        color = color_index(piece if token_id is None else token_id)
        # Same token, same colour, except that neighbours never share one: the eye must see
        # where one token ends and the next begins.
        if color == previous_color:
            color = (color + 1) % len(CHIP_COLORS)
        chips.append(chip_html(piece, token_id, position in highlight, color))
        previous_color = color
        if break_lines and ends_line(piece):
            chips.append('<span class="tfs-br"></span>')
    return (CHIPS_CSS if css else "") + f'<div class="tfs-chips">{"".join(chips)}</div>'
