"""tools/split_long_strings.py: literals past the notebook column are cut without changing code."""

import ast
import doctest

import pytest
from notebook_paths import load_tool

split = load_tool("split_long_strings")
WIDTH = 79

CELLS = [
    # no space to cut at: the cut falls after an escaped newline
    "def prompt(system: str, user: str) -> str:\n"
    '    return f"<|im_start|>system\\n{system}<|im_end|>\\n<|im_start|>user\\n{user}'
    '<|im_end|>\\n<|im_start|>assistant\\n"\n',
    # the literal ends inside the column; its comma alone crosses it
    "print_wrapped(\n"
    "    partial_top3,\n"
    '    f"Amharic: {amharic / english:.2f}x the tokens of English under o200k_base",\n'
    ")\n",
    # a URL: no space, cut after a slash
    'row = {\n    "URL": "https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct",\n}\n',
    # an ordinary sentence, outside brackets
    'x = "' + "word " * 20 + 'end"\n',
]


@pytest.mark.parametrize("cell", CELLS)
def test_a_long_literal_is_cut_into_the_column_and_means_the_same(cell):
    assert max(map(len, cell.splitlines())) > WIDTH
    out = split.split_cell(cell, WIDTH)
    assert max(map(len, out.splitlines())) <= WIDTH
    assert ast.dump(ast.parse(out)) == ast.dump(ast.parse(cell))


def test_an_escaped_backslash_before_n_is_no_place_to_cut():
    body = "a" * 10 + "\\\\n" + "b" * 10  # a backslash, then the letter n
    assert split.cut_point(body, 20, False) is None


def test_the_tools_examples():
    assert doctest.testmod(split).failed == 0
