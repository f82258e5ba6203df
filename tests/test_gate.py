"""The gate's rules and defaults (see the table in `agentdiff.gate`)."""

from __future__ import annotations

import pytest

from agentdiff import CompareOptions, compare
from agentdiff.config import SETTINGS
from agentdiff.figures import fixed
from agentdiff.gate import RULES, GateThresholds, evaluate_gate, verdict
from agentdiff.models.report import (
    Delta,
    Deltas,
    DiffReport,
    GateResult,
    GateViolation,
    LoopFinding,
)
from tests.diff.builders import tools
from tests.records import same_record


def _delta(base: float | None, cand: float | None) -> Delta:
    if base is None or cand is None:
        return Delta(baseline=base, candidate=cand, delta=None, pct=None)
    pct = (cand - base) / base * 100 if base else None
    return Delta(baseline=base, candidate=cand, delta=cand - base, pct=pct)


def _deltas(**given: tuple[float | None, float | None]) -> Deltas:
    fields = {name: _delta(1, 1) for name in Deltas.model_fields}
    fields.update({name: _delta(*pair) for name, pair in given.items()})
    return Deltas(**fields)


_PLAIN = compare(tools(("a", {})), tools(("a", {}), prefix="c"))


def _report(divergence=0.0, loops=(), tool_counts=None, **deltas) -> DiffReport:
    """A report with the given findings (everything else: two identical one-call runs)."""
    candidate = _PLAIN.candidate.model_copy(update={"tool_counts": tool_counts or {}})
    return _PLAIN.model_copy(
        update={
            "divergence": divergence,
            "loops": list(loops),
            "deltas": _deltas(**deltas),
            "candidate": candidate,
        }
    )


def _gate(thresholds=None, **findings) -> GateResult:
    return evaluate_gate(_report(**findings), thresholds or GateThresholds())


def _rules(items: list[GateViolation]) -> list[str]:
    return [v.rule for v in items]


LOOP = LoopFinding(names=["get_weather"], repetitions=4, step_ids=["a", "b", "c", "d"], new=True)


def test_defaults_table():
    t = GateThresholds()
    assert (t.max_divergence, t.max_cost_increase, t.max_token_increase) == (0.5, 25.0, 25.0)
    assert (t.max_latency_increase, t.max_new_errors, t.allow_loops) == (50.0, None, False)
    assert (t.max_tool_repeats, t.max_changed_calls) == (None, None)


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


def test_a_value_just_past_its_limit_never_reads_as_the_limit():
    divergence = _gate(GateThresholds(max_divergence=0), divergence=1 / 1320)
    assert [v.message for v in divergence.violations] == [
        "trajectory divergence 0.001 exceeds 0.00"
    ]
    tokens = _gate(total_tokens=(2609, 2609 + 653))
    assert [v.message for v in tokens.violations] == ["tokens up 25.03% (limit 25%)"]
    latency = _gate(latency_ms=(1000, 1500.4))
    assert [w.message for w in latency.warnings] == ["latency up 50.04% (limit 50%)"]
    alternate = _gate(divergence=0.001)
    assert [w.message for w in alternate.warnings] == [
        "alternate route: divergence 0.001 within budget"
    ]


@pytest.mark.parametrize(
    ("value", "digits", "limit", "written"),
    [
        (0.0, 2, None, "0.00"),
        (0.5, 2, 0.5, "0.50"),
        (0.51, 2, 0.5, "0.51"),
        (0.00076, 2, None, "0.001"),
        (0.00004, 2, None, "0.00004"),
        (0.00076, 2, 0.0, "0.001"),
        (25.03, 1, 25, "25.03"),
        (25.0004, 1, 25, "25.0004"),
        (0.5 + 1e-12, 2, 0.5, repr(0.5 + 1e-12)),
    ],
)
def test_fixed_adds_digits_only_where_fewer_mislead(value, digits, limit, written):
    assert fixed(value, digits, limit) == written


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


def _errors_gate(base, cand, limit=None) -> tuple[list[str], list[str]]:
    """The errors rule's (violation, warning) messages of `compare(base, cand)`."""
    options = CompareOptions(gate=GateThresholds(max_new_errors=limit))
    gate = compare(base, cand, options=options).gate
    hard = [v.message for v in gate.violations if v.rule == "errors"]
    return hard, [w.message for w in gate.warnings if w.rule == "errors"]


_FETCH, _FAILED_FETCH = ("fetch", {"u": 1}), ("fetch", {"u": 1}, "error")


