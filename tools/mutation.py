"""How adequate each task's cases are, by mutation analysis: ``make mutation``.

    python tools/mutation.py [--chapter 05] [--task NAME] [--jobs N] [--sample K]

For every task spec of every chapter (``book/checks/chNN.py``), the task's reference is
mutated (``tools/mutants.py``), and so, one level down, is every function of the book it calls
directly (a reference is often a thin wrapper around a step of ``book.tokenizers``): that
mutant is patched in for the run and restored after. Each mutant, as the learner's answer:

1. is **killed by fixed cases** when a group's visible cases fail it (the groups are noted);
2. else is **killed only by hidden cases** when the hidden cases of seeds 1-5 fail it;
3. else is run against the reference on 10,000 inputs drawn by the task's hidden generators
   (seeds 1000 on): **equivalent** when it gives the same outcome on every one, else
   **survived** (the first differing input is noted).

A raised exception is an outcome like any other (the reference's own errors must be matched).
Each mutant runs in a forked process with a time limit (10 s plus 20 times the reference's
time on the same cases) and a memory limit: a mutant that loops or crashes is killed in the
phase where it did. Results go to benchmarks/mutation.json (a run replaces the chapters, or
tasks, it covered); benchmarks/mutation.md is the table made from them, and README.md shows its
summary.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import importlib
import json
import os
import random
import resource
import select
import signal
import sys
import time
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from mutants import Mutant, compiled, function_tree, mutants_of

from book.checks.outcomes import case_failure
from book.checks.spec import Call, TaskSpec, _outcome, case_label, expect

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "mutation.json"
TABLE = ROOT / "benchmarks" / "mutation.md"
README = ROOT / "README.md"
HIDDEN_SEEDS = range(1, 6)
INPUTS = 10_000
# Drawing the inputs runs the hidden generators, which run the reference and every known mistake:
# a task whose inputs are slow to draw is compared on as many as this many seconds give.
DRAW_SECONDS = 300
# Helpers of the checks themselves, never the step a task asks for.
INFRASTRUCTURE = ("book.checks.spec", "book.checks.core", "book.checks.outcomes")
KINDS = ("equivalent", "fixed", "hidden", "survived")


def chapters() -> list[str]:
    """The chapters with checks: ch01, ch02, ..."""
    return sorted(path.stem for path in (ROOT / "book" / "checks").glob("ch[0-9]*.py"))


def specs_of(chapter: str) -> tuple[TaskSpec, ...]:
    """The task specs of a chapter ('ch05' or '05')."""
    name = chapter if chapter.startswith("ch") else f"ch{chapter}"
    return importlib.import_module(f"book.checks.{name}").SPECS


def _mutable(function: object) -> bool:
    """A plain def of the book (not a lambda, not a check's own machinery) with its source."""
    if not isinstance(function, types.FunctionType) or function.__name__ == "<lambda>":
        return False
    if not function.__module__.startswith("book.") or function.__module__ in INFRASTRUCTURE:
        return False
    try:
        function_tree(function)
    except (OSError, TypeError, ValueError):
        return False
    return True


def callees(function: types.FunctionType) -> list[types.FunctionType]:
    """The book's module-level functions that function calls by name (f(...) or module.f(...))."""
    tree, _, _ = function_tree(function)
    scope = dict(function.__globals__)
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        scope[name] = cell.cell_contents
    found: dict[str, types.FunctionType] = {}
    for node in ast.walk(tree):
        target = getattr(node, "func", None) if isinstance(node, ast.Call) else None
        if isinstance(target, ast.Name):
            value = scope.get(target.id)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            value = getattr(scope.get(target.value.id), target.attr, None)
        else:
            continue
        top_level = getattr(value, "__qualname__", ".") == getattr(value, "__name__", "")
        if value is not function and top_level and _mutable(value):
            found.setdefault(f"{value.__module__}.{value.__name__}", value)
    return list(found.values())


def task_mutants(spec: TaskSpec) -> list[Mutant]:
    """The mutants of a task: its reference's, then those of each function it calls directly."""
    reference = spec.reference
    return [m for f in [reference, *callees(reference)] for m in mutants_of(f)]


def sample(mutants: list, k: int | None) -> list:
    """k mutants spread evenly over the list, each the middle of its share (all when k is None
    or the list is shorter).

    >>> sample(list(range(10)), 2)
    [2, 7]
    """
    if k is None or len(mutants) <= k:
        return mutants
    return [mutants[(2 * i + 1) * len(mutants) // (2 * k)] for i in range(k)]


@contextlib.contextmanager
def patched(spec: TaskSpec, mutant: Mutant) -> Iterator[Callable]:
    """The answer a mutant makes: the mutated reference, or the reference with the mutated
    function it calls patched in (its code swapped in place, so every caller meets it), restored
    on exit."""
    mutated = compiled(mutant)
    if mutant.function is spec.reference:
        yield mutated
        return
    original = mutant.function
    saved = (original.__code__, original.__defaults__, original.__kwdefaults__)
    original.__code__ = mutated.__code__
    original.__defaults__, original.__kwdefaults__ = mutated.__defaults__, mutated.__kwdefaults__
    try:
        yield spec.reference
    finally:
        original.__code__, original.__defaults__, original.__kwdefaults__ = saved


def failures(spec: TaskSpec, calls: list[Call], answer: Callable) -> tuple[list[str], str]:
    """The groups whose calls answer fails (in order), and the first failing case's label; a
    group's remaining calls are skipped once it failed."""
    runs, failed, first = spec.runners(answer), [], ""
    for call in calls:
        if call.group in failed:
            continue
        problem = case_failure(call, _outcome(runs[call.group], call.args), spec.compare)
        if problem:
            failed.append(call.group)
            first = first or (call.label or case_label(spec.name, call.args))
    return failed, first


def drawn(spec: TaskSpec, count: int, seconds: float = DRAW_SECONDS) -> tuple[list[Call], list]:
    """count calls drawn by the task's hidden generators (seeds 1000 on), with the reference's
    outcomes: the inputs a mutant is compared on before it is called equivalent; and the seeds
    on which a generator raised (seed, group, error), which are skipped."""
    references, calls, errors = spec.runners(spec.reference), [], []
    seed, start = 1000, time.monotonic()
    while len(calls) < count and time.monotonic() - start < seconds and seed < 1000 + count:
        for group in (group for group in spec.groups if group.hidden):
            try:
                cases = group.hidden(random.Random(f"{seed} {group.name}"))
            except Exception as error:  # a generator's bug: reported in the table
                errors.append((seed, group.name, f"{type(error).__name__}: {error}"))
                continue
            for args, _ in cases:
                expected = expect(references[group.name], *copy.deepcopy(args))
                calls.append(Call("", "", args, expected, True, group.name))
        seed += 1
    return calls[:count], errors


class Forked:
    """Runs work(send) in a forked process with a time and memory limit; collects what it sent."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __call__(self, work: Callable[[Callable[[dict], None]], None]) -> tuple[list[dict], str]:
        """(the messages sent, '' or 'timeout' or 'crashed: ...')."""
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read)
            _limit_memory()
            status = 0
            try:
                work(lambda message: os.write(write, (json.dumps(message) + "\n").encode()))
            except BaseException as error:  # a mutant that exits or raises past the harness
                os.write(write, (json.dumps({"crashed": repr(error)[:200]}) + "\n").encode())
                status = 1
            os._exit(status)
        os.close(write)
        data, deadline, ending = b"", time.monotonic() + self.seconds, ""
        with os.fdopen(read, "rb", buffering=0) as pipe:
            while True:
                left = deadline - time.monotonic()
                ready = select.select([pipe], [], [], max(left, 0))[0] if left > 0 else []
                if not ready:
                    os.kill(pid, signal.SIGKILL)
                    ending = "timeout"
                    break
                chunk = pipe.read(65536)
                if not chunk:
                    break
                data += chunk
        _, status = os.waitpid(pid, 0)
        messages = [json.loads(line) for line in data.decode().splitlines()]
        crash = next((m["crashed"] for m in messages if "crashed" in m), "")
        if not ending and (crash or status != 0):
            ending = f"crashed: {crash or f'status {status}'}"
        return [m for m in messages if "crashed" not in m], ending


def _limit_memory(extra: int = 2 << 30) -> None:
    """Cap the process's address space at what it uses now plus extra bytes (a mutant that
    grows a list forever raises MemoryError instead of taking the machine's memory)."""
    pages = int(Path("/proc/self/statm").read_text().split()[0])
    limit = pages * os.sysconf("SC_PAGE_SIZE") + extra
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@dataclass(frozen=True)
class Verdict:
    """What became of one mutant: kind is one of KINDS."""

    kind: str
    groups: tuple[str, ...] = ()  # the groups whose cases killed it
    note: str = ""  # the case that killed it, or how it ended (timeout, crash)
    inputs: int = 0  # how many drawn inputs it was compared on


class TaskRun:
    """One task's cases, computed once (by the unmutated reference) for all its mutants."""

    def __init__(self, spec: TaskSpec, inputs: int = INPUTS, seeds=HIDDEN_SEEDS, limit=10.0):
        self.spec, self.inputs = spec, inputs
        self.visible = [call for call in spec.task(random.Random(0)).calls if not call.hidden]
        self.hidden = [
            call for seed in seeds for call in spec.task(random.Random(seed)).calls if call.hidden
        ]
        self._drawn: list[Call] | None = None
        self.draw_errors: list = []
        self.limit = limit  # seconds a mutant gets, beyond 20 times the reference's time
        self.seconds = limit + 20 * self._timed(self.visible + self.hidden)

    def _timed(self, calls: list[Call]) -> float:
        """Seconds the reference takes on calls (which it must pass)."""
        start = time.monotonic()
        failed, first = failures(self.spec, calls, self.spec.reference)
        if failed:
            raise RuntimeError(f"{self.spec.name}: the reference fails its own case {first}")
        return time.monotonic() - start

    def drawn(self) -> list[Call]:
        """The inputs for the equivalence test, drawn once."""
        if self._drawn is None:
            self._drawn, self.draw_errors = drawn(self.spec, self.inputs)
            self.drawn_seconds = self.limit + 20 * self._timed(self._drawn)
        return self._drawn

    def verdict(self, mutant: Mutant, fixed_only: bool = False) -> Verdict:
        """Run the mutant's phases in forked processes: fixed, hidden, then the drawn inputs."""
        phases = [("fixed", self.visible)] + ([] if fixed_only else [("hidden", self.hidden)])

        def cases(send: Callable[[dict], None]) -> None:
            with patched(self.spec, mutant) as answer:
                for phase, calls in phases:
                    failed, first = failures(self.spec, calls, answer)
                    send({"phase": phase, "failed": failed, "case": first})
                    if failed:
                        return

        messages, ending = Forked(self.seconds)(cases)
        for message in messages:
            if message["failed"]:
                return Verdict(message["phase"], tuple(message["failed"]), message["case"])
        if ending:  # stopped in the first phase it did not finish
            return Verdict(phases[len(messages)][0], (), ending)
        if fixed_only:
            return Verdict("survived", (), "passed the fixed cases")
        return self._compared(mutant)

    def _compared(self, mutant: Mutant) -> Verdict:
        """equivalent, or survived with the first input where it differs from the reference."""
        calls = self.drawn()

        def compare(send: Callable[[dict], None]) -> None:
            with patched(self.spec, mutant) as answer:
                runs = self.spec.runners(answer)
                for call in calls:
                    if case_failure(call, _outcome(runs[call.group], call.args), self.spec.compare):
                        send({"differs": case_label(self.spec.name, call.args)})
                        return
                send({"differs": ""})

        messages, ending = Forked(self.drawn_seconds)(compare)
        if ending:
            return Verdict("survived", (), f"{ending} on drawn inputs", len(calls))
        differs = messages[0]["differs"]
        return Verdict("survived" if differs else "equivalent", (), differs, len(calls))


def analyse(chapter: str, spec: TaskSpec, k: int | None, inputs: int = INPUTS) -> dict:
    """One task's row: the counts, and the mutants worth listing."""
    start = time.monotonic()
    every = task_mutants(spec)
    mutants = sample(every, k)
    run = TaskRun(spec, inputs)
    counts = dict.fromkeys(KINDS, 0)
    listed, by_group = [], {}
    for mutant in mutants:
        verdict = run.verdict(mutant)
        counts[verdict.kind] += 1
        for group in verdict.groups if verdict.kind == "fixed" else ():
            by_group[group] = by_group.get(group, 0) + 1
        if verdict.kind != "fixed":
            where = f"{Path(mutant.path).relative_to(ROOT)}:{mutant.line}"
            listed.append(
                {
                    "kind": verdict.kind,
                    "where": where,
                    "operator": mutant.operator,
                    "change": mutant.change,
                    "note": verdict.note,
                    "inputs": verdict.inputs,
                }
            )
    seconds = time.monotonic() - start
    print(f"{chapter} {spec.name}: {len(mutants)} mutants, {seconds:.0f} s", file=sys.stderr)
    sampled = len(every) if len(mutants) < len(every) else None  # of how many, when sampled
    return {
        "mutants": len(mutants),
        "sampled_from": sampled,
        **counts,
        "fixed_by_group": by_group,
        "listed": listed,
        "draw_errors": [list(error) for error in run.draw_errors],
    }


def _analyse_job(job: tuple) -> tuple[str, str, dict]:
    chapter, name, k, inputs = job
    spec = next(s for s in specs_of(chapter) if s.name == name)
    return chapter, name, analyse(chapter, spec, k, inputs)


def percent(part: int, whole: int) -> str:
    """part of whole in percent, one decimal ('—' of nothing)."""
    return f"{100 * part / whole:.1f}%" if whole else "—"


def summary(results: dict) -> str:
    """The per-task table in markdown, with a row of totals."""
    head = (
        "| chapter | task | mutants | equivalent | killed by fixed | killed only by hidden "
        "| survived | non-equivalent killed by fixed |\n|---|---|--:|--:|--:|--:|--:|--:|\n"
    )
    rows, total = [], dict.fromkeys(("mutants", *KINDS), 0)
    for chapter in sorted(results):
        for task, row in results[chapter].items():
            for key in total:
                total[key] += row[key]
            of = row["sampled_from"]
            name = task + (f" (a sample: {row['mutants']} of {of})" if of else "")
            rows.append(_row(chapter, name, row))
    rows.append(_row("**all**", "", total))
    return head + "\n".join(rows) + "\n"


def _row(chapter: str, task: str, row: dict) -> str:
    killable = row["mutants"] - row["equivalent"]
    cells = [chapter, task, row["mutants"], *(row[kind] for kind in KINDS)]
    return "| " + " | ".join(map(str, cells)) + f" | {percent(row['fixed'], killable)} |"


def listing(results: dict) -> str:
    """The mutants not killed by fixed cases, by task: the cases the next engineer adds."""
    titles = {
        "hidden": "Killed only by hidden cases (a fixed case is missing)",
        "survived": "Survived (no case tells them from the reference)",
        "equivalent": "Equivalent (the same outcome on every drawn input)",
    }
    parts = []
    for kind, title in titles.items():
        lines = [f"### {title}\n"]
        for chapter in sorted(results):
            for task, row in results[chapter].items():
                for item in (item for item in row["listed"] if item["kind"] == kind):
                    note = f" — {item['note']}".replace("|", "\\|") if item["note"] else ""
                    inputs = f" (on {item['inputs']:,} inputs)" if kind == "equivalent" else ""
                    change = item["change"].replace("|", "\\|")
                    lines.append(
                        f"- {chapter} `{task}`: `{item['where']}` {item['operator']}: "
                        f"`{change}`{inputs}{note}"
                    )
        parts.append("\n".join(lines if len(lines) > 1 else [*lines, "None."]))
    errors = [
        f"- {chapter} `{task}`: {len(row['draw_errors'])} draws, e.g. group "
        f"{row['draw_errors'][0][1]!r} on seed {row['draw_errors'][0][0]}: "
        f"{row['draw_errors'][0][2]}"
        for chapter in sorted(results)
        for task, row in results[chapter].items()
        if row.get("draw_errors")
    ]
    if errors:
        title = "### Hidden generators that raised (those draws were skipped)\n"
        parts.append("\n".join([title, *errors]))
    return "\n\n".join(parts) + "\n"


def _coverage(chapter: str, rows: dict) -> str:
    """'ch05', or 'ch06 (3 of 5 tasks)' for a chapter not every task of which was analysed."""
    names = [spec.name for spec in specs_of(chapter)]
    done = sum(name in rows for name in names)
    return chapter if done == len(names) else f"{chapter} ({done} of {len(names)} tasks)"


def by_group(results: dict) -> str:
    """Which groups' fixed cases killed the mutants, by task (a mutant counts in every group
    that failed it)."""
    lines = ["### Killed by fixed cases, by the groups whose cases failed them\n"]
    for chapter in sorted(results):
        for task, row in results[chapter].items():
            groups = ", ".join(f"{name} {n}" for name, n in row["fixed_by_group"].items())
            lines.append(f"- {chapter} `{task}`: {groups or 'none'}")
    return "\n".join(lines) + "\n"


def write(results: dict) -> None:
    """The JSON results, the table and README's summary."""
    RESULTS.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    covered = ", ".join(_coverage(c, rows) for c, rows in sorted(results.items()) if rows)
    missing = [chapter for chapter in chapters() if not results.get(chapter)]
    covered += f"; not analysed yet: {', '.join(missing)}" if missing else ""
    TABLE.write_text(
        "# Mutation analysis of the exercise checks\n\n"
        "Made by `make mutation` (`tools/mutation.py`, which says how); chapters covered: "
        f"{covered}. A mutant is killed by fixed cases when a group's visible cases fail it, "
        "killed only by hidden cases when only the hidden cases of seeds 1-5 do, equivalent "
        "when it gives the reference's outcome on every drawn input, and survived otherwise. "
        "The target (issue 28): every task at least 95% of its non-equivalent mutants killed "
        "by fixed cases, none killed only by hidden cases, none surviving.\n\n"
        + summary(results)
        + "\n## The mutants not killed by fixed cases\n\n"
        + listing(results)
        + "\n"
        + by_group(results)
    )
    text = README.read_text()
    start, end = "<!-- mutation table -->\n", "<!-- end of mutation table -->"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        README.write_text(f"{before}{start}{summary(results)}{end}{after}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", action="append", help="a chapter, e.g. 05 (repeatable)")
    parser.add_argument("--task", help="only this task")
    parser.add_argument("--jobs", type=int, default=1, help="tasks analysed at once")
    parser.add_argument("--sample", type=int, help="this many mutants per task (spread evenly)")
    parser.add_argument("--inputs", type=int, default=INPUTS, help="drawn inputs per task")
    parser.add_argument("--render", action="store_true", help="only rewrite the table")
    args = parser.parse_args()
    if args.render:
        write(json.loads(RESULTS.read_text()))
        return
    if os.environ.get("PYTHONHASHSEED") != "0":  # a set's order must not change the verdicts
        os.execve(
            sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"}
        )
    wanted = [c if c.startswith("ch") else f"ch{c}" for c in args.chapter or chapters()]
    jobs = [
        (chapter, spec.name, args.sample, args.inputs)
        for chapter in wanted
        for spec in specs_of(chapter)
        if args.task in (None, spec.name)
    ]
    if not jobs:
        sys.exit(f"no task {args.task!r} in {', '.join(wanted)}: see book/checks/chNN.py SPECS")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if args.task is None:  # a whole chapter's run replaces its rows
        for chapter in wanted:
            results[chapter] = {}
    if args.jobs > 1:
        pool = ProcessPoolExecutor(args.jobs, mp_context=get_context("fork"))
        done = pool.map(_analyse_job, jobs)
    else:
        done = map(_analyse_job, jobs)
    for chapter, name, row in done:
        results.setdefault(chapter, {})[name] = row
        write(results)  # after every task: a long run keeps what it finished


if __name__ == "__main__":
    main()
