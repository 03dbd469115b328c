"""The two tasks on other vendors' tokenizers (book/checks/vendor_tasks.py), graded by parts: the
reference earns every point, each known mistake loses exactly the part it names and keeps the
others, the same on seeds 1-20 from the check cell's path and the judge's; the hint names it.
"""

from __future__ import annotations

import random

import pytest

from book.checks.vendor_tasks import PREMIUMS_ACROSS, SPECS, SPLIT_COMMAND_R
from book.grading.calls import judge_in_process
from book.vocabularies import load

SEEDS = [1, *(pytest.param(seed, marks=pytest.mark.slow) for seed in range(2, 21))]
MISTAKES = [(spec, k) for spec in SPECS for k in range(len(spec.mistakes))]


def label(item) -> str:
    spec, k = item
    return f"{spec.name}-{k}"


def graded(spec, answer, seed: int):
    """(check cell's result, judge's grade) of answer on the task drawn with seed."""
    task = spec.task(random.Random(seed))
    (grade,) = judge_in_process([task], {spec.name: answer})
    return spec.result_on(task, answer), grade


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_the_reference_earns_every_point(spec, seed):
    result, grade = graded(spec, spec.reference, seed)
    assert result.points == grade.points == spec.points, result.line


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("spec, k", MISTAKES, ids=map(label, MISTAKES))
def test_each_mistake_loses_only_the_part_it_names(spec, k, seed):
    mistake = spec.mistakes[k]
    part = {group.name: group.points for group in spec.groups}[mistake.part]
    result, grade = graded(spec, mistake.function, seed)
    assert result.points == grade.points == spec.points - part, result.line
    assert f"failed: {mistake.part} —" in result.line
    assert mistake.says in result.line and mistake.says in grade.message


def test_the_statement_gives_each_part_its_points():
    assert [(g.name, g.points) for g in SPLIT_COMMAND_R.groups] == [
        ("GPT-2's rules between numbers", 3),
        ("every number character alone", 2),
        ("whitespace before a number", 1),
    ]
    assert [(g.name, g.points) for g in PREMIUMS_ACROSS.groups] == [
        ("premiums", 3),
        ("no reference count", 1),
    ]


def test_the_split_is_command_rs_own():
    # Command-R's byte-level BPE encodes each chunk on its own: the reference's chunks, encoded
    # one by one, give the ids of the whole text (the model's tokenizer matches llama.cpp's
    # test vectors, tests/test_gguf_bpe.py).
    command_r = load("command-r")
    text = "In 2024, x² cost $1,000 and  7 cats: don't   ½ ٣٤ 第五章\n\n  9 done"
    chunks = SPLIT_COMMAND_R.reference(text)
    assert "".join(chunks) == text
    assert [i for chunk in chunks for i in command_r.encode(chunk)] == command_r.encode(text)
    assert chunks[:7] == ["In", " ", "2", "0", "2", "4", ","] and " 第五章" in chunks


def test_premiums_match_the_analysis_module():
    from book.analysis.comparison import premiums

    counts = {"a": {"English": 55, "Hindi": 110}, "b": {"Hindi": 60, "English": 50}}
    assert PREMIUMS_ACROSS.reference(counts, "English") == premiums(counts, "English")
