"""The CI gate: thresholds in, a verdict with hard violations and soft warnings out.

Defaults (one table, shared by the CLI, the Python API and the pytest plugin):

=========================  =========  ==========================================================
rule                       severity   default
=========================  =========  ==========================================================
new or grown loop          hard       fails (``allow_loops=True``: reported, never fails)
divergence                 hard       > 0.5 fails; any divergence within budget is a soft
                                      "alternate route" warning
cost increase (%)          hard       > 25 fails, when known on both sides (0 → more fails too);
                                      unknown on either side → an "unknown" warning, never a pass;
                                      partly priced on either side (some model turns without a
                                      cost) → a "partial" warning, never judged
total-token increase (%)   hard       > 25 fails, as for cost
latency increase (%)       soft       > 50 warns
new errors                 soft       any warns (``max_new_errors=N``: more than N fails)
tool repeats               hard       off (``max_tool_repeats=N``: any tool called > N times fails)
=========================  =========  ==========================================================

`verdict(result)` says the outcome in plain words, for every renderer and for
`assert_no_regressions`: "No loops. No cost spike. Trajectory within budget." or
"Blocked by: tool loop get_weather ×4".
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from agentdiff.models.report import (
    CostCoverage,
    Delta,
    Deltas,
    GateResult,
    GateViolation,
    LoopFinding,
)

__all__ = ["RULES", "GateThresholds", "evaluate_gate", "verdict"]

RULES = ("loop", "divergence", "cost", "tokens", "latency", "errors", "tool_repeats")
"""Every rule the gate checks, in report order (`GateViolation.rule` is one of these)."""

_PASS_WORDS: dict[str, tuple[str | None, str]] = {
    # rule: (said when the rule is quiet, said when it only warned)
    "loop": ("No loops.", "Loops seen, not blocking."),
    "cost": ("No cost spike.", "Cost unknown or partly priced, not checked."),
    "tokens": (None, "Tokens unknown, not checked."),
    "divergence": ("Trajectory within budget.", "Alternate route, within budget."),
    "errors": (None, "New errors, within limit."),
    "latency": (None, "Slower, within limit."),
    "tool_repeats": (None, "Tool repeats within limit."),
}


class GateThresholds(BaseModel):
    """Every gate threshold; `None` switches a rule off. Percentages are in percent units."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_divergence: float | None = Field(default=0.5, ge=0, le=1)
    max_cost_increase: float | None = Field(default=25.0, ge=0)
    max_token_increase: float | None = Field(default=25.0, ge=0)
    max_latency_increase: float | None = Field(default=50.0, ge=0)
    max_new_errors: int | None = Field(default=None, ge=0)
    allow_loops: bool = False
    max_tool_repeats: int | None = Field(default=None, ge=1)


def evaluate_gate(
    *,
    divergence: float,
    loops: list[LoopFinding],
    deltas: Deltas,
    tool_counts: Mapping[str, int],
    thresholds: GateThresholds,
    cost_coverage: tuple[CostCoverage | None, CostCoverage | None] = (None, None),
) -> GateResult:
    """Apply `thresholds` to the findings of one comparison.

    `cost_coverage` is (baseline, candidate) from the summaries: a cost that covers only some
    model turns on either side is reported, never judged.
    """
    hard: list[GateViolation] = []
    soft: list[GateViolation] = []
    _loops(loops, thresholds, hard, soft)
    _divergence(divergence, thresholds, hard, soft)
    if not _partial_cost(deltas.cost_usd, cost_coverage, thresholds, soft):
        _percent_rule("cost", deltas.cost_usd, thresholds.max_cost_increase, hard, soft)
    _percent_rule("tokens", deltas.total_tokens, thresholds.max_token_increase, hard, soft)
    _latency(deltas.latency_ms, thresholds, soft)
    _errors(deltas.errors, thresholds, hard, soft)
    _tool_repeats(tool_counts, thresholds, hard)
    return GateResult(passed=not hard, violations=hard, warnings=soft)


def _loops(
    loops: list[LoopFinding],
    t: GateThresholds,
    hard: list[GateViolation],
    soft: list[GateViolation],
) -> None:
    for loop in loops:
        label = " → ".join(loop.names)
        if not loop.new:
            soft.append(
                GateViolation(
                    rule="loop",
                    message=(
                        f"known {loop.kind.replace('_', ' ')} {label} ×{loop.repetitions} "
                        "(the baseline has it too)"
                    ),
                )
            )
            continue
        grown = f", baseline ×{loop.baseline_repetitions}" if loop.baseline_repetitions else ""
        finding = GateViolation(
            rule="loop",
            message=(f"tool {loop.kind.replace('_', ' ')} {label} ×{loop.repetitions}{grown}"),
        )
        (soft if t.allow_loops else hard).append(finding)


