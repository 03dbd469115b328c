"""Helpers for the tests of book/checks: read the one line a check prints, and grade a wrong
answer on seeds 1-20."""

import random


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
_TASKS: dict = {}  # by spec id: seeds 1-20 tasks, kept alive (a memo keys calls by id)


def grades_on_seeds(spec, answer) -> set[tuple[int, str]]:
    """The (points, failed parts) that the check gives answer on seeds 1-20: one grade for one
    answer is a set of one."""
    if id(spec) not in _TASKS:
        _TASKS[id(spec)] = [spec.task(random.Random(seed)) for seed in SEEDS]
    memo: dict = {}
    results = [spec.result_on(task, answer, memo) for task in _TASKS[id(spec)]]
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
