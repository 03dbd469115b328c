"""Printed lines that fit the page: the book's column, and long lines wrapped to it.

The rendered book's code and output blocks hold :data:`COLUMN` characters (79) at a desktop
width, so a chapter prints nothing wider. :func:`print_wrapped` prints like ``print`` and
breaks a longer line at a space, never inside a quoted string: a list of tokens such as
``[' the', ' and']`` stays readable, and each token stays whole on one line. Continuation
lines are indented, so a reader sees where a line was broken.

    >>> print_wrapped("merged:", [" the", " and", " of"], width=20)
    merged: [' the',
        ' and', ' of']
"""

from __future__ import annotations

import unicodedata

COLUMN = 79  # characters in a code or output block of the rendered book at 1280 px
INDENT = "    "  # before each continuation line
QUOTES = "'\""
# A quote opens a string literal after one of these (or at the start), as in a repr; a
# closing quote is followed by one of them (or the end). An apostrophe inside a word does not.
BEFORE_STRING = " ([{,:=|"
AFTER_STRING = " )]},:;|"
PREFIXES = "bBrRuUfF"


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: wide (East Asian, most emoji) characters
    take two, combining marks and format characters (joiners, selectors) none.

    >>> display_width("naïve"), display_width("日本"), display_width("👍🏽")
    (5, 4, 4)
    """
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Cf", "Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def _opens_string(line: str, i: int) -> bool:
    """Whether the quote at ``line[i]`` can open a string literal (by what precedes it)."""
    start = i - 1 if i > 0 and line[i - 1] in PREFIXES else i
    return start == 0 or line[start - 1] in BEFORE_STRING


def _closing_quote(line: str, i: int) -> int | None:
    """Where the string literal opened at ``line[i]`` ends, or None if nothing closes it."""
    quote, j = line[i], i + 1
    while j < len(line):
        if line[j] == "\\":
            j += 2
            continue
        if line[j] == quote and (j + 1 == len(line) or line[j + 1] in AFTER_STRING):
            return j
        j += 1
    return None


def break_points(line: str) -> list[int]:
    """Positions of the spaces in ``line`` where it may be broken: those outside string
    literals.

    >>> break_points("e.g. ['a b', 'c']")
    [4, 12]
    >>> break_points("don't stop")  # an apostrophe opens no string
    [5]
    """
    points, i = [], 0
    while i < len(line):
        char = line[i]
        if char == " ":
            points.append(i)
        elif char in QUOTES and _opens_string(line, i):
            end = _closing_quote(line, i)
            if end is not None:
                i = end
        i += 1
    return points


def wrap_line(line: str, width: int = COLUMN, indent: str = INDENT) -> list[str]:
    """One line broken at its break points into lines of at most ``width`` columns; a
    piece longer than that on its own stays whole on its own line.

    >>> wrap_line("one two three", width=8, indent="  ")
    ['one two', '  three']
    """
    if display_width(line) <= width:
        return [line]
    # Words and the run of break spaces before each: "a  b" -> ("", "a"), ("  ", "b").
    words: list[tuple[str, str]] = []
    start, gap = 0, ""
    for point in break_points(line):
        if point == start and words:  # one more space of a run
            gap += " "
        else:
            words.append((gap, line[start:point]))
            gap = " "
        start = point + 1
    words.append((gap, line[start:]))
    lines, current = [], words[0][1]
    for gap, word in words[1:]:
        if display_width(current) + len(gap) + display_width(word) <= width or not current.strip():
            current += gap + word
        else:
            lines.append(current)
            current = indent + word
    return [*lines, current]


def wrap(text: str, width: int = COLUMN, indent: str = INDENT) -> str:
    """``text`` with every line longer than ``width`` columns wrapped (see :func:`wrap_line`).

    >>> wrap("short\\n" + "x " * 6, width=6)
    'short\\nx x x\\n    x\\n    x\\n    x '
    """
    return "\n".join(
        wrapped for line in text.split("\n") for wrapped in wrap_line(line, width, indent)
    )


def print_wrapped(*values: object, sep: str = " ", width: int = COLUMN) -> None:
    """Print ``values`` as ``print`` does, each line wrapped to ``width`` columns."""
    print(wrap(sep.join(map(str, values)), width))
