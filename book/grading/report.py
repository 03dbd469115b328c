"""What the teacher reads: tables on screen, CSV files and one text report per learner.

Everything a notebook could have put in a grade (a message, a note, a file or learner name) is
escaped on the way out: control characters and the marks that reorder text come out as escapes
(``\\x1b``, ``\\u202e``), so no report can drive the teacher's terminal or disguise a line.

>>> escape("ok\\x1b[2J\\u202eevil")
'ok\\\\x1b[2J\\\\u202eevil'

A CSV cell that begins with ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a leading
``'``, as OWASP's CSV-injection guidance says, so no spreadsheet reads it as a formula.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections import Counter, defaultdict
from pathlib import Path

from book.grading.judge import Grade
from book.grading.submission import learner_key
from book.notebooks import shown

SYMBOL = {"passed": "✔", "failed": "✘", "timed out": "⏱", "error": "!", "not run": "–"}
# C0 and C1 controls (newlines and tabs too: a field is one line) and bidirectional formatting.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # OWASP: what makes a spreadsheet cell a formula


def escape(text: object) -> str:
    """str(text) with every control or reordering character written as an escape."""
    return CONTROL.sub(
        lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", str(text)
    )


def _cut(text: str, width: int) -> str:
    """text on one line, escaped, cut to width."""
    text = escape(" ".join(str(text).split()))
    return text if len(text) <= width else text[: width - 1] + "…"


def error_classes(grade: Grade) -> str:
    """The distinct error classes of a submission's tasks, e.g. 'hidden cases; timeout'."""
    if grade.error:
        return "not graded"
    return "; ".join(dict.fromkeys(task.error_class for task in grade.tasks if task.error_class))


def _notes(grade: Grade) -> list[str]:
    """The grade's notes, the sandbox first: every report says how the kernel was isolated."""
    return [escape(note) for note in ([grade.sandbox] if grade.sandbox else []) + grade.notes]


def format_grade(grade: Grade) -> str:
    """A submission's table: one row per task, then the total, the seed and the notes."""
    width = max([len(escape(task.task)) for task in grade.tasks] + [5])
    rows = [
        f"== {escape(shown(grade.submission))} (exercise {escape(grade.exercise)}, "
        f"learner {escape(grade.learner)})",
        f"{'task':<{width}}  {'points':>6}  result",
    ]
    for task in grade.tasks:
        result = f"{SYMBOL.get(task.status, '?')} {task.status}" + (
            f": {_cut(task.message, 300)}" if task.message else ""
        )
        score = f"{task.points}/{task.max_points}"
        rows.append(f"{escape(task.task):<{width}}  {score:>6}  {result}")
    rows.append(
        f"{'total':<{width}}  {f'{grade.points}/{grade.max_points}':>6}  "
        f"(hidden cases from seed {grade.seed}, cases {grade.cases}, {grade.seconds:g} s)"
    )
    rows += [f"note: {note}" for note in _notes(grade)]
    return "\n".join(rows) + "\n"


def format_class(grades: list[Grade]) -> str:
    """One row per learner and exercise: submission, points, tasks passed or why it was not
    graded; then how the kernels were isolated."""
    names = [escape(shown(grade.submission)) for grade in grades]
    learners = [escape(grade.learner) for grade in grades]
    width = max(len(name) for name in names + ["submission"])
    who = max(len(name) for name in learners + ["learner"])
    rows = [
        f"{'learner':<{who}}  {'submission':<{width}}  {'exercise':<20}  {'points':>7}  "
        "tasks passed"
    ]
    for learner, name, grade in zip(learners, names, grades):
        passed = sum(task.status == "passed" for task in grade.tasks)
        score = "refused" if grade.refused else "error" if grade.error else f"{grade.points}/"
        score += "" if grade.error else f"{grade.max_points}"
        result = _cut(grade.error, 90) if grade.error else f"{passed}/{len(grade.tasks)}"
        exercise = escape(grade.exercise)
        rows.append(f"{learner:<{who}}  {name:<{width}}  {exercise:<20}  {score:>7}  {result}")
    rows += [escape(note) for note in dict.fromkeys(grade.sandbox for grade in grades)]
    return "\n".join(rows) + "\n"