def _divergence(
    divergence: float, t: GateThresholds, hard: list[GateViolation], soft: list[GateViolation]
) -> None:
    if divergence <= 0:
        return
    limit = t.max_divergence
    if limit is not None and divergence > limit:
        hard.append(
            GateViolation(
                rule="divergence",
                message=(f"trajectory divergence {divergence:.2f} exceeds {limit:.2f}"),
            )
        )
    else:
        soft.append(
            GateViolation(
                rule="divergence",
                message=(f"alternate route: divergence {divergence:.2f} within budget"),
            )
        )


def _percent_rule(
    what: str,
    delta: Delta,
    limit: float | None,
    hard: list[GateViolation],
    soft: list[GateViolation],
) -> None:
    if limit is None:
        return
    if delta.baseline is None or delta.candidate is None:
        soft.append(
            GateViolation(
                rule=what,
                message=f"{what} unknown on {_unknown_sides(delta)}; {what} gate not checked",
            )
        )
        return
    if delta.pct is not None and delta.pct > limit:
        hard.append(
            GateViolation(rule=what, message=(f"{what} up {delta.pct:.1f}% (limit {limit:g}%)"))
        )
    elif delta.baseline == 0 and delta.candidate > 0:
        hard.append(
            GateViolation(
                rule=what,
                message=f"{what} up from 0 to {delta.candidate:g} (limit {limit:g}%)",
            )
        )


def _partial_cost(
    delta: Delta,
    coverage: tuple[CostCoverage | None, CostCoverage | None],
    t: GateThresholds,
    soft: list[GateViolation],
) -> bool:
    """Warn (and say so) when a known cost leaves some model turns unpriced on either side."""
    partial = [
        f"{c} on the {side}"
        for side, c in zip(("baseline", "candidate"), coverage, strict=True)
        if c is not None and c.partial
    ]
    if t.max_cost_increase is None or not partial or None in (delta.baseline, delta.candidate):
        return False
    change = "" if delta.pct is None else f" ({delta.pct:+.1f}% on what is priced)"
    soft.append(
        GateViolation(
            rule="cost",
            message=f"cost partly priced ({'; '.join(partial)}){change}; cost gate not judged",
        )
    )
    return True


def _latency(delta: Delta, t: GateThresholds, soft: list[GateViolation]) -> None:
    limit = t.max_latency_increase
    if limit is not None and delta.pct is not None and delta.pct > limit:
        soft.append(
            GateViolation(
                rule="latency", message=(f"latency up {delta.pct:.1f}% (limit {limit:g}%)")
            )
        )


def _errors(
    delta: Delta, t: GateThresholds, hard: list[GateViolation], soft: list[GateViolation]
) -> None:
    new = int(delta.delta or 0)
    if new <= 0:
        return
    message = f"{new} new error{'s' if new > 1 else ''} in the candidate"
    if t.max_new_errors is not None and new > t.max_new_errors:
        hard.append(GateViolation(rule="errors", message=f"{message} (limit {t.max_new_errors})"))
    else:
        soft.append(GateViolation(rule="errors", message=message))


def _tool_repeats(counts: Mapping[str, int], t: GateThresholds, hard: list[GateViolation]) -> None:
    if t.max_tool_repeats is None:
        return
    for name, count in sorted(counts.items()):
        if count > t.max_tool_repeats:
            hard.append(
                GateViolation(
                    rule="tool_repeats",
                    message=(f"tool {name} called {count} times (limit {t.max_tool_repeats})"),
                )
            )


def _unknown_sides(delta: Delta) -> str:
    both = delta.baseline is None and delta.candidate is None
    return "both sides" if both else ("the baseline" if delta.baseline is None else "the candidate")


def verdict(result: GateResult) -> str:
    """The outcome in plain words: what blocked the candidate, or why it passed."""
    if not result.passed:
        return "Blocked by: " + "; ".join(v.message for v in result.violations)
    warned = {w.rule for w in result.warnings}
    words = [warn if rule in warned else quiet for rule, (quiet, warn) in _PASS_WORDS.items()]
    return " ".join(w for w in words if w)
