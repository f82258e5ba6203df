"""Speed of the N-vs-M statistics and of route clustering (issue 15 targets).

1. One scenario of N = M = 10 runs of ~50 steps: `compare_runs` on traces in memory (profiles,
   routes, tests, nearest pairs through `compare`, the baseline's own gate-failure pairs), and
   the same with loading the 20 runs from canonical JSON files first. CPU time of this process
   (one core) per scenario, median of several scenarios. Target: ≤ 25 ms per core.
2. Clustering 100,000 runs: routes of ~50 steps drawn from 4 route families (weights
   55/25/15/5 %) with per-run noise (2 % deleted steps, 4 % inserted, 5 % with a 3× loop), as in
   many-runs.md §4.5; `encode_runs` + `cluster_encoded` timed (generation not). Target: ≤ 2 s.

    python benchmarks/bench_runs.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from runs_synthetic import Variant, make_runs

from agentdiff.loader import load_trace
from agentdiff.routes.cluster import cluster_encoded, encode_runs
from agentdiff.scenario.api import compare_runs


def scenario_times(count: int) -> tuple[float, float]:
    """Median CPU ms per scenario: from memory, and loading the runs from files first."""
    variant = Variant(extra_tools=20)  # ~50 steps per run
    in_memory, with_load = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(count):
            base = make_runs(10 * k + 1, 10, variant, prefix="b")
            cand = make_runs(10 * k + 2, 10, Variant(extra_tools=20, cost_factor=1.3), prefix="c")
            paths = []
            for trace in [*base, *cand]:
                path = Path(tmp) / f"{k}-{trace.trace_id}.json"
                path.write_text(trace.model_dump_json())
                paths.append(path)
            if k == 0:
                compare_runs(base, cand)  # warm the caches (rank tables, bootstrap draws)
            start = time.process_time()
            compare_runs(base, cand)
            in_memory.append(time.process_time() - start)
            start = time.process_time()
            loaded = [load_trace(p) for p in paths]
            compare_runs(loaded[:10], loaded[10:])
            with_load.append(time.process_time() - start)
    steps = len(base[0].steps)
    print(f"runs of {steps} steps")
    return statistics.median(in_memory) * 1000, statistics.median(with_load) * 1000


def corpus(count: int, seed: int = 7) -> list[list[str]]:
    """Routes of `count` runs from 4 families with noise (many-runs.md §4.5)."""
    rng = random.Random(seed)
    tools = [f"tool_call\x1ftool_{i}" for i in range(40)]
    families = [[rng.choice(tools) for _ in range(50)] for _ in range(4)]
    weights = [0.55, 0.25, 0.15, 0.05]
    runs = []
    for _ in range(count):
        route = list(rng.choices(families, weights)[0])
        route = [s for s in route if rng.random() >= 0.02]
        for _ in range(sum(rng.random() < 0.04 for _ in range(len(route)))):
            route.insert(rng.randrange(len(route) + 1), rng.choice(tools))
        if rng.random() < 0.05:
            at = rng.randrange(len(route))
            route[at:at] = [route[at]] * 2
        runs.append(route)
    return runs


def cluster_time(count: int) -> tuple[float, int, int, list[int]]:
    runs = corpus(count)
    start, cpu = time.perf_counter(), time.process_time()
    codec, encoded = encode_runs(runs)
    routes = cluster_encoded(codec, encoded, 0.2)
    took = time.perf_counter() - start
    print(f"  ({count:,} runs: {time.process_time() - cpu:.3f} s CPU)")
    sizes = [len(c.runs) for c in routes.clusters]
    return took, len(routes.encoded), len(routes.clusters), sizes[:6]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    scenarios = 5 if args.quick else 40
    memory_ms, load_ms = scenario_times(scenarios)
    print(f"N = M = 10 scenario, CPU per core (median of {scenarios}):")
    print(f"  compare_runs on loaded traces: {memory_ms:.1f} ms   (target <= 25 ms)")
    print(f"  load 20 runs + compare_runs:   {load_ms:.1f} ms")
    for count in (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000):
        took, distinct, clusters, sizes = cluster_time(count)
        print(
            f"cluster {count:,} runs: {took:.3f} s wall ({distinct:,} distinct routes, "
            f"{clusters} clusters, largest {sizes})"
        )
    print("target: 100,000 runs (encode + cluster) <= 2 s")


if __name__ == "__main__":
    main()
