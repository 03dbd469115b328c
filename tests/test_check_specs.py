"""Every spec of every chapter and of the demo exercise: the reference earns full points and each
known mistake (the chapter's nearest cell among them, where the task is a variant) earns 0, from
the check cell's path and from the judge's, on every seed 1-20 (a mistake that names the part it
breaks loses that part only); the hint names the mistake; no hint and no mistake's words show
code."""

from __future__ import annotations

import functools
import importlib
import random
import re

import pytest

from book.checks.spec import TaskSpec
from book.grading.calls import judge_in_process

CHAPTERS = (
    "ch01",
    "ch02",
    "ch03",
    "ch04",
    "ch05",
    "ch06",
    "ch07",
    "ch08",
    "ch09",
    "ch10",
    "ch11",
    "ch12",
    "demo",
)
# Seed 1 in make test-fast; seeds 2-20 in make test (marked slow).
SEEDS = [1, *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(2, 21))]
SPECS = [
    (chapter, spec)
    for chapter in CHAPTERS
    for spec in importlib.import_module(f"book.checks.{chapter}").SPECS
]
MISTAKES = [(chapter, spec, k) for chapter, spec in SPECS for k in range(len(spec.mistakes))]


def ids(item) -> str:
    return "-".join(str(part if not isinstance(part, TaskSpec) else part.name) for part in item)


@functools.cache
def task_of(spec: TaskSpec, seed: int):
    """spec's task on seed, drawn once per worker: drawing runs the reference and every known
    mistake on every case, which the reference's test and each mistake's test would repeat."""
    return spec.task(random.Random(seed))


# Each answer's outcome of each call, by path: the visible calls are the same on every seed,
# so an answer meets each of them once per worker, as a learner's would once per grading.
MEMO: dict[tuple, dict] = {}


def checked(spec: TaskSpec, answer, seed: int):
    """The check cell's verdict on answer, with the hidden cases of seed."""
    memo = MEMO.setdefault(("check", spec.name, answer), {})
    return spec.result_on(task_of(spec, seed), answer, memo)


def judged(spec: TaskSpec, answer, seed: int):
    """The judge's verdict on answer, called in this process."""
    memo = MEMO.setdefault(("judge", spec.name, answer), {})
    (grade,) = judge_in_process([task_of(spec, seed)], {spec.name: answer}, memo)
    return grade


@pytest.mark.parametrize("chapter, spec", SPECS, ids=map(ids, SPECS))
def test_spec_is_well_formed(chapter, spec):
    assert len(spec.mistakes) >= 3
    assert all(group.points > 0 for group in spec.groups)
    assert len({group.name for group in spec.groups}) == len(spec.groups)
    assert any(group.hidden for group in spec.groups)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("chapter, spec", SPECS, ids=map(ids, SPECS))
def test_the_reference_earns_full_points_on_every_seed(chapter, spec, seed):
    result = checked(spec, spec.reference, seed)
    assert result.points == spec.points, result.line
    grade = judged(spec, spec.reference, seed)
    assert grade.points == spec.points, grade.message


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("chapter, spec, k", MISTAKES, ids=map(ids, MISTAKES))
def test_each_known_mistake_earns_nothing_on_every_seed(chapter, spec, k, seed):
    # A mistake that names the part it breaks (a task graded by parts, issue 28) loses that
    # part's points and keeps the others; any other earns 0.
    mistake = spec.mistakes[k]
    points = {group.name: group.points for group in spec.groups}
    kept = spec.points - points[mistake.part] if mistake.part else 0
    result = checked(spec, mistake.function, seed)
    assert result.points == kept, result.line
    grade = judged(spec, mistake.function, seed)
    assert grade.points == kept, grade.message
    assert mistake.says in result.line and mistake.says in grade.message
    if mistake.part:
        assert f"failed: {mistake.part} —" in result.line


# A task's hint, shown when no known mistake matches, states the property the answer must have,
# in words: no lambda or def, no call (sorted(, ord(, .encode(), no keyword argument (key=,
# errors=), no regex escape (\p{N}, \w), group ((?=, (?:) or negated class.
HINT_CODE = re.compile(r"\blambda\b|\bdef \w|\w\(|\w=|\\[pPdDwWsSbBX]|\(\?[=!<:P]|\[\^")
# What a known mistake says names the mistake, which may be a construct the learner misused
# ("\w matches digits too", "errors='ignore' drops them"), but never code that solves the task:
# no lambda or def, no sort key, no regex built of groups, negated classes or repeated classes.
SAYS_CODE = re.compile(
    r"\blambda\b|\bdef \w|sorted\(|\bkey=|\(\?[=!<:P]|\[\^|\\[pP]\{\w+\}[+*]|\\[dDwWsS][+*]"
)
TEXTS = [
    pytest.param(text, code, id=f"{chapter}-{spec.name}-{which}")
    for chapter, spec in SPECS
    for which, text, code in [("hint", spec.hint, HINT_CODE)]
    + [(f"mistake {k}", mistake.says, SAYS_CODE) for k, mistake in enumerate(spec.mistakes)]
]


def test_code_is_recognised_and_prose_is_not():
    for code in ("lambda p: p[1]", "def f", "sorted(", "key=", "x.encode(", "ord(ch)"):
        assert HINT_CODE.search(code), code
    for regex in ("\\p{L}", "(?=\\S)", "(?:a)", "[^a]", "\\w+", "errors='replace'"):
        assert HINT_CODE.search(regex), regex
    for code in ("lambda p: p[1]", "sorted(", "key=", "(?=\\S)", "\\p{N}+", "\\w+", "[^a]"):
        assert SAYS_CODE.search(code), code
    prose = "return a new list: 'é' is one code point (U+00E9) and two bytes, like where[pair]"
    assert not HINT_CODE.search(prose)
    assert not SAYS_CODE.search("\\w matches digits and '_' too; errors='ignore' drops them")


@pytest.mark.parametrize("text, code", TEXTS)
def test_no_hint_and_no_mistake_shows_code(text, code):
    assert not code.search(text), f"{text!r} shows code: {code.search(text).group()!r}"
