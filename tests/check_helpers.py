"""Helpers for the tests of book/checks: read the one line a check prints; grade a wrong answer
on seeds 1-20 and check which parts it lost."""

import functools
import random

import pytest


def line(capsys, check, *answers) -> str:
    """The one line a check prints for the given answers (it must print exactly one)."""
    check(*answers)
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out
    return out


def passes(capsys, check, *answers) -> bool:
    """Whether the line a check prints says it passed."""
    return line(capsys, check, *answers).startswith("✔")


SEEDS = range(1, 21)
ALL = ("every part",)  # a wrong answer that loses every part of its task


def grades_on_seeds(spec, answer) -> set[tuple[int, str]]:
    """The (points, failed parts) that the check gives answer on seeds 1-20: one grade for one
    answer is a set of one."""
    memo: dict = {}  # by call: task_on keeps the tasks alive, so no call's id is reused
    results = [spec.result_on(task_on(spec, seed), answer, memo) for seed in SEEDS]
    return {(r.points, r.line.split("failed: ")[1].split(" —")[0]) for r in results}


def grade_losing(spec, lost: tuple[str, ...]) -> set[tuple[int, str]]:
    """The one grade of an answer that loses the parts lost (ALL: every part) and no other."""
    points = {group.name: group.points for group in spec.groups}
    lost = tuple(points) if lost == ALL else lost
    names = ", ".join(name for name in points if name in lost)  # in the line's order
    return {(spec.points - sum(points[part] for part in lost), names)}


def assert_loses_only(spec, answer, lost: tuple[str, ...]) -> None:
    """answer earns the same points on seeds 1-20, having lost the parts lost (every part
    when lost is empty), and its line names them as the parts it failed."""
    assert grades_on_seeds(spec, answer) == grade_losing(spec, lost or ALL)


# Seed 1 in make test-fast; seeds 2-20 in make test (marked slow).
SEED_PARAMS = [1, *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(2, 21))]
_MEMO: dict[str, dict] = {}


@functools.cache
def task_on(spec, seed: int):
    """spec's task with the hidden cases of seed, drawn once."""
    return spec.task(random.Random(seed))


def graded(spec, answer, seed: int, key: str):
    """The check's verdict on answer with the hidden cases of seed; key names the answer, whose
    outcomes of the visible calls (the same on every seed) are kept."""
    return spec.result_on(task_on(spec, seed), answer, _MEMO.setdefault(key, {}))


def assert_lost_part(spec, result, part: str | None) -> None:
    """result lost the points of part and kept the others (part None: lost every part)."""
    points = {group.name: group.points for group in spec.groups}
    assert result.points == (spec.points - points[part] if part else 0), result.line
    if part:
        assert f"failed: {part} —" in result.line, result.line


def reviewer_tests(specs: dict, wrong_answers: dict):
    """Two tests of a chapter's checks on the wrong answers a reviewer wrote, each given as
    wrong_answers[name] = (task, answer, the part it loses or None for every part, words its
    line must hold or ''): each loses its part only, on every seed; its hint names it."""

    @pytest.mark.parametrize("seed", SEED_PARAMS)
    @pytest.mark.parametrize("wrong", wrong_answers)
    def test_reviewers_wrong_answers(wrong, seed):
        name, answer, part, words = wrong_answers[wrong]
        result = graded(specs[name], answer, seed, wrong)
        assert_lost_part(specs[name], result, part)
        assert words in result.line, result.line

    return test_reviewers_wrong_answers


def same_grade_below_full(spec, answer, broken: str | None) -> None:
    """answer gets the same points on seeds 1-20, below full: it loses the part named broken
    and only that (all of the task when broken is None, a mistake in its central computation),
    and the hint names its mistake rather than repeating the task's hint."""
    assert_loses_only(spec, answer, (broken,) if broken else ())
    first = spec.result_on(task_on(spec, 1), answer, {})
    assert "Hint: " in first.line and spec.hint not in first.line, first.line