def test_new_errors_warn_by_default_and_fail_past_a_limit():
    base = tools(_FETCH, ("get", {}))
    cand = tools(_FAILED_FETCH, _FAILED_FETCH, _FETCH, ("get", {}), prefix="c")
    assert _errors_gate(base, cand) == ([], ["2 new errors in the candidate: fetch"])
    assert _errors_gate(base, cand, 1) == (["2 new errors in the candidate: fetch (limit 1)"], [])
    assert _errors_gate(base, cand, 2) == ([], ["2 new errors in the candidate: fetch"])


def test_a_new_error_is_one_the_baseline_did_not_fail_not_a_rise_in_the_count():
    """The candidate fixed the baseline's failed fetch and failed a `get` the baseline did not
    fail: the same error count, one new error (the gate said nothing, and passed it under
    `max_new_errors` 0). A failure the baseline has at the same place is not new."""
    base = tools(_FAILED_FETCH, _FETCH, ("get", {}))
    moved = tools(_FETCH, ("get", {}, "error"), ("get", {}), prefix="c")
    assert compare(base, moved).deltas.errors.delta == 0
    assert _errors_gate(base, moved) == ([], ["1 new error in the candidate: get"])
    assert _errors_gate(base, moved, 0) == (["1 new error in the candidate: get (limit 0)"], [])
    same = tools(_FAILED_FETCH, _FETCH, ("get", {}), prefix="c")
    assert _errors_gate(base, same, 0) == ([], [])


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
    read_off_steps = {"changed_calls", "errors"}  # a plain pair's alignment has neither
    assert set(_rules(result.violations + result.warnings)) | read_off_steps == {
        r.name for r in RULES
    }


def test_changed_calls_warn_naming_them_and_fail_past_a_limit():
    base = tools(("geocode", {"city": "Paris"}), ("get_weather", {"lat": 1}))
    cand = tools(("geocode", {"city": "Lyon"}), ("get_weather", {"lat": 2}), prefix="c")
    report = compare(base, cand)
    assert (report.divergence, report.changed_calls) == (0.0, 2)
    assert report.first_divergence is None
    assert report.first_change is not None and report.first_change.candidate.name == "geocode"
    (warning,) = [w for w in report.gate.warnings if w.rule == "changed_calls"]
    assert (warning.rule, warning.message) == (
        "changed_calls",
        "2 calls changed arguments: geocode, get_weather",
    )
    assert "alternate route" not in verdict(report.gate).lower()
    assert verdict(report.gate).endswith("Trajectory within budget. Calls changed, not blocking.")
    capped = evaluate_gate(report, GateThresholds(max_changed_calls=1))
    assert [v.message for v in capped.violations] == [
        "2 calls changed arguments: geocode, get_weather (limit 1)"
    ]
    assert evaluate_gate(report, GateThresholds(max_changed_calls=2)).passed


def test_status_changes_are_named_as_status():
    base = tools(("geocode", {"city": "Paris"}))
    cand = tools(("geocode", {"city": "Paris"}, "error"), prefix="c")
    report = compare(base, cand)
    assert [w.message for w in report.gate.warnings if w.rule == "changed_calls"] == [
        "1 call changed status: geocode"
    ]


def test_the_gate_reruns_from_a_report_read_back_from_json():
    base = tools(("a", {}), ("b", {"n": 1}))
    cand = tools(("a", {}), ("x", {}), ("b", {"n": 2}), *[("poll", {})] * 3, prefix="c")
    report = compare(base, cand)
    again = DiffReport.model_validate_json(report.to_json())
    assert again.report_version == "2"
    assert evaluate_gate(again, GateThresholds()) == report.gate
    strict = GateThresholds(max_divergence=0.05, max_tool_repeats=2, max_changed_calls=0)
    assert (
        evaluate_gate(again, strict)
        == compare(base, cand, options=CompareOptions(gate=strict)).gate
    )


def test_every_rule_has_its_setting_in_config_and_thresholds():
    names = {s.name for s in SETTINGS if s.section == "gate"}
    assert [r.setting for r in RULES] == [s.name for s in SETTINGS if s.section == "gate"]
    assert [r.name for r in RULES][:4] == ["loop", "cost", "tokens", "divergence"]
    assert names == set(GateThresholds.model_fields)
    assert all(r.help and r.warned for r in RULES)


@pytest.mark.parametrize(
    "findings",
    [{}, {"loops": [LOOP], "divergence": 0.3, "cost_usd": (1.0, 2.0)}, {"latency_ms": (1, 9)}],
)
def test_gate_records_equal_the_validated_ones(findings, monkeypatch):
    fast = _gate(**findings)
    for violation in fast.violations + fast.warnings:
        same_record(violation, GateViolation(rule=violation.rule, message=violation.message))
    same_record(fast, GateResult(**fast.__dict__))

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("validated")

    for record in (GateResult, GateViolation):  # built as validation would, without it
        monkeypatch.setattr(record, "__init__", refuse)
    assert _gate(**findings) == fast
