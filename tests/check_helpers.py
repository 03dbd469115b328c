"""Helpers for the tests of book/checks: read the one line a check prints, grade a wrong
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


def same_grade_below_full(spec, answer, broken: str | None) -> None:
    """answer gets the same points on seeds 1-20, below full: it loses the part named broken
    and only that (all of the task when broken is None, a mistake in its central computation),
    and the hint names its mistake rather than repeating the task's hint."""
    tasks = [spec.task(random.Random(seed)) for seed in range(1, 21)]  # alive: memo keys
    memo: dict = {}
    results = [spec.result_on(task, answer, memo) for task in tasks]
    assert {result.points for result in results} == {results[0].points}, [
        result.line for result in results
    ]
    lost = sum(group.points for group in spec.groups if group.name == broken)
    assert results[0].points == (spec.points - lost if broken else 0), results[0].line
    assert "Hint: " in results[0].line and spec.hint not in results[0].line, results[0].line
