"""A chapter's graded tasks as declarative specs: the check cell, the judge and the tests derive
from them.

A chapter's check module declares one :class:`TaskSpec` per task (its reference, its groups of
visible and hidden cases with their points, its known mistakes as code, its hint), then
``SPECS`` and ``check, judge_tasks = checks_of(SPECS)``. ``check(name, answer)`` prints the
check cell's line; ``judge_tasks(rng)`` gives the judge (``python -m book.grade``) a :class:`Task`
per spec: the names the learner defines, the calls to make on them (the visible cases, then
hidden ones drawn from ``rng``) and their expected values, computed here, in the judge's
process, by the reference. Only the calls' expressions and arguments are sent into the
learner's kernel; expected values never are. ``book/checks/demo.py`` is the smallest example.

>>> double = TaskSpec(
...     "double",
...     lambda x: 2 * x,
...     (Group("examples", 1, lambda: [((2,), ""), ((5,), "odd")]),
...      Group("random", 1, hidden=lambda rng: [((rng.randint(6, 9),), "random")])),
...     (Mistake("double is twice x, not x squared", lambda x: x * x),),
...     "add x to itself.",
... )
>>> [(call.label, call.expected, call.hidden) for call in double.task(random.Random(1)).calls]
[('double(2)', 4, False), ('double(5) [odd]', 10, False), ('double(7) [random]', 14, True)]
>>> double.result(lambda x: x * x).line
'✘ double: groups passed: none; failed: examples, random — double(5) [odd] — expected 10, got \
25. Hint: double is twice x, not x squared — 0/2 points'
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from IPython.utils.capture import capture_output

from book.checks.core import Compare, Result, equal, fail_line, pass_line, report, unusable
from book.checks.outcomes import Raises, score

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
    group: str = ""  # the group of cases it belongs to (a task's points are given by group)
    mistaken: tuple = ()  # what each of the task's known mistakes returns for it


@dataclass(frozen=True)
class Task:
    """One graded task as the judge gets it: what the learner defines, the calls, and the
    points split over named groups (a task's points are those of its groups whose every call
    passed); ``mistakes`` is what the hint says for each known mistake.

    ``setup`` is Python source the judge runs in the learner's kernel before the calls (a
    spec's probe); it may only use the standard library. ``data`` holds plain values the calls
    and setup share.
    """

    name: str
    points: int
    answers: tuple[str, ...]
    calls: list[Call]
    groups: tuple[tuple[str, int], ...]  # (name, points)
    mistakes: tuple[str, ...] = ()
    hint: str = ""
    compare: Compare = equal
    setup: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A call outside the groups would cost nothing, and points outside them nobody earns.
        names = {name for name, _ in self.groups}
        if sum(points for _, points in self.groups) != self.points or not names:
            raise ValueError(f"{self.name}: its {self.points} points must be split over groups")
        if {call.group for call in self.calls} - names:
            raise ValueError(f"{self.name}: every call must belong to one of {sorted(names)}")


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


# --- a task as one declarative spec: the check cell, the judge's Task and the tests derive from it

# A case is (arguments, what it targets): the note is shown in the case's label.
Cases = list[tuple[tuple, str]]


@dataclass(frozen=True)
class Mistake:
    """A known mistake, as code: ``says`` is the hint when a learner's outputs agree with it.

    ``says`` names the misconception ("your tie-break compares the joined strings, not the
    pairs"); it never shows the answer's code.
    """

    says: str
    function: Callable
    part: str = ""  # the group (part of the statement) it breaks, where it breaks only one


@dataclass(frozen=True)
class Group:
    """A named group of cases worth ``points``: a task's points are the sum of its groups whose
    every case passes. ``cases()`` are the visible cases, ``(arguments, what it targets)``;
    ``hidden(rng)`` draws more (targeted: ties, overlaps, empty input...), which the judge keeps
    hidden and the check cell draws from a fixed rng. In a task with a probe, ``probe`` names
    the function of the probe's source that the group's cases call: a part that judges one
    stated property (the arguments left unchanged) can look at it while the others do not."""

    name: str
    points: int
    cases: Callable[[], Cases] = list
    hidden: Callable[[random.Random], Cases] | None = None
    probe: str = "probe"


@dataclass(frozen=True)
class TaskSpec:
    """One graded task, declared once: the learner defines ``name``; ``reference`` gives the
    expected values (from ``book.tokenizers`` where the step exists there); ``groups`` split the
    points; ``mistakes`` are the known mistakes the hint names (at least three).

    ``probe`` is Python source defining ``probe(answer, *args)``, for a task whose answer is
    judged on more than its return value (an argument changed in place, the work it did): it
    runs in the learner's kernel, so it may only use the standard library, and keeps what it
    counts out of the answer's reach (``book.checks.sealed``). Without it, a case calls
    ``answer(*args)``.
    """

    name: str
    reference: Callable
    groups: tuple[Group, ...]
    mistakes: tuple[Mistake, ...]
    hint: str
    compare: Compare = equal
    probe: str = ""

    @property
    def points(self) -> int:
        """The task's points: the sum of its groups'."""
        return sum(group.points for group in self.groups)

    def runner(self, function: Callable, probe: str = "probe") -> Callable:
        """function as a case calls it: through the probe (the function of that name in the
        probe's source) when there is one."""
        if not self.probe:
            return function
        names: dict[str, Any] = {}
        exec(compile(self.probe, f"<probe of {self.name}>", "exec"), names)
        return lambda *args: names[probe](function, *args)

    def runners(self, function: Callable) -> dict[str, Callable]:
        """function as each group's cases call it, by group name."""
        return {group.name: self.runner(function, group.probe) for group in self.groups}

    def _calls(self, group: Group, cases: Cases, hidden: bool) -> list[Call]:
        """The calls of cases, each with the reference's and every known mistake's outcome."""
        functions = [self.reference] + [m.function for m in self.mistakes]
        run = [self.runner(function, group.probe) for function in functions]
        calls = []
        for args, note in cases:
            outcomes = [expect(function, *copy.deepcopy(args)) for function in run]
            expr = call_expr(self.name, len(args))
            if self.probe:  # probe(answer, a0, a1, ...)
                expr = f"{group.probe}({self.name}{''.join(f', a{i}' for i in range(len(args)))})"
            label = case_label(self.name, args, note)
            calls.append(
                Call(label, expr, args, outcomes[0], hidden, group.name, tuple(outcomes[1:]))
            )
        return calls

    def calls(self, rng: random.Random) -> list[Call]:
        """Every case of every group: the visible ones, then those drawn from rng."""
        calls = []
        for group in self.groups:
            calls += self._visible(group)
            if group.hidden:
                calls += self._calls(group, group.hidden(rng), True)
        return calls

    def _visible(self, group: Group) -> list[Call]:
        """The visible calls of a group, computed once."""
        key = (self.name, group.name)
        if key not in _VISIBLE:
            cases = group.cases()
            _VISIBLE[key] = self._calls(group, cases, False) if cases else []
        return _VISIBLE[key]

    def task(self, rng: random.Random) -> Task:
        """The judge's Task: the calls (expected values stay in the judge), groups and hint."""
        return Task(
            self.name,
            self.points,
            (self.name,),
            self.calls(rng),
            tuple((group.name, group.points) for group in self.groups),
            tuple(mistake.says for mistake in self.mistakes),
            self.hint,
            self.compare,
            self.probe,
        )

    def result(self, answer: Any, rng: random.Random | None = None) -> Result:
        """The check cell's verdict on answer: the same calls and scoring as the judge's, with
        the hidden cases drawn from rng (a fixed one by default)."""
        return self.result_on(self.task(rng or random.Random(0)), answer)

    def result_on(self, task: Task, answer: Any, memo: dict | None = None) -> Result:
        """The check cell's verdict on answer for the calls of task (one of this spec's).

        ``memo`` (for tests that judge one answer on many seeds) keeps each call's outcome by
        the call's identity: the visible calls are the same objects whatever the seed.
        """
        problem = unusable(task.name, task.points, self.name, answer)
        if problem:
            return problem
        runs = self.runners(answer)
        made = []
        memo = {} if memo is None else memo
        for call in task.calls:
            if id(call) not in memo:
                memo[id(call)] = _outcome(runs[call.group], call.args)
            made.append((call, memo[id(call)]))
            if made[-1][1].get("raised", [""])[:1] == ["NotImplementedError"]:
                break
        scored = score(task, made)
        if not scored.failed:
            line = pass_line(task.name, len(task.groups), len(task.calls), task.points)
        else:
            line = fail_line(task.name, scored.summary(), scored.points, task.points)
        return Result(task.name, scored.points, task.points, line)

    def check(self, answer: Any) -> None:
        """Print the check cell's one line."""
        report(self.result(answer))


_VISIBLE: dict[tuple[str, str], list[Call]] = {}


def _outcome(function: Callable, args: tuple) -> dict:
    """function(*args) as the harness reports it: {'ok': value} or {'raised': classes, ...}."""
    try:
        with capture_output():  # the learner's prints would break the stored line
            return {"ok": function(*copy.deepcopy(args))}
    except Exception as error:  # not BaseException: KeyboardInterrupt must stop the cell
        return {"raised": [c.__name__ for c in type(error).__mro__], "message": str(error)}


def case_label(name: str, args: tuple, note: str = "") -> str:
    """How a case reads: name(args) [what it targets]."""
    return f"{name}({', '.join(map(short_arg, args))})" + (f" [{note}]" if note else "")


def short_arg(value: Any) -> str:
    """A short label for a big argument: its first items and how many there are."""
    if isinstance(value, dict) and len(value) > 3:
        first = ", ".join(f"{k!r}: {v!r}" for k, v in list(value.items())[:2])
        return f"{{{first}, … {len(value)} items}}"
    if isinstance(value, list) and len(value) > 4:
        return f"[{', '.join(map(repr, value[:3]))}, … {len(value)} items]"
    text = repr(value)
    return text if len(text) <= 70 else text[:69] + "…"


def checks_of(specs: Sequence[TaskSpec]) -> tuple[Callable, Callable]:
    """(check, judge_tasks) of a chapter whose tasks are specs: ``check(name, answer)`` prints a
    check cell's line; ``judge_tasks(rng)`` gives the judge its Tasks."""
    by_name = {spec.name: spec for spec in specs}

    def check(name: str, answer: Any) -> None:
        """Print the check line of task name for answer (None: not defined)."""
        by_name[name].check(answer)

    def judge_tasks(rng: random.Random) -> list[Task]:
        """The chapter's tasks for the judge, hidden cases drawn from rng."""
        return [spec.task(rng) for spec in specs]

    return check, judge_tasks


def drawn_until_caught(
    rng: random.Random,
    draw: Callable,
    spec: TaskSpec,
    at_least: int = 3,
    tries: int = 200,
    group: str = "",
) -> Cases:
    """Cases drawn with draw(rng) until every known mistake of spec differs from the reference
    on one of them (at least at_least cases): hidden cases targeted by construction. A mistake
    that breaks one part only (a forgotten error, say) is left to that part's cases, unless
    that part is group, the one drawn for."""
    run = [spec.runner(spec.reference)] + [spec.runner(m.function) for m in spec.mistakes]
    cases: Cases = []
    missed = {k for k, m in enumerate(spec.mistakes, 1) if m.part in ("", group)}
    for _ in range(tries):
        args = draw(rng)
        outcomes = [expect(function, *copy.deepcopy(args)) for function in run]
        caught = {k for k in missed if outcomes[k] != outcomes[0]}
        if caught or len(cases) < at_least:
            cases.append((args, "random"))
            missed -= caught
        if not missed and len(cases) >= at_least:
            return cases
    raise RuntimeError(f"{spec.name}: no drawn case catches mistakes {sorted(missed)}")


def examples_and_drawn(
    name: str,
    reference: Callable,
    examples: tuple[Callable[[], Cases], int],
    drawn: tuple[str, int, Callable[[random.Random], tuple]],
    mistakes: tuple[Mistake, ...],
    hint: str,
    **options,
) -> TaskSpec:
    """A task of two groups: the examples, and cases drawn until they catch every mistake (but
    one that names the examples as the one part it breaks)."""
    cases, points = examples
    group, drawn_points, draw = drawn
    spec = TaskSpec(
        name,
        reference,
        (
            Group("the examples", points, cases),
            Group(
                group,
                drawn_points,
                hidden=lambda rng: drawn_until_caught(rng, draw, spec, group=group),
            ),
        ),
        mistakes,
        hint,
        **options,
    )
    return spec