def csv_cell(value: object) -> object:
    """A CSV cell: a number as it is, text escaped and, when a spreadsheet would read it as a
    formula, after a "'" (OWASP's CSV-injection guidance).

    >>> csv_cell("=1+1"), csv_cell("-2"), csv_cell(-2), csv_cell(chr(9) + "x"), csv_cell("bob")
    ("'=1+1", "'-2", -2, "'\\\\x09x", 'bob')
    """
    if isinstance(value, (int, float)):
        return value
    text = escape(value)
    return f"'{text}" if str(value).startswith(FORMULA_START) else text


def _write_rows(path: Path, header: list[str], rows: list[list]) -> None:
    """A CSV file of escaped cells."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows([[csv_cell(cell) for cell in row] for row in rows])


def write_csv(grades: list[Grade], path: Path) -> None:
    """One row per learner and exercise: points, max, seed, seconds, error classes, failed tasks."""
    header = [
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
        "sandbox",
    ]
    rows = [
        [
            grade.learner,
            grade.exercise,
            shown(grade.submission),
            grade.points,
            grade.max_points,
            grade.seed,
            grade.seconds,
            error_classes(grade),
            " ".join(task.task for task in grade.tasks if task.status != "passed"),
            grade.error,
            grade.sandbox,
        ]
        for grade in grades
    ]
    _write_rows(path, header, rows)


def write_tasks_csv(grades: list[Grade], path: Path) -> None:
    """One row per task (and one per submission that could not be graded)."""
    header = [
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
    rows = []
    for grade in grades:
        if grade.error:
            where = [grade.learner, "", shown(grade.submission), "", 0, 0, "error", "not graded"]
            rows.append([*where, grade.seed, grade.error])
        for task in grade.tasks:
            rows.append(
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
    _write_rows(path, header, rows)


def learner_report(grades: list[Grade]) -> str:
    """One learner's text report: per exercise, the points, what failed and the hint, the notes."""
    lines = [f"Report for {escape(grades[0].learner or shown(grades[0].submission))}", ""]
    for grade in grades:
        if grade.error:
            lines.append(f"{escape(shown(grade.submission))}: not graded: {escape(grade.error)}")
            lines += [f"  note: {note}" for note in _notes(grade)] + [""]
            continue
        lines.append(
            f"Exercise {escape(grade.exercise)}: {grade.points}/{grade.max_points} points "
            f"(hidden cases from seed {grade.seed}, cases {grade.cases})"
        )
        for task in grade.tasks:
            mark = (
                "passed"
                if task.status == "passed"
                else f"{task.status} ({task.error_class}): {escape(task.message)}"
            )
            lines.append(f"  {escape(task.task)} {task.points}/{task.max_points}: {mark}")
        lines += [f"  note: {note}" for note in _notes(grade)] + [""]
    return "\n".join(lines)


def report_names(learners: list[str]) -> dict[str, str]:
    """learner -> the name of their report file (without .txt): their name with anything but
    letters, digits, '.' and '-' as '_', cut to 80 characters; names that would read alike (on a
    file system that ignores case, too) end in '~' and a digest of the learner's name instead,
    and no plain name holds a '~'. No loop: each name is computed once.

    >>> report_names(["alice", "a b", "a_b"])
    {'alice': 'alice', 'a b': 'a_b~c8687a08aa5d6ed2', 'a_b': 'a_b~648fa9b31bc7ff7e'}
    """
    plain = {learner: re.sub(r"[^\w.-]+", "_", learner)[:80] or "learner" for learner in learners}
    counts = Counter(name.casefold() for name in plain.values())
    return {
        learner: name
        if counts[name.casefold()] == 1
        else f"{name}~{hashlib.sha256(learner.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
        for learner, name in plain.items()
    }


def write_reports(grades: list[Grade], folder: Path) -> None:
    """Write folder/<learner>.txt for every learner (every submission has one)."""
    folder.mkdir(parents=True, exist_ok=True)
    by_learner: dict[str, list[Grade]] = defaultdict(list)
    for grade in grades:
        by_learner[learner_key(grade.learner or grade.submission.stem)].append(grade)
    names = report_names(list(by_learner))
    for learner, theirs in by_learner.items():
        (folder / f"{names[learner]}.txt").write_text(learner_report(theirs), encoding="utf-8")
