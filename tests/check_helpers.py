"""Helpers for the tests of book/checks: read the one line a check prints, and grade one
answer on many seeds."""

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


ALL = ("every part",)  # a wrong answer that loses every part of its task


def grades_on_seeds(spec, answer, seeds=range(1, 21)) -> set[tuple[int, str]]:
    """The (points, failed parts) that the check gives answer on each seed: one grade for one
    answer is a set of one."""
    memo: dict = {}  # by call: the tasks stay alive, so no call's id is reused
    tasks = [spec.task(random.Random(seed)) for seed in seeds]
    results = [spec.result_on(task, answer, memo) for task in tasks]
    return {(r.points, r.line.split("failed: ")[1].split(" —")[0]) for r in results}


def grade_losing(spec, lost: tuple[str, ...]) -> set[tuple[int, str]]:
    """The one grade of an answer that loses the parts lost (ALL: every part) and no other."""
    points = {group.name: group.points for group in spec.groups}
    lost = tuple(points) if lost == ALL else lost
    return {(spec.points - sum(points[part] for part in lost), ", ".join(lost))}
