"""Speed of the N-vs-M statistics and of route clustering (issue 15 targets), side by side with
the nearest peer.

1. One scenario of N = M = 10 runs of ~50 steps: `compare_runs` on traces in memory (profiles,
   routes, tests, nearest pairs through `compare`, the baseline's own gate-failure pairs), and
   the same with loading the 20 runs from canonical JSON files first. CPU time of this process
   (one core) per scenario, median of several scenarios. Target: ≤ 25 ms per core.
   The peer, agent-trajectory-diff 0.7.0 (a black box in the throwaway venv
   `benchmarks/.yardstick-venv`, see bench_compare.py), judges the same 10 candidate runs
   against the same 10 baseline runs with its N-run operation: a baseline envelope of the 10
   runs (mean ± k·σ bands) and `compare_envelope` for each candidate run (aligned against
   every baseline run, judged against its best match). Same runs, its own JSON input, CPU
   time in its own process, median over the same scenarios.
2. A suite of 1,000 such scenarios (20,000 runs, read from canonical JSON files; the distinct
   scenarios of part 1 cycled) through `run_suite` on the process pool with 2 workers: wall time
   (pool start included), the tasks' CPU and the main process's. Target: ≤ 15 s on 2 cores.
3. Clustering 100,000 runs: routes of ~50 steps drawn from 4 route families (weights
   55/25/15/5 %) with per-run noise (2 % deleted steps, 4 % inserted, 5 % with a 3× loop), as in
   many-runs.md §4.5; `encode_runs` + `cluster_encoded` timed (generation not). Target: ≤ 2 s.
   Route ids are hashed for medoids only while clustering; reading every run's id afterwards
   (`RouteMap.route_ids`) is timed on its own line.
   The peer has no route clustering (nothing to put beside it).

    python benchmarks/bench_runs.py [--quick] [--no-yardstick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compare import YardstickUnavailableError, _yardstick_python, yardstick_document
from runs_synthetic import Variant, make_runs

from agentdiff.loader import load_trace
from agentdiff.models.trace import AgentTrace
from agentdiff.routes.cluster import cluster_encoded, encode_runs
from agentdiff.scenario.api import compare_runs
from agentdiff.suite import RunSet, SuiteOptions, run_suite

PEER_DRIVER = """\
import json, sys, time
from agentdiff import load_trace
from agentdiff.engine.comparator import compare_envelope
from agentdiff.models.envelope import BaselineEnvelope
scenarios = json.load(open(sys.argv[1]))
in_memory, with_load, failing = [], [], []
for k, (base_paths, cand_paths) in enumerate(scenarios):
    for attempt in range(2 if k == 0 else 1):  # the first scenario once more: warm
        start = time.process_time()
        base = [load_trace(p) for p in base_paths]
        cand = [load_trace(p) for p in cand_paths]
        loaded = time.process_time()
        envelope = BaselineEnvelope.from_runs(base)
        gates = [compare_envelope(envelope, c)[1] for c in cand]
        done = time.process_time()
    in_memory.append(done - loaded)
    with_load.append(done - start)
    failing.append(sum(not g.passed for g in gates))
print(json.dumps({"in_memory": in_memory, "with_load": with_load, "failing": failing}))
"""
"""Runs inside the peer's venv: its envelope of N baseline runs and `compare_envelope`."""


def _scenario(k: int) -> tuple[list[AgentTrace], list[AgentTrace]]:
    base = make_runs(10 * k + 1, 10, Variant(extra_tools=20), prefix="b")  # ~50 steps per run
    cand = make_runs(10 * k + 2, 10, Variant(extra_tools=20, cost_factor=1.3), prefix="c")
    return base, cand


Inputs = list[list[list[str]]]
"""Per scenario: [baseline run paths, candidate run paths]."""


def scenario_times(count: int, work: Path) -> tuple[float, float, Inputs, Inputs]:
    """Median CPU ms per scenario (from memory; loading the runs first), the peer's inputs and
    ours (the files written)."""
    in_memory, with_load = [], []
    peer_inputs, our_inputs = [], []
    for k in range(count):
        base, cand = _scenario(k)
        paths, peer_paths = [], []
        for trace in [*base, *cand]:
            path = work / f"{k}-{trace.trace_id}.json"
            path.write_text(trace.model_dump_json())
            peer = work / f"{k}-{trace.trace_id}.peer.json"
            peer.write_bytes(orjson.dumps(yardstick_document(trace)))
            paths.append(path)
            peer_paths.append(str(peer))
        peer_inputs.append([peer_paths[:10], peer_paths[10:]])
        our_inputs.append([[str(p) for p in paths[:10]], [str(p) for p in paths[10:]]])
        if k == 0:
            compare_runs(base, cand)  # warm the caches (rank tables, bootstrap draws)
        start = time.process_time()
        compare_runs(base, cand)
        in_memory.append(time.process_time() - start)
        start = time.process_time()
        loaded = [load_trace(p) for p in paths]
        compare_runs(loaded[:10], loaded[10:])
        with_load.append(time.process_time() - start)
    print(f"runs of {len(base[0].steps)} steps")
    memory_ms, load_ms = statistics.median(in_memory) * 1000, statistics.median(with_load) * 1000
    return memory_ms, load_ms, peer_inputs, our_inputs


