"""One call's outcome against what was expected, and a task's points over its groups of cases.

The same code judges a call in the notebook's check cell and in the judge (``book.grading``):
an outcome is ``{"ok": value}`` or ``{"raised": [class names, most derived first], "message":
text}``, the form the grader's harness sends back from the learner's kernel.

>>> from book.checks.spec import Call
>>> call = Call("f(1)", "f(a0)", (1,), 2, group="examples")
>>> case_failure(call, {"ok": 3}, equal)
('wrong', 'f(1) — expected 2, got 3')
>>> difference([1, [2, 3]], [1, [2, 4]])
'at [1][1]: expected 3, got 4'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from book.checks.core import NOT_ATTEMPTED, Compare, equal, same, show

if TYPE_CHECKING:
    from book.checks.spec import Call, Task

BLOCKED = "ReferenceUnavailable"


@dataclass(frozen=True)
class Raises:
    """An expected error: the call must raise this exception class (or a subclass of it)."""

    name: str

    def __repr__(self) -> str:
        return f"raises {self.name}"


def difference(expected: Any, got: Any, where: str = "") -> str:
    """Where got first differs from expected: the index or key, expected, got.

    >>> difference({"a": 1}, {"a": 1, "b": 2}), difference((1,), [1])
    ("unexpected key 'b'", 'type list, not tuple')
    >>> difference(["kept"], ["changed"]), difference("the cat", "the cut")
    ("at [0]: expected 'kept', got 'changed'", "at [5]: expected 'a', got 'u'")
    """
    at = f"at {where}: " if where else ""
    if type(got) is not type(expected):
        return f"{at}type {type(got).__name__}, not {type(expected).__name__}"
    if isinstance(expected, (list, tuple, str, bytes)):
        for index, (e, g) in enumerate(zip(expected, got)):
            if not equal(g, e):
                if not isinstance(expected, (str, bytes)):
                    return difference(e, g, f"{where}[{index}]")
                if index:  # where texts that start alike part
                    return f"at {where}[{index}]: expected {show(e)}, got {show(g)}"
                return f"{at}expected {show(expected)}, got {show(got)}"
        return f"{at}{len(got)} items, not {len(expected)}"
    if isinstance(expected, dict):
        for key in expected:
            if key not in got:
                return f"{at}key {show(key, 40)} missing"
        for key in got:
            if key not in expected:
                return f"{at}unexpected key {show(key, 40)}"
            if not equal(got[key], expected[key]):
                return difference(expected[key], got[key], f"{where}[{show(key, 40)}]")
    return f"{at}expected {show(expected)}, got {show(got)}"


def mismatch(label: str, expected: Any, got: Any) -> str:
    """'label — expected X, got Y', and where they first differ when X and Y are containers or
    read the same."""
    detail = f"{label} — expected {show(expected)}, got {show(got)}"
    container = isinstance(expected, (list, tuple, dict, str, bytes)) and len(expected) > 1
    if show(got) == show(expected) or type(got) is not type(expected) or container:
        detail += f" ({difference(expected, got)})"
    return detail


def _raised(call: Call, result: dict) -> tuple[str, str]:
    """(error class, detail) for a call that raised where a value was expected."""
    classes, message = result["raised"], result["message"]
    name = classes[0] if classes else "?"
    if BLOCKED in classes:
        return "blocked", f"{call.label} used code that is not available while grading: {message}"
    text = show(message, 80) if message else "(no message)"
    return "raised", f"{call.label} raised {name}: {text}"


def case_failure(call: Call, result: dict, compare: Compare) -> tuple[str, str] | None:
    """None when the call's result is right, else (error class, detail)."""
    if result.get("raised", [""])[:1] == ["NotImplementedError"]:
        return "not attempted", NOT_ATTEMPTED
    expected = call.expected
    if isinstance(expected, Raises):
        if expected.name in result.get("raised", []):
            return None
        if "raised" in result:
            kind, detail = _raised(call, result)
            return kind, f"{detail} (expected {expected.name})"
        return (
            "wrong",
            f"{call.label} should raise {expected.name}, but returned {show(result['ok'])}",
        )
    if "raised" in result:
        return _raised(call, result)
    if same(compare, result["ok"], expected):
        return None
    return "wrong", mismatch(call.label, expected, result["ok"])


def known_mistake(task: Task, failing: list[tuple[Call, dict]], made=()) -> str:
    """What the known mistake says whose outputs agree with the learner's on every failing
    case, else ''. Where several do, the one that also agrees on most of the other cases made
    (a learner who catches some of what a mistake lets through made a narrower slip)."""

    def agrees(k: int, call: Call, result: dict) -> bool:
        return k < len(call.mistaken) and (
            case_failure(replace(call, expected=call.mistaken[k]), result, task.compare) is None
        )

    fitting = [
        k
        for k in range(len(task.mistakes))
        if all(agrees(k, call, result) for call, result in failing)
    ]
    if not fitting:
        return ""
    # max keeps the first of equals: the task's own order decides ties.
    best = max(fitting, key=lambda k: sum(agrees(k, call, result) for call, result in made))
    return task.mistakes[best]


@dataclass(frozen=True)
class Scored:
    """A task's points over its groups, and what to say: the first failure and the hint."""

    points: int
    passed: tuple[str, ...]
    failed: tuple[str, ...]
    kind: str = ""  # the first failure's class: wrong, raised, not attempted, hidden cases...
    detail: str = ""
    hint: str = ""

    def summary(self) -> str:
        """'groups passed: a, b; failed: c — <first failure>. Hint: <hint>' (or '' when all
        passed)."""
        if not self.failed:
            return ""
        if self.kind == "not attempted":
            return self.detail
        groups = f"groups passed: {', '.join(self.passed) or 'none'}; failed: "
        hint = f" Hint: {self.hint}" if self.hint else ""
        return f"{groups}{', '.join(self.failed)} — {self.detail}.{hint}"


def score(task: Task, made: list[tuple[Call, dict]]) -> Scored:
    """Points of the groups whose every case passed, the first failure and the diagnosis: the
    known mistake the failing outputs agree with, or the task's hint."""
    failures = []
    for call, result in made:
        failure = case_failure(call, result, task.compare)
        if failure and failure[0] == "not attempted":
            return Scored(0, (), tuple(name for name, _ in task.groups), *failure)
        if failure:
            failures.append((call, result, *failure))
    failed = {call.group for call, *_ in failures}
    passed = tuple(name for name, _ in task.groups if name not in failed)
    points = sum(points for name, points in task.groups if name not in failed)
    if not failures:
        return Scored(points, passed, ())
    shown = next((f for f in failures if not f[0].hidden), failures[0])
    call, _, kind, detail = shown
    if call.hidden:  # every visible case passed: what an answer written for them would do
        visible = any(not made_call.hidden for made_call, _ in made)
        kind = "hidden cases"
        detail = ("the visible cases pass, but " if visible else "") + f"hidden case {detail}"
    mistake = known_mistake(task, [(call, result) for call, result, *_ in failures], made)
    order = [name for name, _ in task.groups if name in failed]
    return Scored(points, passed, tuple(order), kind, detail, mistake or task.hint)
