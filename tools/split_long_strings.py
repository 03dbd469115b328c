"""Split string literals that run past the notebook column into adjacent literals.

    python tools/split_long_strings.py WIDTH NOTEBOOK...

ruff formats notebook code to the column but never splits a string. This does, the way one
would by hand: a literal that crosses column WIDTH is cut at a space into two adjacent
literals (Python joins them), the second on the next line under the first; a literal outside
brackets is put in parentheses first. A split is kept only if the cell's syntax tree stays
exactly the same, so the code means what it meant. Comments and one-line docstrings that
cross the column are prose, and are wrapped; a trailing comment that pushes its line past the
column goes on a line of its own above it. make format-notebooks runs this between two ruff
formats: one at a width nothing reaches (each statement on one line, adjacent literals joined),
so literals are cut afresh each time, and one at the column.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import textwrap
import tokenize
from pathlib import Path

import nbformat

from book.notebooks import notebook_text
from book.setup_cell import is_setup_cell

DOCSTRING = re.compile(r'"""(?P<text>(?:(?!""").)+)"""')
TRAILING_COMMENT = re.compile(r"(?P<code>[^#'\"]*\S)  # (?P<comment>.*)")
CLOSING = re.compile(r"[,)\]}]*")
PREFIX = re.compile(r"^(?P<prefix>[rRbBfFuU]{0,2})(?P<quote>'|\")")


def cut_point(body: str, limit: int, is_f: bool) -> int | None:
    r"""Where to cut a literal's body (after a space or a ``\n``, else after a ``/`` as in a URL,
    before ``limit``), or None.

    >>> cut_point("ab cd", 4, False), cut_point("a\\nb", 4, False), cut_point("{a b}", 5, True)
    (3, 3, None)
    >>> cut_point("a.org/b/cd", 9, False)
    8
    """
    depth, best, slash = 0, None, None
    for index, char in enumerate(body[:limit]):
        if is_f and char == "{":
            depth += 1
        elif is_f and char == "}":
            depth -= 1
        elif depth == 0 and index > 0:
            after_space = char == " " and body[index - 1] != "\\"
            if after_space or (char == "n" and escaped(body, index - 1)):
                best = index + 1  # the space or the newline stays at the end of the first part
            elif char == "/":
                slash = index + 1  # a URL has no space: cut it after a slash
    best = best or slash
    return best if best and best < len(body) else None


def escaped(body: str, index: int) -> bool:
    r"""Whether the backslash at ``index`` starts an escape (an odd run of backslashes ends there).

    >>> escaped("a\\\\n", 2), escaped("a\\n", 1)
    (False, True)
    """
    run = len(body[: index + 1]) - len(body[: index + 1].rstrip("\\"))
    return body[index] == "\\" and run % 2 == 1


def split_line(source: str, width: int) -> str | None:
    """``source`` with the first literal that crosses ``width`` split, or None."""
    lines = source.splitlines(keepends=True)
    depth = 0
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    for token in tokens:
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        (row, col), (end_row, end_col) = token.start, token.end
        if token.type != tokenize.STRING or row != end_row:
            continue
        # A literal crosses the column itself, or only by the brackets and comma closing it.
        rest = lines[row - 1].rstrip("\n")[end_col:]
        if end_col + len(CLOSING.match(rest)[0]) <= width:
            continue
        match = PREFIX.match(token.string)
        if match is None or token.string[match.end() :].startswith(match["quote"] * 2):
            continue  # triple-quoted or unknown: leave it
        prefix, quote = match["prefix"], match["quote"]
        body = token.string[match.end() : -1]
        cut = cut_point(body, width - col - len(prefix) - 2, "f" in prefix.lower())
        if cut is None:
            continue
        line = lines[row - 1]
        indent = " " * (col + (0 if depth else 1))
        first, second = f"{prefix}{quote}{body[:cut]}{quote}", f"{prefix}{quote}{body[cut:]}{quote}"
        joined = f"{first}\n{indent}{second}"
        if not depth:
            joined = f"({joined})"
        lines[row - 1] = line[:col] + joined + line[end_col:]
        return "".join(lines)
    return None


def wrap_prose(source: str, width: int) -> str:
    """Wrap comment lines and one-line docstrings that cross ``width`` (they are prose)."""
    out = []
    for line in source.split("\n"):
        stripped, indent = line.lstrip(), line[: len(line) - len(line.lstrip())]
        if len(line) <= width:
            out.append(line)
        elif stripped.startswith("# ") and not stripped.startswith("# NBVAL"):
            out += textwrap.wrap(
                stripped[2:],
                width,
                initial_indent=indent + "# ",
                subsequent_indent=indent + "# ",
                break_long_words=False,
            )
        elif TRAILING_COMMENT.fullmatch(stripped):  # the comment goes above its line
            found = TRAILING_COMMENT.fullmatch(stripped)
            out += textwrap.wrap(
                found["comment"],
                width,
                initial_indent=indent + "# ",
                subsequent_indent=indent + "# ",
                break_long_words=False,
            )
            out.append(indent + found["code"])
        elif DOCSTRING.fullmatch(stripped):
            text = DOCSTRING.fullmatch(stripped)["text"]
            lines = textwrap.wrap(
                text,
                width - 3,
                initial_indent=indent + '"""',
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
            out += [*lines[:-1], lines[-1] + '"""']
        else:
            out.append(line)
    return "\n".join(out)


def split_cell(source: str, width: int) -> str:
    """Split every literal of a cell that crosses ``width``, keeping its syntax tree."""
    try:
        tree = ast.dump(ast.parse(source))
    except SyntaxError:
        return source  # IPython magics: leave the cell alone
    for _ in range(200):
        changed = split_line(source, width)
        if changed is None:
            break
        try:
            same = ast.dump(ast.parse(changed)) == tree
        except SyntaxError:
            same = False
        if not same:
            break
        source = changed
    return source


def main(argv: list[str]) -> int:
    """Split the long literals of each notebook's code cells; report how many cells changed."""
    width, paths = int(argv[0]), [Path(arg) for arg in argv[1:]]
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        changed = 0
        for cell in nb.cells:
            # The setup cell is book.setup_cell's to write (and hidden in the rendered book).
            if cell.cell_type == "code" and not is_setup_cell(cell):
                new = wrap_prose(split_cell(cell.source, width), width)
                changed += new != cell.source
                cell.source = new
        if changed:
            path.write_text(notebook_text(nb), encoding="utf-8")
            print(f"{path}: {changed} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
