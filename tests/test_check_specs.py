"""Every spec of every chapter and of the demo exercise: the reference earns full points and each
known mistake (the chapter's nearest cell among them, where the task is a variant) earns 0, from
the check cell's path and from the judge's, on every seed 1-20; the hint names the mistake."""

from __future__ import annotations

import functools
import importlib
import random

import pytest

from book.checks.spec import TaskSpec
from book.grading.calls import judge_in_process

CHAPTERS = ("ch01", "ch02", "ch03", "ch04", "ch05", "ch06", "ch07", "ch08", "ch09", "ch10", "demo")
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
    mistake = spec.mistakes[k]
    result = checked(spec, mistake.function, seed)
    assert result.points == 0, result.line
    grade = judged(spec, mistake.function, seed)
    assert grade.points == 0, grade.message
    assert mistake.says in result.line and mistake.says in grade.message
