"""Cookbook: N runs against M runs of one scenario, on real OpenAI Agents SDK runs.

`tests/fixtures/runs_pool/` holds 40 real runs per variant of one support agent (captured by
`scripts/capture/runs_pool.py`): the scripted model takes plan A (lookup_order → refund_payment)
in 70 % of runs and plan B (search_kb → lookup_order → escalate) otherwise. Variants: `unchanged`
(the same agent), `loop` (lookup_order repeated in 30 % of runs), `cost` (+50 % tokens).

The cookbook draws 10 baseline and 10 candidate runs (seeded), judges each candidate with
`compare_runs`, prints the verdicts, the loop's frequency and the cost change, then clusters the
40 baseline runs' routes with `cluster_routes` and prints the two plans it finds.

    python cookbooks/many_runs.py
"""

from __future__ import annotations

import random
from pathlib import Path

from agentdiff import cluster_routes, compare_runs
from agentdiff.routes.skeleton import skeleton
from agentdiff.scenario.folders import runs_in

POOL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "runs_pool"


def sample(variant: str, seed: int = 1) -> list:
    """Ten runs of a variant, drawn with a fixed seed."""
    rng = random.Random(f"{variant}:{seed}")  # noqa: S311 - a reproducible sample, not a secret
    return rng.sample(runs_in(POOL / variant), 10)


def main() -> None:
    baseline = sample("baseline")
    for variant in ("unchanged", "loop", "cost"):
        report = compare_runs(baseline, sample(variant), scenario=f"refund ({variant})")
        print(f"{report.scenario}: {report.verdict.value}")
        for reason in report.reasons:
            print(f"  {reason}")
        cost = next((t for t in report.tests if t.name == "cost_usd"), None)
        if cost is not None and cost.change_pct is not None:
            low, high = cost.change_low or 0.0, cost.change_high or 0.0
            print(
                f"  median cost {cost.change_pct:+.0f} % [{low:+.0f}, {high:+.0f}], "
                f"adjusted p = {cost.adjusted_p:.2g}"
            )
    runs = runs_in(POOL / "baseline")
    routes = cluster_routes([trace for _, trace in runs])
    print(f"{len(runs)} baseline runs take {len(routes.clusters)} routes:")
    for cluster in routes.clusters:
        print(f"  {cluster.name} {len(cluster.runs)}/{len(runs)} runs: {skeleton(cluster.medoid)}")


if __name__ == "__main__":
    main()
