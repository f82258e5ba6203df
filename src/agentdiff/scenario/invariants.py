"""Invariants stay rules: a loop in a candidate run that no baseline run shows (or shows shorter).

Tests cannot carry rare events at small N (a loop in 3 of 10 candidate runs against 0 of 10 has
Fisher p = 0.105), so a loop keyed by tool and normalized arguments that appears in a candidate
run, and in no baseline run with at least as many repetitions, fails the scenario with its
frequency. The price: a baseline behaviour of rate p goes unseen in N runs with probability
(1 − p)^N and then reads as new; `[stats] loops = "rate"` uses Fisher's test instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentdiff.scenario.profile import RunProfile
from agentdiff.scenario.report import Invariant

__all__ = ["new_loops", "runs_with_new_loops"]


def _known(baseline: Sequence[RunProfile]) -> dict[tuple[str, ...], int]:
    known: dict[tuple[str, ...], int] = {}
    for run in baseline:
        for loop in run.loops:
            known[loop.key] = max(known.get(loop.key, 0), loop.repetitions)
    return known


def new_loops(baseline: Sequence[RunProfile], candidate: Sequence[RunProfile]) -> list[Invariant]:
    """One finding per loop key that candidate runs show beyond every baseline run.

    Its repetitions are a range when its runs differ (`×3 to ×5 in 2/5 runs`): the most
    beside every run that shows the loop at all would claim ×5 of a run that repeats it 3×.
    """
    known = _known(baseline)
    found: dict[tuple[str, ...], tuple[tuple[str, ...], dict[str, int]]] = {}
    for run in candidate:
        for loop in run.loops:
            if loop.repetitions <= known.get(loop.key, 0):
                continue
            names, reps = found.setdefault(loop.key, (loop.names, {}))
            reps[run.run_id] = max(reps.get(run.run_id, 0), loop.repetitions)
    out = []
    for key, (names, reps) in sorted(found.items(), key=lambda kv: (-len(kv[1][1]), kv[0])):
        label = " → ".join(names)
        seen = known.get(key, 0)
        where = f"baseline runs repeat it at most {seen}×" if seen else "in no baseline run"
        frequency = f"{len(reps)}/{len(candidate)} runs"
        most, fewest = max(reps.values()), min(reps.values())
        times = f"×{most}" if most == fewest else f"×{fewest} to ×{most}"
        out.append(
            Invariant(
                rule="new_loop",
                names=list(names),
                repetitions=most,
                fewest_repetitions=None if most == fewest else fewest,
                runs=list(reps),
                frequency=frequency,
                message=f"loop {label} {times} in {frequency} ({where})",
            )
        )
    return out


def runs_with_new_loops(
    baseline: Sequence[RunProfile], candidate: Sequence[RunProfile]
) -> tuple[int, int]:
    """Runs with a loop (baseline: any loop; candidate: any loop) for the `rate` test."""
    return sum(bool(r.loops) for r in baseline), sum(bool(r.loops) for r in candidate)
