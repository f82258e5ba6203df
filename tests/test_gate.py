"""The gate's rules and defaults (see the table in `agentdiff.gate`)."""

from __future__ import annotations

import pytest

from agentdiff.gate import RULES, GateThresholds, evaluate_gate, verdict
from agentdiff.models.report import Delta, Deltas, GateResult, GateViolation, LoopFinding


def _delta(base: float | None, cand: float | None) -> Delta:
    if base is None or cand is None:
        return Delta(baseline=base, candidate=cand, delta=None, pct=None)
    pct = (cand - base) / base * 100 if base else None
    return Delta(baseline=base, candidate=cand, delta=cand - base, pct=pct)


def _deltas(**given: tuple[float | None, float | None]) -> Deltas:
    fields = {name: _delta(1, 1) for name in Deltas.model_fields}
    fields.update({name: _delta(*pair) for name, pair in given.items()})
    return Deltas(**fields)


def _gate(divergence=0.0, loops=(), tool_counts=None, thresholds=None, **deltas) -> GateResult:
    return evaluate_gate(
        divergence=divergence,
        loops=list(loops),
        deltas=_deltas(**deltas),
        tool_counts=tool_counts or {},
        thresholds=thresholds or GateThresholds(),
    )


def _rules(items: list[GateViolation]) -> list[str]:
    return [v.rule for v in items]


LOOP = LoopFinding(names=["get_weather"], repetitions=4, step_ids=["a", "b", "c", "d"], new=True)


def test_defaults_table():
    t = GateThresholds()
    assert (t.max_divergence, t.max_cost_increase, t.max_token_increase) == (0.5, 25.0, 25.0)
    assert (t.max_latency_increase, t.max_new_errors, t.allow_loops) == (50.0, None, False)
    assert t.max_tool_repeats is None


def test_clean_run_passes_in_plain_words():
    result = _gate()
    assert result.passed
    assert result.violations == result.warnings == []
    assert verdict(result) == "No loops. No cost spike. Trajectory within budget."


def test_new_loop_blocks_unless_allowed():
    result = _gate(loops=[LOOP])
    assert _rules(result.violations) == ["loop"]
    assert verdict(result) == "Blocked by: tool loop get_weather ×4"
    allowed = _gate(loops=[LOOP], thresholds=GateThresholds(allow_loops=True))
    assert allowed.passed
    assert _rules(allowed.warnings) == ["loop"]
    assert verdict(allowed).startswith("Loops seen, not blocking.")


def test_known_loop_only_warns():
    known = LOOP.model_copy(update={"new": False, "baseline_repetitions": 4})
    result = _gate(loops=[known])
    assert result.passed
    assert _rules(result.warnings) == ["loop"]


@pytest.mark.parametrize(("divergence", "passed"), [(0.5, True), (0.51, False)])
def test_divergence_budget(divergence, passed):
    result = _gate(divergence=divergence)
    assert result.passed is passed
    assert _rules(result.warnings if passed else result.violations) == ["divergence"]
    if passed:
        assert "alternate route" in result.warnings[0].message


@pytest.mark.parametrize("field", ["cost_usd", "total_tokens"])
def test_cost_and_tokens_fail_above_25_percent(field):
    assert _gate(**{field: (100, 125)}).passed
    failed = _gate(**{field: (100, 126)})
    assert not failed.passed
    assert "up 26.0%" in failed.violations[0].message


@pytest.mark.parametrize(
    ("pair", "side"),
    [((None, 5), "the baseline"), ((5, None), "the candidate"), ((None, None), "both sides")],
)
def test_unknown_cost_is_a_visible_warning_never_a_silent_pass(pair, side):
    result = _gate(cost_usd=pair)
    assert result.passed
    warning = next(w for w in result.warnings if w.rule == "cost")
    assert "unknown" in warning.message
    assert side in warning.message
    assert "Cost unknown" in verdict(result)


def test_growth_from_zero_fails():
    result = _gate(total_tokens=(0, 10))
    assert _rules(result.violations) == ["tokens"]
    assert "from 0 to 10" in result.violations[0].message


def test_latency_is_soft():
    result = _gate(latency_ms=(100, 200))
    assert result.passed
    assert _rules(result.warnings) == ["latency"]


def test_new_errors_warn_by_default_and_fail_past_a_limit():
    assert _rules(_gate(errors=(0, 2)).warnings) == ["errors"]
    limited = _gate(errors=(0, 2), thresholds=GateThresholds(max_new_errors=1))
    assert _rules(limited.violations) == ["errors"]
    assert _gate(errors=(0, 1), thresholds=GateThresholds(max_new_errors=1)).passed


def test_tool_repeats_cap_is_independent_of_loops():
    counts = {"search": 3, "fetch": 2}
    assert _gate(tool_counts=counts).passed
    capped = _gate(tool_counts=counts, thresholds=GateThresholds(max_tool_repeats=2))
    assert [v.message for v in capped.violations] == ["tool search called 3 times (limit 2)"]


def test_every_rule_is_known():
    result = _gate(
        divergence=0.9,
        loops=[LOOP],
        tool_counts={"x": 9},
        thresholds=GateThresholds(max_new_errors=0, max_tool_repeats=1),
        cost_usd=(1, 9),
        total_tokens=(1, 9),
        latency_ms=(1, 9),
        errors=(0, 1),
    )
    assert set(_rules(result.violations + result.warnings)) == set(RULES)
