"""How `compare()` scales on runs that are hard to align: the same steps in another order.

    python benchmarks/bench_shapes.py [--sizes 10000,40000,160000] [--shapes shuffled,reversed]

Each run is a flat list of tool calls (40 tools, 7 argument values, so no call is unique and the
alignment cannot cut the runs at calls found once on each side). The candidate is the baseline

- `shuffled`: in a random order;
- `reversed`: in reverse order;
- `renamed`: with every tool renamed (nothing in common);
- `identical`: unchanged (the easy case, for scale).

For each size and shape it prints the median `compare()` wall time of `--repeats` runs, the
exponent of its growth from the previous size (1 = linear) and the divergence found. No target
is set for these shapes; the figures say how far from linear the worst orders are (README,
"Benchmarks").
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import time

from agentdiff import AgentTrace, TraceStep, compare

SHAPES = ("shuffled", "reversed", "renamed", "identical")
TOOLS, VALUES = 40, 7


def flat_run(names: list[str], values: list[int], prefix: str) -> AgentTrace:
    """A flat run of tool calls: `names[i]` called with `{"q": values[i]}`."""
    steps = [
        TraceStep(
            step_id=f"{prefix}{i}",
            step_index=i,
            step_type="tool_call",
            name=name,
            input_payload={"q": value},
        )
        for i, (name, value) in enumerate(zip(names, values, strict=True))
    ]
    return AgentTrace(trace_id=prefix, agent_name="bench", steps=steps)


def make_shape(n: int, shape: str, seed: int = 1) -> tuple[AgentTrace, AgentTrace]:
    rng = random.Random(seed)
    calls = [(f"tool_{rng.randrange(TOOLS)}", rng.randrange(VALUES)) for _ in range(n)]
    other = list(calls)
    if shape == "shuffled":
        random.Random(seed + 1).shuffle(other)
    elif shape == "reversed":
        other.reverse()
    elif shape == "renamed":
        other = [(f"{name}_v2", value) for name, value in other]
    base = flat_run([c[0] for c in calls], [c[1] for c in calls], "b")
    cand = flat_run([c[0] for c in other], [c[1] for c in other], "c")
    return base, cand


def measure(n: int, shape: str, repeats: int) -> tuple[float, float]:
    """Median `compare()` seconds and the divergence."""
    base, cand = make_shape(n, shape)
    runs, divergence = [], 0.0
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        divergence = compare(base, cand).divergence
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), divergence


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,40000,160000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print("| shape | steps per run | `compare()` median | growth exponent | divergence |")
    print("|---|---:|---:|---:|---:|")
    for shape in args.shapes.split(","):
        previous: tuple[int, float] | None = None
        for n in sizes:
            seconds, divergence = measure(n, shape, args.repeats)
            exponent = (
                f"{math.log(seconds / previous[1]) / math.log(n / previous[0]):.2f}"
                if previous
                else "—"
            )
            print(f"| {shape} | {n:,} | {seconds:.2f} s | {exponent} | {divergence:.3f} |")
            previous = (n, seconds)


if __name__ == "__main__":
    main()
