"""Mutants of a Python function: the standard operators of mutation testing, one change each.

Each mutant changes one node of the function's syntax tree (Python's ``ast``), the way mutmut
and cosmic-ray do: a comparison's boundary flipped, an integer constant moved by one, ``and``
for ``or``, ``min`` for ``max``, a statement replaced by ``pass``, a condition made always true
or always false, a slice bound moved by one, two arguments of a call swapped, a ``not``
removed, ``+`` for ``-``, ``break`` for ``continue``. Mutants whose code reads the same as the
function's, or as an earlier mutant's, are dropped.

>>> def below(a, b):
...     return a < b and not b
>>> [(m.operator, m.change) for m in mutants_of(below)][1:3]
[('and/or', 'a < b and (not b) → a < b or not b'), ('comparison', 'a < b → a <= b')]
>>> compiled(mutants_of(below)[2])(0, 0), below(0, 0)
(True, False)
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# Each comparison and its boundary flip (or negation, for == and membership).
FLIPS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.And: ast.Or, ast.Or: ast.And}
NAMES = {"min": "max", "max": "min"}


@dataclass(frozen=True)
class Mutant:
    """One change to ``function``: where (file and line), which operator, what it became."""

    function: Callable
    path: str
    line: int
    operator: str
    change: str  # the changed node before and after: "a < b → a <= b"
    tree: ast.FunctionDef  # the mutated function's syntax tree

    @property
    def name(self) -> str:
        """module:qualname of the mutated function."""
        return f"{self.function.__module__}:{self.function.__qualname__}"


def _short(node: ast.AST, limit: int = 60) -> str:
    """A node's source on one line, cut at limit characters."""
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _replaced(node: ast.AST, **fields) -> ast.AST:
    """A copy of node with some fields replaced."""
    new = copy.deepcopy(node)
    for name, value in fields.items():
        setattr(new, name, value)
    return new


def _plus(bound: ast.expr, delta: int) -> ast.expr:
    """bound + 1 or bound - 1 as a node."""
    op = ast.Add() if delta > 0 else ast.Sub()
    return ast.BinOp(copy.deepcopy(bound), op, ast.Constant(1))


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def variants(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """(operator, replacement) for every mutation of node itself (not of its children)."""
    if isinstance(node, ast.stmt) and not isinstance(node, ast.Pass) and not _is_docstring(node):
        yield "statement removed", ast.Pass()
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in FLIPS:
                ops = [*node.ops[:i], FLIPS[type(op)](), *node.ops[i + 1 :]]
                yield "comparison", _replaced(node, ops=ops)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        yield "constant +1", ast.Constant(node.value + 1)
        yield "constant -1", ast.Constant(node.value - 1)
    if isinstance(node, ast.BoolOp):
        yield "and/or", _replaced(node, op=SWAPS[type(node.op)]())
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in (ast.Add, ast.Sub):
        yield "+/-", _replaced(node, op=SWAPS[type(node.op)]())
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NAMES:
        yield "min/max", _replaced(node, func=ast.Name(NAMES[node.func.id], ast.Load()))
    if isinstance(node, (ast.If, ast.IfExp)):
        yield "condition → True", _replaced(node, test=ast.Constant(True))
        yield "condition → False", _replaced(node, test=ast.Constant(False))
    if isinstance(node, ast.While):
        yield "condition → False", _replaced(node, test=ast.Constant(False))
    if isinstance(node, ast.comprehension):
        for i in range(len(node.ifs)):
            yield "condition removed", _replaced(node, ifs=node.ifs[:i] + node.ifs[i + 1 :])
    if isinstance(node, ast.Slice):
        for bound in ("lower", "upper"):
            value = getattr(node, bound)
            if value is not None and not isinstance(value, ast.Constant):  # constants: ±1
                yield "slice bound +1", _replaced(node, **{bound: _plus(value, 1)})
                yield "slice bound -1", _replaced(node, **{bound: _plus(value, -1)})
    if isinstance(node, ast.Call) and not any(isinstance(a, ast.Starred) for a in node.args):
        for i in range(len(node.args) - 1):
            args = [*node.args[:i], node.args[i + 1], node.args[i], *node.args[i + 2 :]]
            yield "arguments swapped", _replaced(node, args=args)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not removed", copy.deepcopy(node.operand)
    if isinstance(node, ast.Break):
        yield "break/continue", ast.Continue()
    if isinstance(node, ast.Continue):
        yield "break/continue", ast.Break()


class _Numbered(ast.NodeTransformer):
    """Visits nodes in a fixed pre-order and replaces the one numbered ``target``."""

    def __init__(self, target: int = -1, replacement: ast.AST | None = None):
        self.count, self.target, self.replacement = 0, target, replacement
        self.nodes: list[ast.AST] = []

    def visit(self, node: ast.AST) -> ast.AST:
        number = self.count
        self.count += 1
        self.nodes.append(node)
        if number == self.target:
            return self.replacement
        return self.generic_visit(node)


def function_tree(function: Callable) -> tuple[ast.FunctionDef, str, int]:
    """The function's syntax tree (lines numbered as in its file), its file and first line."""
    lines, first = inspect.getsourcelines(function)
    tree = ast.parse(textwrap.dedent("".join(lines))).body[0]
    if not isinstance(tree, ast.FunctionDef) or tree.decorator_list:
        raise ValueError(f"{function.__qualname__}: only an undecorated def can be mutated")
    ast.increment_lineno(tree, first - 1)
    return tree, inspect.getsourcefile(function) or "?", first


def mutants_of(function: Callable) -> list[Mutant]:
    """Every mutant of function, in the order of its nodes, without repeats."""
    tree, path, _ = function_tree(function)
    numbering = _Numbered()
    numbering.visit(copy.deepcopy(tree))
    seen, mutants = {ast.dump(tree)}, []
    for number, node in enumerate(numbering.nodes):
        if number == 0:  # the def itself: its body's statements are mutated one by one
            continue
        for operator, replacement in variants(node):
            mutated = _Numbered(number, replacement).visit(copy.deepcopy(tree))
            key = ast.dump(mutated)
            if key in seen:
                continue
            seen.add(key)
            line = getattr(node, "lineno", None) or _line_of(tree, number)
            change = f"{_short(node)} → {_short(replacement)}"
            mutants.append(Mutant(function, path, line, operator, change, mutated))
    return mutants


def _line_of(tree: ast.AST, number: int) -> int:
    """The line of the nearest node before node number that has one (operators, slices)."""
    numbering = _Numbered()
    numbering.visit(copy.deepcopy(tree))
    return next(n.lineno for n in reversed(numbering.nodes[: number + 1]) if hasattr(n, "lineno"))


def compiled(mutant: Mutant) -> types.FunctionType:
    """The mutated function, compiled into a copy of its module's namespace (a closure's free
    variables bound to the original's cells' contents)."""
    function = mutant.function
    namespace = dict(inspect.getmodule(function).__dict__)
    freevars = function.__code__.co_freevars
    body: ast.stmt = copy.deepcopy(mutant.tree)
    if freevars:  # def maker(free, vars): def f(...): ...; return f
        arguments = ast.arguments([], [ast.arg(v) for v in freevars], None, [], [], None, [])
        ret = ast.Return(ast.Name(body.name, ast.Load()))
        body = ast.FunctionDef("_maker", arguments, [body, ret], [], None, None, [])
    module = ast.fix_missing_locations(ast.Module([body], []))
    exec(compile(module, mutant.path, "exec"), namespace)
    if not freevars:
        return namespace[mutant.tree.name]
    return namespace["_maker"](*(cell.cell_contents for cell in function.__closure__))
