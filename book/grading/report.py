"""What the teacher reads: tables on screen, CSV files and one text report per learner."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

from book.grading.judge import Grade
from book.notebooks import shown

SYMBOL = {"passed": "✔", "failed": "✘", "timed out": "⏱", "error": "!", "not run": "–"}


def _cut(text: str, width: int) -> str:
    """text on one line, cut to width."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def error_classes(grade: Grade) -> str:
    """The distinct error classes of a submission's tasks, e.g. 'hidden cases; timeout'."""
    if grade.error:
        return "not graded"
    return "; ".join(dict.fromkeys(task.error_class for task in grade.tasks if task.error_class))


def format_grade(grade: Grade) -> str:
    """A submission's table: one row per task, then the total, the seed and the notes."""
    width = max([len(task.task) for task in grade.tasks] + [5])
    rows = [
        f"== {shown(grade.submission)} (exercise {grade.exercise}, learner {grade.learner})",
        f"{'task':<{width}}  {'points':>6}  result",
    ]
    for task in grade.tasks:
        result = f"{SYMBOL[task.status]} {task.status}" + (
            f": {_cut(task.message, 300)}" if task.message else ""
        )
        rows.append(f"{task.task:<{width}}  {f'{task.points}/{task.max_points}':>6}  {result}")
    rows.append(
        f"{'total':<{width}}  {f'{grade.points}/{grade.max_points}':>6}  "
        f"(hidden cases from seed {grade.seed}, {grade.seconds:g} s)"
    )
    rows += [f"note: {note}" for note in grade.notes]
    return "\n".join(rows) + "\n"


def format_class(grades: list[Grade]) -> str:
    """One row per submission: exercise, points, tasks passed."""
    names = [shown(grade.submission) for grade in grades]
    width = max(len(name) for name in names + ["submission"])
    rows = [f"{'submission':<{width}}  {'exercise':<24}  {'points':>7}  tasks passed"]
    for name, grade in zip(names, grades):
        passed = sum(task.status == "passed" for task in grade.tasks)
        score = "error" if grade.error else f"{grade.points}/{grade.max_points}"
        rows.append(
            f"{name:<{width}}  {grade.exercise:<24}  {score:>7}  {passed}/{len(grade.tasks)}"
        )
    return "\n".join(rows) + "\n"


def write_csv(grades: list[Grade], path: Path) -> None:
    """One row per learner and exercise: points, max, seed, seconds, error classes, failed tasks."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(
            [
                "learner",
                "exercise",
                "submission",
                "points",
                "max_points",
                "seed",
                "seconds",
                "error_classes",
                "failed_tasks",
                "error",
            ]
        )
        for grade in grades:
            failed = " ".join(task.task for task in grade.tasks if task.status != "passed")
            writer.writerow(
                [
                    grade.learner,
                    grade.exercise,
                    shown(grade.submission),
                    grade.points,
                    grade.max_points,
                    grade.seed,
                    grade.seconds,
                    error_classes(grade),
                    failed,
                    grade.error,
                ]
            )


def write_tasks_csv(grades: list[Grade], path: Path) -> None:
    """One row per task (and one per submission that could not be graded)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(
            [
                "learner",
                "exercise",
                "submission",
                "task",
                "points",
                "max_points",
                "status",
                "error_class",
                "seed",
                "message",
            ]
        )
        for grade in grades:
            if grade.error:
                writer.writerow(
                    [
                        grade.learner,
                        "",
                        shown(grade.submission),
                        "",
                        0,
                        0,
                        "error",
                        "not graded",
                        grade.seed,
                        grade.error,
                    ]
                )
            for task in grade.tasks:
                writer.writerow(
                    [
                        grade.learner,
                        grade.exercise,
                        shown(grade.submission),
                        task.task,
                        task.points,
                        task.max_points,
                        task.status,
                        task.error_class,
                        grade.seed,
                        task.message,
                    ]
                )


def learner_report(grades: list[Grade]) -> str:
    """One learner's text report: per exercise, the points, what failed and the hint, the notes."""
    lines = [f"Report for {grades[0].learner or shown(grades[0].submission)}", ""]
    for grade in grades:
        if grade.error:
            lines += [f"{shown(grade.submission)}: not graded: {grade.error}", ""]
            continue
        lines.append(
            f"Exercise {grade.exercise}: {grade.points}/{grade.max_points} points "
            f"(hidden cases from seed {grade.seed})"
        )
        for task in grade.tasks:
            mark = (
                "passed"
                if task.status == "passed"
                else f"{task.status} ({task.error_class}): {task.message}"
            )
            lines.append(f"  {task.task} {task.points}/{task.max_points}: {mark}")
        lines += [f"  note: {note}" for note in grade.notes] + [""]
    return "\n".join(lines)


def write_reports(grades: list[Grade], folder: Path) -> None:
    """Write folder/<learner>.txt for every learner."""
    folder.mkdir(parents=True, exist_ok=True)
    by_learner: dict[str, list[Grade]] = defaultdict(list)
    for grade in grades:
        by_learner[grade.learner or grade.submission.stem].append(grade)
    for learner, theirs in by_learner.items():
        safe = re.sub(r"[^\w.-]+", "_", learner) or "learner"
        (folder / f"{safe}.txt").write_text(learner_report(theirs), encoding="utf-8")
