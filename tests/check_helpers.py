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
_TASKS: dict = {}  # each spec's tasks on seeds 1-20, kept alive: a memo keys calls by id


def assert_loses_only(spec, answer, lost: tuple[str, ...]) -> None:
    """answer earns the same points on seeds 1-20, having lost the parts lost (every part
    when lost is empty), and its line names them as the parts it failed."""
    tasks = _TASKS.setdefault(spec.name, [spec.task(random.Random(seed)) for seed in SEEDS])
    memo: dict = {}
    points = {seed: spec.result_on(task, answer, memo).points for seed, task in zip(SEEDS, tasks)}
    assert set(points.values()) == {points[1]}, points
    groups = {group.name: group.points for group in spec.groups}
    assert points[1] == (spec.points - sum(groups[name] for name in lost) if lost else 0)
    if lost and len(lost) < len(groups):
        text = spec.result_on(tasks[0], answer, memo).line
        assert f"failed: {', '.join(lost)} —" in text, text
