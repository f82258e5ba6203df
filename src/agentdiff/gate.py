"""The CI gate: thresholds in, a verdict with hard violations and soft warnings out.

Defaults (one table, shared by the CLI, the Python API and the pytest plugin):

=========================  =========  ==========================================================
rule                       severity   default
=========================  =========  ==========================================================
new or grown loop          hard       fails (``allow_loops=True``: reported, never fails)
divergence                 hard       > 0.5 fails; any divergence within budget is a soft
                                      "alternate route" warning
cost increase (%)          hard       > 25 fails, when known on both sides; unknown → warning
total-token increase (%)   hard       > 25 fails, when known on both sides; unknown → warning
latency increase (%)       soft       > 50 warns
new errors                 soft       any warns (``max_new_errors=N``: more than N fails)
tool repeats               hard       off (``max_tool_repeats=N``: any tool called > N times fails)
=========================  =========  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from agentdiff.models.report import Delta, Deltas, GateResult, GateViolation, LoopFinding

__all__ = ["GateThresholds", "evaluate_gate"]


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
) -> GateResult:
    """Apply `thresholds` to the findings of one comparison."""
    hard: list[GateViolation] = []
    soft: list[GateViolation] = []
    _loops(loops, thresholds, hard, soft)
    _divergence(divergence, thresholds, hard, soft)
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
