"""Probes with nothing to reach: an answer that tampers with what a probe counts earns nothing.

A probe (``book/checks/sealed.py``) hands the answer stand-ins whose state is kept in generator
frames the guard keeps out of reach. Each bypass below is a notebook answer written against the
probes as they were, when that state sat in the stand-ins and the probe's globals: a known
mistake (a full recount, a scan, reading every pre-token or block first, a banned call, listing
segmentations) plus the move that hid it then (resetting a counter through ``__globals__`` or a
function's defaults, reading ``_store``, ``_value`` or ``_read``, ``tuple.__getitem__``,
``list.__iter__``, ``dict.__getitem__``), and, where the move failed with an error, the plain
mistake; the last of each chapter's reaches for the sealed state itself (a server's frame).
Each is graded by ``python -m book.grade`` as the chapter's exercise answered by its solution
but for the bypass, appended as a cell of its own: the task it targets gets 0, the honest copy
graded beside it full points.
"""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from test_exercise_system import fill

from book.notebooks import ROOT, notebook_text, read_notebook

pytestmark = pytest.mark.slow

RECOUNT = """
def merge_and_update(ids, pair, new_id, counts):
    merged, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    counts.clear()
    for a, b in zip(merged, merged[1:]):
        counts[a, b] = counts.get((a, b), 0) + 1
"""
# ... then the work counted so far reset through a probe function's __globals__.
RESET_GLOBALS = (
    RECOUNT
    + """    for method in vars(type(counts)).values():
        work = getattr(method, "__globals__", {}).get("Work")
        if work is not None:
            work.done = 0
    return merged
"""
)
# The ints behind the ids and the dict behind the counts, recounted there, uncounted.
READ_VALUES = """
def merge_and_update(ids, pair, new_id, counts):
    numbers = []
    for i in ids:
        value = getattr(i, "_value", None)
        numbers.append(value if isinstance(value, int) else int(i))
    store = getattr(counts, "_store", counts)
    merged, i = [], 0
    while i < len(numbers):
        if numbers[i : i + 2] == list(pair):
            merged.append(new_id)
            i += 2
        else:
            merged.append(numbers[i])
            i += 1
    for key in list(store):
        del store[key]
    for a, b in zip(merged, merged[1:]):
        store[a, b] = store.get((a, b), 0) + 1
    return merged
"""
# The sealed state itself: the counts' server's frame, then the recount.
SERVER_FRAME = (
    RECOUNT
    + """    import inspect

    try:
        inspect.getgeneratorlocals(counts._server)["work"] = 0
    except Exception:
        pass
    return merged
"""
)

