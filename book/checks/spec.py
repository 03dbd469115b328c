"""What a chapter's check module tells the judge: its tasks as data (see ``book.checks.core``).

The judge (``python -m book.grade``) never trusts a line the learner's kernel prints. It asks
each check module for :class:`Task` objects: the names the learner must define, the calls to
make on them (fixed cases, as in the notebook's check, plus hidden ones drawn at random), and
the expected results, computed here, in the judge's process, by the book's reference code.
Only the calls' expressions and arguments are sent into the learner's kernel; expected values
never are.

>>> task = function_task("double", 1, [(2,), (5,)], lambda x: 2 * x, hidden=[(7,)])
>>> [(call.label, call.expected, call.hidden) for call in task.calls]
[('double(2)', 4, False), ('double(5)', 10, False), ('double(7)', 14, True)]
>>> task.calls[0].expr
'double(a0)'
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from book.checks.core import Compare, call_label, equal

# Pieces hidden texts are built from: words, scripts, combining marks, emoji, digits, whitespace.
PIECES = (
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "Hello",
    "world",
    "naïve",
    "café",
    "cafe\u0301",
    "Straße",
    "Ωμέγα",
    "Привет",
    "мир",
    "日本語",
    "你好",
    "こんにちは",
    "안녕",
    "नमस्ते",
    "مرحبا",
    "שלום",
    "👍🏽",
    "👨‍👩‍👧",
    "🇫🇷",
    "🦙",
    "❤️",
    "1234",
    "3.14",
    "2024",
    "0",
    "don't",
    "it's",
    "I'M",
    "x=1;",
    "def",
    "(a, b)",
    "[]",
    "{}",
    "!",
    "?",
    ",",
    ".",
    "—",
    "'",
    '"',
    "#",
    "$",
)
SPACES = (" ", " ", " ", "  ", "\n", "\t", "\n\n", "   ", "\u00a0", "")


@dataclass(frozen=True)
class Raises:
    """An expected error: the call must raise this exception class (or a subclass of it)."""

    name: str

    def __repr__(self) -> str:
        return f"raises {self.name}"


@dataclass(frozen=True)
class Call:
    """One case: ``expr`` is evaluated in the learner's kernel with the arguments as a0, a1, ...

    ``expr`` may use the learner's answers, the task's ``data`` and the names its ``setup``
    defines; ``label`` is how the case reads in the report, ``expected`` stays in the judge.
    """

    label: str
    expr: str
    args: tuple = ()
    expected: Any = None
    hidden: bool = False


@dataclass(frozen=True)
class Task:
    """One graded task: what the learner defines, the calls, the points and the hint.

    ``setup`` is Python source the judge runs in the learner's kernel before the calls (to
    build arguments that are not plain data, such as functions); it may only use modules the
    exercise notebook may import. ``data`` holds plain values the calls and setup share.
    """

    name: str
    points: int
    answers: tuple[str, ...]
    calls: list[Call]
    hint: str = ""
    compare: Compare = equal
    setup: str = ""
    data: dict[str, Any] = field(default_factory=dict)


def expect(reference: Callable, *args: Any) -> Any:
    """reference(*args), or Raises(its error class) when it raises: for cases expecting an error.

    >>> expect(int, "12"), expect(int, "x")
    (12, raises ValueError)
    """
    try:
        return reference(*args)
    except ValueError:
        return Raises("ValueError")
    except Exception as error:  # a reference that raises something else: the learner must too
        return Raises(type(error).__name__)


def call_expr(name: str, n_args: int) -> str:
    """The expression that calls name with n_args arguments: call_expr('f', 2) -> 'f(a0, a1)'."""
    return f"{name}({', '.join(f'a{i}' for i in range(n_args))})"


def calls_of(
    name: str,
    args_list: Iterable[tuple],
    reference: Callable,
    hidden: bool = False,
    expr: str | None = None,
    label: Callable[[tuple], str] | None = None,
) -> list[Call]:
    """One Call per args tuple: name(*args), expected = expect(reference, *args)."""
    calls = []
    for args in args_list:
        if not isinstance(args, tuple):
            raise TypeError(f"the arguments of a case of {name} must be a tuple, like ({args!r},)")
        calls.append(
            Call(
                label(args) if label else call_label(name, args),
                expr or call_expr(name, len(args)),
                args,
                expect(reference, *args),
                hidden,
            )
        )
    return calls


def function_task(
    name: str,
    points: int,
    fixed: Sequence[tuple],
    reference: Callable,
    hidden: Sequence[tuple] = (),
    hint: str = "",
    compare: Compare = equal,
    answer: str | None = None,
) -> Task:
    """A task that calls one function of the learner's on fixed and hidden arguments."""
    answer = answer or name
    calls = calls_of(answer, fixed, reference) + calls_of(answer, hidden, reference, hidden=True)
    return Task(name, points, (answer,), calls, hint, compare)


def value_task(
    name: str,
    points: int,
    expected: Any,
    hint: str = "",
    compare: Compare = equal,
    answer: str | None = None,
) -> Task:
    """A task that reads one value the learner computed (no hidden inputs are possible)."""
    answer = answer or name
    return Task(name, points, (answer,), [Call(answer, answer, (), expected)], hint, compare)


def random_text(rng: random.Random, n_pieces: int = 12) -> str:
    """A made-up text of words, scripts, emoji, digits and whitespace runs, different per rng.

    >>> random_text(random.Random(1), 3) == random_text(random.Random(1), 3)
    True
    """
    return "".join(rng.choice(PIECES) + rng.choice(SPACES) for _ in range(n_pieces))


def window(rng: random.Random, text: str, size: int) -> str:
    """A random slice of text of (at most) size characters."""
    start = rng.randrange(max(len(text) - size, 0) + 1)
    return text[start : start + size]
