"""Grade a class: each notebook in a process of its own, ``jobs`` at a time, a progress line.

``python -m book.grading.workers JOB RESULT`` grades the one notebook a JOB file describes and
writes its grade to RESULT. ``grade_all`` starts one such process per notebook, with the hash
seed its hidden cases need (``judge.hash_seed``), so ``--seed`` gives the same cases whatever
the grader's own ``PYTHONHASHSEED`` (the kernel it starts gets a hash seed of its own).
Whatever a notebook does to its worker (a crash, a hang, a grader error), the class goes on:
that learner gets an error grade, the others theirs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from book.grading.judge import Grade, hash_seed
from book.grading.sandbox import Environment, Limits, find_sandbox
from book.grading.submission import grade_file

STARTUP_SECONDS = 300  # a worker's time beyond the notebook's own limit (kernel starts, judging)
RUNNING: set[subprocess.Popen] = set()  # the workers at work, stopped if the grader is


@dataclass(frozen=True)
class Job:
    """What a worker needs to grade one notebook."""

    path: str
    exercises: str | None
    seed: int
    limits: dict
    roots: list[str]
    sandbox: str
    environment: dict  # sandbox.Environment's fields, found once for the whole class
    expected: str | None = None  # the class's exercise (None: each notebook's own)
    learner: str = ""
    notes: tuple[str, ...] = ()

    def run(self) -> Grade:
        """Grade the notebook in this process."""
        return grade_file(
            Path(self.path),
            Path(self.exercises) if self.exercises else None,
            self.seed,
            Limits(**self.limits),
            [Path(root) for root in self.roots],
            self.sandbox,
            Environment.from_dict(self.environment),
            self.expected,
            self.learner,
            tuple(self.notes),
        )


def grade_in_worker(job: Job) -> Grade:
    """Grade job's notebook in a fresh worker process; an error grade if the worker fails."""
    timeout = job.limits["total_seconds"] + STARTUP_SECONDS
    with tempfile.TemporaryDirectory(prefix="book-grade-job-") as folder:
        job_file, result = Path(folder) / "job.json", Path(folder) / "grade.json"
        job_file.write_text(json.dumps(dataclasses.asdict(job)), encoding="utf-8")
        worker = subprocess.Popen(
            [sys.executable, "-m", "book.grading.workers", str(job_file), str(result)],
            env={**os.environ, "PYTHONHASHSEED": str(hash_seed(job.seed))},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # stopped as a group (its kernel dies with it)
        )
        RUNNING.add(worker)
        try:
            _, stderr = worker.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop(worker)
            worker.communicate()
            why = f"grading took longer than {timeout:g} s and was stopped"
            return failed(job, why)
        finally:
            RUNNING.discard(worker)
        try:
            return Grade.from_json(result.read_text(encoding="utf-8"))
        except (OSError, ValueError, TypeError, KeyError):
            last = stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            why = (
                f"the grader's worker failed on this notebook (exit {worker.returncode}: {last[0]})"
            )
            return failed(job, why[:500])


def failed(job: Job, why: str) -> Grade:
    """The grade of a job whose worker gave none: why, for the learner's row and report."""
    return Grade(
        Path(job.path),
        job.expected or "",
        job.learner,
        notes=list(job.notes),
        error=why,
        seed=job.seed,
        sandbox=find_sandbox(job.sandbox).note,
    )


def stop(worker: subprocess.Popen) -> None:
    """Stop a worker and what it started in its process group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(worker.pid, signal.SIGKILL)


def duration(seconds: float) -> str:
    """'45 s', '3 min 5 s'.

    >>> duration(45.2), duration(185)
    ('45 s', '3 min 5 s')
    """
    seconds = round(seconds)
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def progress(done: int, total: int, elapsed: float) -> str:
    """The progress line: graded, remaining, and the time left at the pace so far.

    >>> progress(10, 40, 60.0)
    'graded 10 of 40 (30 remaining, about 3 min 0 s left)'
    """
    left = total - done
    return (
        f"graded {done} of {total} ({left} remaining, about {duration(elapsed / done * left)} left)"
    )


def grade_all(
    jobs: list[Job],
    parallel: int,
    on_grade: Callable[[Grade], None] = lambda grade: None,
    on_progress: Callable[[str], None] = lambda line: None,
) -> list[Grade]:
    """Grade every job, parallel at a time; on_grade sees the grades in the jobs' order, as soon
    as each and those before it are done; on_progress gets a line after each."""
    start, grades, shown = time.monotonic(), [None] * len(jobs), 0
    pool = ThreadPoolExecutor(max_workers=max(1, parallel))
    try:
        futures = {pool.submit(grade_in_worker, job): k for k, job in enumerate(jobs)}
        for done, future in enumerate(as_completed(futures), 1):
            grades[futures[future]] = future.result()
            while shown < len(grades) and grades[shown] is not None:
                on_grade(grades[shown])
                shown += 1
            on_progress(progress(done, len(jobs), time.monotonic() - start))
    except BaseException:  # Ctrl-C: stop the workers at work, not wait for them
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in list(RUNNING):
            stop(worker)
        raise
    pool.shutdown()
    return grades


def main(argv: list[str] | None = None) -> int:
    """Worker: grade the notebook of the JOB file, write its grade as JSON to RESULT."""
    job_file, result = argv if argv is not None else sys.argv[1:]
    job = Job(**json.loads(Path(job_file).read_text(encoding="utf-8")))
    Path(result).write_text(job.run().to_json(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