SYMBOLS = """
def symbols(pretoken):  # the symbols, read past the pre-token's notes
    try:
        return tuple.__getitem__(pretoken, slice(None))
    except TypeError:
        return tuple(pretoken)
"""
# Looks for the pre-tokens holding pair in counts (all of them read), then merges as the
# solution does.
FOUND_IN_COUNTS = (
    SYMBOLS
    + """

def merge_pretokens(counts, pair_counts, where, pair):
    renamed = {}
    holding = [t for t in counts if pair in zip(symbols(t), symbols(t)[1:])]
    for pretoken in holding:
        count, old = counts[pretoken], symbols(pretoken)
        for key in zip(old, old[1:]):
            pair_counts[key] -= count
            if pair_counts[key] == 0:
                del pair_counts[key]
            if key in where:
                where[key].discard(pretoken)
                if not where[key]:
                    del where[key]
        merged = merge_symbols(old, pair)
        for key in zip(merged, merged[1:]):
            pair_counts[key] = pair_counts.get(key, 0) + count
            where.setdefault(key, set()).add(merged)
        renamed[pretoken] = merged
    return {renamed.get(t, t): n for t, n in counts.items()}
"""
)
# Merges as the solution does, on copies of the dicts behind pair_counts and where (every
# pair read), written back whole (every pair written).
COPY_STORES = """
def merge_pretokens(counts, pair_counts, where, pair):
    stores = [getattr(m, "_store", m) for m in (pair_counts, where)]
    pairs, index = [dict(store) for store in stores]
    renamed = {}
    for pretoken in list(index.get(pair, ())):
        count = counts[pretoken]
        for old in zip(pretoken, pretoken[1:]):
            pairs[old] -= count
            if pairs[old] == 0:
                del pairs[old]
            if old in index:
                index[old] = index[old] - {pretoken}
                if not index[old]:
                    del index[old]
        merged = merge_symbols(pretoken, pair)
        for new in zip(merged, merged[1:]):
            pairs[new] = pairs.get(new, 0) + count
            index[new] = index.get(new, set()) | {merged}
        renamed[pretoken] = merged
    for store, copy in zip(stores, (pairs, index)):
        for key in list(store):
            del store[key]
        for key, value in copy.items():
            store[key] = value
    return {renamed.get(t, t): n for t, n in counts.items()}
"""
# Every entry of the heap read, the best current one taken out of the middle.
SCAN_HEAP = """
def pop_best(heap, counts):
    store = getattr(counts, "_store", counts)
    entries = list(list.__iter__(heap))
    current = [e for e in entries if store.get(e[-1]) == -e[0]]
    if not current:
        return None
    best = min(current)
    list.remove(heap, best)
    heapq.heapify(heap)
    return best[-1]
"""
# Every result read first (each block marked read as it comes), then added in block order.
MARK_READ = """
def merge_unordered(results):
    arrived = []
    for index, counts in results:
        try:
            counts._read.add(counts._index)
        except AttributeError:
            pass
        arrived.append((index, counts))
    indexes = [index for index, _ in arrived]
    if sorted(indexes) != list(range(len(indexes))):
        raise ValueError("a block arrived twice, or never")
    total = {}
    for _, counts in sorted(arrived, key=lambda result: result[0]):
        for chunk, n in counts.items():
            total[chunk] = total.get(chunk, 0) + n
    seen, turn, most = set(), 0, 0
    for index in indexes:
        seen.add(index)
        while turn in seen:
            turn += 1
        most = max(most, len(seen) - turn)
    return total, most
"""
# decode_with_offsets called, then the calls it noted forgotten (a list in its defaults).
CLEAR_CALLS = """
def token_starts(text, encoding_name):
    enc = get_encoding(encoding_name)
    _, starts = enc.decode_with_offsets(enc.encode_ordinary(text))
    function = type(enc).__dict__["decode_with_offsets"]
    for default in function.__defaults__ or ():
        if isinstance(default, list):
            default.clear()
    return starts
"""
# The uncounted original, kept in the counting function's defaults, called instead.
CALL_ORIGINAL = """
def token_starts(text, encoding_name):
    enc = get_encoding(encoding_name)
    function = type(enc).__dict__["decode_with_offsets"]
    originals = [d for d in function.__defaults__ or () if callable(d)]
    decode = originals[0] if originals else type(enc).decode_with_offsets
    return decode(enc, enc.encode_ordinary(text))[1]
"""
# Lists every segmentation, looking the pieces up past the budget's count, with the budget
# raised first.
LISTING = """
def expected_counts(word_freqs, log_p):
    try:
        log_p.left = log_p.budget = 10**18
        dict.__len__(log_p)  # TypeError when log_p is no dict
        look_up = lambda piece: dict.__getitem__(log_p, piece)
        known = lambda piece: dict.__contains__(log_p, piece)
    except (AttributeError, TypeError):
        look_up, known = log_p.__getitem__, log_p.__contains__

    def segmentations(word):
        if not word:
            yield 0.0, []
        for end in range(1, len(word) + 1):
            if known(word[:end]):
                for score, rest in segmentations(word[end:]):
                    yield look_up(word[:end]) + score, [word[:end], *rest]

    counts = {}
    for word, freq in word_freqs.items():
        found = list(segmentations(word))
        if not found:
            raise ValueError(f"{word!r} cannot be segmented")
        total = sum(math.exp(score) for score, _ in found)
        for score, pieces in found:
            for piece in pieces:
                share = freq * math.exp(score) / total
                counts[piece] = counts.get(piece, 0.0) + share
    return counts
"""

