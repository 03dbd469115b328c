"""The benchmark script runs and its implementations agree (it asserts nothing about time)."""

import runpy

from notebook_paths import ROOT


def test_benchmark_runs_and_compares_equal_results(capsys):
    bench = runpy.run_path(str(ROOT / "benchmarks" / "bench_bpe.py"))
    bench["main"](["--quick", "--repeat", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.endswith("×")]
    assert len(rows) == 4, rows
