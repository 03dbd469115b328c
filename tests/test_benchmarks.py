"""The benchmark scripts run end to end and print their tables (they assert nothing about time).

bench_bpe checks, before timing, that the book's encoder and tiktoken give the same ids
and that both trainers learn 1,000 merges.
"""

import runpy

import pytest
from notebook_paths import ROOT


@pytest.mark.slow
def test_benchmark_runs_and_prints_every_table(capsys):
    bench = runpy.run_path(str(ROOT / "benchmarks" / "bench_bpe.py"))
    bench["main"](["--quick", "--repeat", "1"])
    out = capsys.readouterr().out
    rows = out.splitlines()
    assert sum("workers=" in row and row.endswith("x the time") for row in rows) == 4
    assert sum(row.endswith("of tiktoken's speed") for row in rows) == 3
    assert any(row.startswith("one 64K-character piece") for row in rows)
    assert sum(row.startswith("stream a ") and "peak RSS +" in row for row in rows) == 2
    counting = [row for row in rows if row.startswith("count ") and row.endswith("x the speed")]
    assert [row.split(", ", 1)[1].split("  ")[0] for row in counting] == [
        "one process",
        "multiprocessing, 2 processes",
        "Dask, 1 worker",
        "Dask, 2 workers",
    ]
    assert sum(row.startswith("count ") and "peak RSS +" in row for row in rows) == 2


@pytest.mark.slow
def test_grading_benchmark_runs_and_compares_the_two_runs(capsys):
    bench = runpy.run_path(str(ROOT / "benchmarks" / "bench_grade.py"))
    bench["main"](
        ["--count", "2", "--notebook", str(ROOT / "solutions" / "01_text_to_numbers.ipynb")]
    )
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "2 notebooks (01_text_to_numbers.ipynb), one seed, same grades both ways"
    assert rows[1].startswith("--jobs 1 ") and rows[2].endswith("of the --jobs 1 time)")