def suite_time(inputs: Inputs, scenarios: int, jobs: int) -> dict[str, float]:
    """`run_suite` over `scenarios` N = M = 10 scenarios on the process pool of `jobs` workers.

    The scenarios cycle the distinct ones in `inputs` (each scenario still loads, compares and
    tests its own 20 runs). Wall time includes starting the pool; CPU is the tasks' own (summed
    over the workers) and the main process's (planning, collecting, settling the statistics
    across scenarios).
    """
    records: dict[str, list[dict[str, str]]] = {"baseline": [], "candidate": []}
    for i in range(scenarios):
        for side, paths in zip(records, inputs[i % len(inputs)], strict=True):
            for j, path in enumerate(paths):
                records[side].append({"scenario": f"s{i:04d}", "path": path, "run": f"r{j}"})
    sets = [RunSet.from_records(records[side], label=side) for side in records]
    start, cpu = time.perf_counter(), time.process_time()
    report = run_suite(*sets, SuiteOptions(backend="pool", jobs=jobs))
    wall, client = time.perf_counter() - start, time.process_time() - cpu
    counts = report.counts
    assert counts.scenarios == scenarios, counts
    return {
        "wall": wall,
        "tasks_cpu": report.timings["task_cpu_s"],
        "tasks_wall": report.timings["task_s"],
        "client_cpu": client,
        "regressed": counts.regressed,
    }


def peer_times(inputs: list[list[list[str]]], work: Path) -> dict[str, float] | str:
    """The peer's median CPU ms per scenario, or why it could not be measured."""
    try:
        python = _yardstick_python()
    except YardstickUnavailableError as exc:
        return f"skipped: {exc}"
    (work / "scenarios.json").write_bytes(orjson.dumps(inputs))
    (work / "peer_driver.py").write_text(PEER_DRIVER)
    args = [str(python), "-I", str(work / "peer_driver.py"), str(work / "scenarios.json")]
    done = subprocess.run(args, cwd=work, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"skipped: its compare_envelope failed: {done.stderr.strip()[-300:]}"
    found = orjson.loads(done.stdout)
    return {
        "in_memory": statistics.median(found["in_memory"]) * 1000,
        "with_load": statistics.median(found["with_load"]) * 1000,
        "failing": statistics.median(found["failing"]),
    }


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


def cluster_time(count: int) -> tuple[float, float, float, int, int, list[int]]:
    """Wall and CPU seconds of encode + cluster, the CPU seconds of every run's route id after
    it (`RouteMap.route_ids`, computed when first read), and the map's shape."""
    runs = corpus(count)
    start, cpu = time.perf_counter(), time.process_time()
    codec, encoded = encode_runs(runs)
    routes = cluster_encoded(codec, encoded, 0.2)
    took, cpu_took = time.perf_counter() - start, time.process_time() - cpu
    cpu = time.process_time()
    assert len(routes.route_ids) == count
    ids_took = time.process_time() - cpu
    sizes = [len(c.runs) for c in routes.clusters]
    return took, cpu_took, ids_took, len(routes.encoded), len(routes.clusters), sizes[:6]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-yardstick", action="store_true", help="Skip the peer.")
    args = parser.parse_args()
    scenarios = 5 if args.quick else 40
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        memory_ms, load_ms, inputs, ours = scenario_times(scenarios, Path(tmp))
        peer = "skipped (--no-yardstick)" if args.no_yardstick else peer_times(inputs, Path(tmp))
        suite_scenarios = 100 if args.quick else 1_000
        suite = suite_time(ours, suite_scenarios, jobs=2)
    print(f"N = M = 10 scenario, CPU per core (median of {scenarios}):")
    print(f"  ours, compare_runs on loaded traces:   {memory_ms:6.1f} ms   (target <= 25 ms)")
    print(f"  ours, load 20 runs + compare_runs:     {load_ms:6.1f} ms")
    if isinstance(peer, str):
        print(f"  peer agent-trajectory-diff 0.7.0: {peer}")
    else:
        print(
            f"  peer, envelope + 10 compare_envelope:  {peer['in_memory']:6.1f} ms   "
            f"(ours {peer['in_memory'] / memory_ms:.1f}x faster; it flags "
            f"{peer['failing']:g}/10 candidate runs, no test, no route clusters)"
        )
        print(
            f"  peer, load 20 runs + the same:         {peer['with_load']:6.1f} ms   "
            f"(ours {peer['with_load'] / load_ms:.1f}x faster)"
        )
    print(
        f"suite of {suite_scenarios:,} N = M = 10 scenarios ({suite_scenarios * 20:,} runs from "
        f"files, {len(ours)} distinct scenarios cycled), run_suite on the process pool, 2 "
        f"workers: {suite['wall']:.2f} s wall (target <= 15 s for 1,000); tasks "
        f"{suite['tasks_cpu']:.2f} s CPU in {suite['tasks_wall']:.2f} s (on a core "
        f"{suite['tasks_cpu'] / suite['tasks_wall']:.0%} of their time), main process "
        f"{suite['client_cpu']:.2f} s CPU; {suite['regressed']:g} regressed"
    )
    for count in (1_000, 10_000) if args.quick else (1_000, 10_000, 100_000):
        took, cpu, ids, distinct, clusters, sizes = cluster_time(count)
        print(
            f"cluster {count:,} runs: {took:.3f} s wall, {cpu:.3f} s CPU ({distinct:,} distinct "
            f"routes, {clusters} clusters, largest {sizes}); every run's route id after it: "
            f"{ids:.3f} s CPU"
        )
    print("target: 100,000 runs (encode + cluster) <= 2 s")


if __name__ == "__main__":
    main()
