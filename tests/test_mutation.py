"""The mutation analysis's machinery (tools/mutation.py, tools/mutants.py): every operator is
made, a mutant that breaks a fixed case is killed by it, one that only the hidden cases meet is
killed by them, an equivalent one is recognised, a looping one is stopped, a mutated callee is
restored; and a fixed sample of each chapter's mutants runs against the fixed cases. Today's
adequacy is the table's business (make mutation), not this test's."""

from __future__ import annotations

import ast
import doctest
import functools
import random

import mutants
import mutation
import pytest
from mutants import compiled, function_tree, mutants_of
from mutation import TaskRun, callees, chapters, patched, sample, specs_of, task_mutants

from book.checks.spec import Group, TaskSpec


def clamp_reference(x: int) -> int:
    """x, or 0 for a negative x."""
    if x < 0:
        return 0
    return x


def count_down_reference(n: int) -> int:
    """How many steps take n down to 0."""
    steps = 0
    while n > 0:
        n -= 1
        steps += 1
    return steps


def every_operator(items: list[int], low: int, flag: bool) -> list[int]:
    """A function with one place for each operator."""
    kept = []
    for item in items:
        if item < low and not flag:
            continue
        if item > 99 or flag:
            break
        kept.append(min(item + 1, pow(item, 2)))
    return kept[1:-low]


def _spec(name, reference, cases, hidden) -> TaskSpec:
    return TaskSpec(name, reference, (Group("examples", 1, cases, hidden),), (), "")


CLAMP = _spec(
    "clamp",
    clamp_reference,
    lambda: [((5,), ""), ((-3,), ""), ((0,), "")],
    lambda rng: [((rng.randint(-9, 9),), "") for _ in range(5)],
)
COUNT_DOWN = _spec(
    "count_down",
    count_down_reference,
    lambda: [((3,), ""), ((0,), "")],
    lambda rng: [((rng.randint(0, 9),), "")],
)


def mutant(function, change):
    """function's first mutant that makes this change."""
    return next(m for m in mutants_of(function) if m.change == change)


def test_every_operator_is_made_once_per_place():
    made = [m.operator for m in mutants_of(every_operator)]
    assert set(made) == {
        "statement removed",
        "comparison",
        "constant +1",
        "constant -1",
        "and/or",
        "+/-",
        "min/max",
        "condition → True",
        "condition → False",
        "slice bound +1",
        "slice bound -1",
        "arguments swapped",
        "not removed",
        "break/continue",
    }
    # kept[1:-low]: the constant moves by one, the other bound too; both arguments of pow swap
    changes = [m.change for m in mutants_of(every_operator)]
    assert "1:-low → 1:-low + 1" in changes
    assert "pow(item, 2) → pow(2, item)" in changes
    trees = {ast.dump(m.tree) for m in mutants_of(every_operator)}
    assert len(trees) == len(changes) and ast.dump(function_tree(every_operator)[0]) not in trees


def test_the_tools_examples_hold():
    for module in (mutants, mutation):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_a_mutant_is_the_function_with_one_change():
    flipped = compiled(mutant(clamp_reference, "x < 0 → x <= 0"))
    assert [flipped(x) for x in (-1, 0, 1)] == [0, 0, 1]
    removed = compiled(mutant(clamp_reference, "return x → pass"))
    assert removed(4) is None and clamp_reference(4) == 4


def test_a_mutant_that_breaks_a_fixed_case_is_killed_by_it():
    verdict = TaskRun(CLAMP, inputs=200).verdict(mutant(clamp_reference, "return x → pass"))
    assert (verdict.kind, verdict.groups) == ("fixed", ("examples",))
    assert verdict.note == "clamp(5)"


def test_a_mutant_only_the_hidden_cases_meet_is_killed_by_them():
    # x < -1 answers -1 for -1, which no fixed case asks and the draws of seeds 1-5 do
    verdict = TaskRun(CLAMP, inputs=200).verdict(mutant(clamp_reference, "0 → -1"))
    assert (verdict.kind, verdict.groups) == ("hidden", ("examples",))


def test_an_equivalent_mutant_equals_the_reference_on_every_drawn_input():
    verdict = TaskRun(CLAMP, inputs=200).verdict(mutant(clamp_reference, "x < 0 → x <= 0"))
    assert (verdict.kind, verdict.inputs) == ("equivalent", 200)


def test_a_mutant_that_differs_on_no_case_but_on_a_drawn_input_survives():
    # no hidden seed: the fixed cases pass it, and among 200 drawn inputs -1 tells it apart
    verdict = TaskRun(CLAMP, inputs=200, seeds=()).verdict(mutant(clamp_reference, "0 → -1"))
    assert (verdict.kind, verdict.note, verdict.inputs) == ("survived", "clamp(-1)", 200)


def test_a_looping_mutant_is_stopped_in_the_phase_where_it_loops():
    looping = mutant(count_down_reference, "n -= 1 → n += 1")
    verdict = TaskRun(COUNT_DOWN, inputs=200, limit=1.0).verdict(looping)
    assert (verdict.kind, verdict.note) == ("fixed", "timeout")


def _with_callee():
    """The first task whose reference calls a function of the book, and that function."""
    for chapter in chapters():
        for spec in specs_of(chapter):
            if callees(spec.reference):
                return spec, callees(spec.reference)[0]
    raise AssertionError("no reference calls a function of the book")


def test_a_mutated_callee_is_patched_in_and_restored():
    spec, callee = _with_callee()
    code = callee.__code__
    (first, *_) = mutants_of(callee)
    with patched(spec, first) as answer:
        assert answer is spec.reference and callee.__code__ is not code
    assert callee.__code__ is code


# Two mutants of each chapter (spread evenly over its first task's), against the fixed cases:
# in make test (about 30 s on two cores), not in make test-fast.
SAMPLE = [
    pytest.param(spec, m, id=f"{chapter}-{spec.name}-{m.line}-{m.operator}", marks=pytest.mark.slow)
    for chapter in chapters()
    for spec in specs_of(chapter)[:1]
    for m in sample(task_mutants(spec), 2)
]


@functools.cache
def fixed_run(spec: TaskSpec) -> TaskRun:
    """The task's fixed cases, computed once for its sampled mutants."""
    return TaskRun(spec, inputs=0, seeds=(), limit=2.0)


@pytest.mark.parametrize("spec, mutant", SAMPLE)
def test_a_sample_of_each_chapters_mutants_meets_the_fixed_cases(spec, mutant):
    verdict = fixed_run(spec).verdict(mutant, fixed_only=True)
    # killed by named groups, or stopped (a loop, a crash), or passing every fixed case
    names = {group.name for group in spec.groups}
    if verdict.kind == "fixed":
        assert set(verdict.groups) <= names and (verdict.groups or verdict.note), verdict
    else:
        assert (verdict.kind, verdict.note) == ("survived", "passed the fixed cases")
    # the mutant ran in a process of its own: here the reference still earns every point
    assert spec.result(spec.reference, random.Random(1)).points == spec.points