# name: (exercise, task, the bypass's cell, what the task's row says)
BYPASSES = {
    "reset_globals": ("05_byte_bpe", "merge_and_update", RESET_GLOBALS, "the recount"),
    "read_values": ("05_byte_bpe", "merge_and_update", READ_VALUES, "the recount"),
    "server_frame": ("05_byte_bpe", "merge_and_update", SERVER_FRAME, "the recount"),
    "found_in_counts": ("10_fast_bpe", "merge_pretokens", FOUND_IN_COUNTS, "outside where"),
    "copy_stores": ("10_fast_bpe", "merge_pretokens", COPY_STORES, "work on pair_counts"),
    "scan_heap": ("10_fast_bpe", "pop_best", SCAN_HEAP, "must not scan"),
    "mark_read": ("10_fast_bpe", "merge_unordered", MARK_READ, "a block added late"),
    "clear_calls": ("09_real_tokenizers", "token_starts", CLEAR_CALLS, "decode_with_offsets"),
    "call_original": ("09_real_tokenizers", "token_starts", CALL_ORIGINAL, "decode_with_offsets"),
    "listing": ("11_beyond_bpe", "expected_counts", LISTING, "stopped after"),
}
EXERCISES = sorted({exercise for exercise, *_ in BYPASSES.values()})


def _notebook(exercise: str, cell: str | None) -> nbformat.NotebookNode:
    """The exercise answered by its solution, and cell (a bypass) appended."""
    nb = fill(
        read_notebook(ROOT / "exercises" / f"{exercise}.ipynb"),
        read_notebook(ROOT / "solutions" / f"{exercise}.ipynb"),
    )
    if cell is not None:
        nb.cells.append(nbformat.v4.new_code_cell(cell.strip("\n")))
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[dict[tuple[str, str], dict], dict[str, str]]:
    """Each exercise's bypasses and an honest copy, graded (one run per exercise): the rows of
    the task table by ("exercise/file stem", task), and what the grader printed by exercise."""
    rows, printed = {}, {}
    for exercise in EXERCISES:
        folder = tmp_path_factory.mktemp(exercise)
        (folder / "honest.ipynb").write_text(notebook_text(_notebook(exercise, None)))
        for name, (of, _, cell, _) in BYPASSES.items():
            if of == exercise:
                (folder / f"{name}.ipynb").write_text(notebook_text(_notebook(exercise, cell)))
        tasks_csv = folder.parent / f"{folder.name}-tasks.csv"
        done = subprocess.run(
            [sys.executable, "-m", "book.grade", str(folder), "--tasks-csv", str(tasks_csv)]
            + ["--seed", "11", "--timeout", "20", "--jobs", "2"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=900,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr
        printed[exercise] = done.stdout
        with open(tasks_csv, encoding="utf-8") as file:
            for row in csv.DictReader(file):
                rows[(f"{exercise}/{Path(row['submission']).stem}", row["task"])] = row
    return rows, printed


# A bypass keeps a part its probe does not guard: mark_read's blocks that arrive twice, or
# never, raise as they should (merge_unordered's errors part, 1 point).
KEPT = {"mark_read": "1"}


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_a_bypass_earns_nothing_for_what_its_probe_guards(graded, name):
    rows, _ = graded
    exercise, task, _, says = BYPASSES[name]
    row = rows[(f"{exercise}/{name}", task)]
    assert row["points"] == KEPT.get(name, "0"), row
    assert says in row["message"], row
    assert rows[(f"{exercise}/honest", task)]["status"] == "passed"


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_a_bypass_costs_only_its_task(graded, name):
    rows, _ = graded
    exercise, task, _, _ = BYPASSES[name]
    others = [key for key in rows if key[0] == f"{exercise}/{name}" and key[1] != task]
    assert others and all(rows[key]["status"] == "passed" for key in others)


def test_a_look_into_a_server_is_refused_and_named(graded):
    _, printed = graded
    report = printed["05_byte_bpe"].split("/server_frame.ipynb (exercise", 1)[1].split("\n== ")[0]
    assert "the notebook tried reading the grader's frames (gi_frame)" in report
