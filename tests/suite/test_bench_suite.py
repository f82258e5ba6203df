"""The suite benchmark script runs end to end at smoke sizes (no timing is asserted here)."""

from __future__ import annotations

from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow
def test_quick_suite_benchmark_writes_its_table(tmp_path):
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(BENCHMARKS))
        import bench_suite

    out = tmp_path / "suite_results.md"
    assert bench_suite.main(["--quick", "--no-yardstick", "--no-dask", "--output", str(out)]) == 0
    text = out.read_text()
    assert "| run_suite process pool (2), 20 pairs (median of 1 rounds) |" in text
    assert "| pool speed-up over serial (median of the rounds' ratios) |" in text
    assert "`agentdiff suite --results`, 60 scenarios (120 runs)" in text
    assert "main process peak RSS" in text


@pytest.mark.slow
def test_parts_selects_what_is_measured(tmp_path):
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(BENCHMARKS))
        import bench_suite

    out = tmp_path / "suite_results.md"
    args = ["--quick", "--no-yardstick", "--parts", "rss", "--output", str(out)]
    assert bench_suite.main(args) == 0
    rows = [line for line in out.read_text().splitlines() if line.startswith("| ")][1:]
    assert len(rows) == 1
    assert rows[0].startswith("| main process peak RSS, pool, 40 pairs |")
    with pytest.raises(SystemExit):
        bench_suite.main(["--quick", "--parts", "nonsense"])


def test_host_line_scales_our_rates_by_the_peer_rate_then_and_now():
    with pytest.MonkeyPatch.context() as mp:
        mp.syspath_prepend(str(BENCHMARKS))
        import bench_suite

    t = bench_suite.Throughput(pairs=1000, serial=[2.0], pool=[1.0])
    line = bench_suite._host_line(t, 85.0)  # the peer at half of 170 pairs/s
    assert line.ok is None
    assert "the host runs at 39–50 % of that speed" in line.measured
    # ours: 500 pairs/s in-process, 1,000 on the pool; scaled by 170/85 = 2 and 220/85
    assert "~1,000–1,294 pairs/s in-process" in line.measured
    assert "~2,000–2,588 on the pool" in line.measured
