"""Model turns beside LLM calls, partial cost with its coverage, and the cost gate's warning."""

from __future__ import annotations

import pytest

from agentdiff import compare
from agentdiff.models.report import CostCoverage, TokenCoverage
from agentdiff.render.sentences import findings
from tests.realdata import RealSource

from .builders import step, trace

USAGE = {"prompt_tokens": 1_000_000, "completion_tokens": 0, "total_tokens": 1_000_000}


def _turns(*models: str | None, kind: str = "llm_call") -> list:
    """One model turn per model name (None: a turn whose model nobody recorded)."""
    steps = []
    for i, model in enumerate(models):
        meta = {"model": model} if model else {"response_id": f"resp_{i}"}
        steps.append(step(2 * i, kind, "turn", tokens=USAGE, metadata=meta))
        steps.append(step(2 * i + 1, "tool_call", "search", input_payload={"q": i}))
    return steps


def test_model_turns_count_routing_and_response_turns_too():
    """A LangGraph-style run: its model turns are routing/response steps, never llm_call."""
    steps = [
        step(0, "routing", "agent", tokens=USAGE),
        step(1, "tool_call", "search", 0, tokens=USAGE),  # a tool's tokens are not a turn
        step(2, "response", "agent", metadata={"model": "gpt-4o"}),
        step(3, "thought", "note"),
    ]
    summary = compare(trace(steps), trace(steps)).baseline
    assert (summary.llm_calls, summary.model_turns) == (0, 2)


def test_partial_cost_prices_what_it_can_and_says_how_much():
    """Four turns of a known model and one (the Responses-API `response` span) without one."""
    run = trace(_turns("gpt-4o", "gpt-4o", "gpt-4o", "gpt-4o", None))
    summary = compare(run, run).baseline
    assert summary.model_turns == 5
    assert summary.cost_usd == pytest.approx(4 * 2.50)
    assert summary.cost_estimated is True
    assert summary.cost_coverage == CostCoverage(priced=4, turns=5)
    assert str(summary.cost_coverage) == "4 of 5 model turns priced"
    assert summary.cost_coverage.partial


def test_given_and_estimated_costs_add_up_and_unpriced_turns_are_counted():
    given = {**USAGE, "estimated_cost_usd": 0.5}
    steps = [
        step(0, "llm_call", "a", tokens=given),
        step(1, "llm_call", "b", tokens=USAGE, metadata={"model": "gpt-4o-mini"}),
        step(2, "llm_call", "c", tokens=USAGE, metadata={"model": "in-house-7b"}),
    ]
    summary = compare(trace(steps), trace(steps)).baseline
    assert summary.cost_usd == pytest.approx(0.5 + 0.15)
    assert summary.cost_coverage == CostCoverage(priced=2, turns=3)


def test_a_fully_priced_or_unpriced_side_is_not_partial():
    priced = compare(trace(_turns("gpt-4o")), trace(_turns("gpt-4o"))).baseline
    assert priced.cost_coverage == CostCoverage(priced=1, turns=1)
    assert not priced.cost_coverage.partial
    unknown = compare(trace(_turns(None)), trace(_turns(None))).baseline
    assert unknown.cost_usd is None
    assert unknown.cost_coverage == CostCoverage(priced=0, turns=1)
    assert not unknown.cost_coverage.partial
    none = compare(trace([step(0, "tool_call", "x")]), trace([step(0, "tool_call", "x")]))
    assert none.baseline.cost_coverage is None


def test_model_turns_delta_is_reported():
    report = compare(trace(_turns("gpt-4o")), trace(_turns("gpt-4o", "gpt-4o", None)))
    assert (report.deltas.model_turns.baseline, report.deltas.model_turns.candidate) == (1, 3)
    assert report.deltas.model_turns.delta == 2


def test_partial_cost_warns_and_never_judges():
    """+200% on what is priced would fail a known cost; partly priced it only warns."""
    report = compare(trace(_turns("gpt-4o")), trace(_turns("gpt-4o", "gpt-4o", "gpt-4o", None)))
    assert report.deltas.cost_usd.pct == pytest.approx(200.0)
    assert "cost" not in [v.rule for v in report.gate.violations]
    (warning,) = [w for w in report.gate.warnings if w.rule == "cost"]
    assert "3 of 4 model turns priced on the candidate" in warning.message
    assert "+200.0% on what is priced" in warning.message
    assert "not judged" in warning.message


def test_fully_priced_cost_is_still_judged():
    report = compare(trace(_turns("gpt-4o")), trace(_turns("gpt-4o", "gpt-4o", "gpt-4o")))
    assert "cost" in [v.rule for v in report.gate.violations]


def test_real_openai_agents_run_is_four_of_five_priced():
    """The Agents SDK's Responses-API triage turn names no model; the four chat turns do."""
    source = RealSource("openai_agents")
    run = source.load("export", "identical", "baseline")
    facts = source.facts("identical", "baseline")
    summary = compare(run, run).baseline
    assert summary.model_turns == facts["llm_calls"] == 5
    assert summary.cost_coverage == CostCoverage(priced=4, turns=5)
    assert summary.cost_usd is not None


def _tokened(*tokens: int | None, prefix: str = "s") -> list:
    """One model turn per entry: its total tokens (None: a turn that reported none)."""
    return [
        step(
            i, "llm_call", "turn", prefix=prefix, tokens=None if n is None else {"total_tokens": n}
        )
        for i, n in enumerate(tokens)
    ]


def test_tokens_reported_by_some_turns_only_are_said_so_and_never_judged():
    """The baseline's second turn reported no tokens: its total (100) covers half its turns,
    so the candidate's 200 over two turns is no 'tokens up 100%' (the gate failed on it)."""
    base, cand = trace(_tokened(100, None)), trace(_tokened(100, 100, prefix="c"))
    report = compare(base, cand)
    assert (report.baseline.total_tokens, report.candidate.total_tokens) == (100, 200)
    assert report.baseline.token_coverage == TokenCoverage(reported=1, turns=2)
    assert str(report.baseline.token_coverage) == "1 of 2 model turns reports tokens"
    assert report.candidate.token_coverage == TokenCoverage(reported=2, turns=2)
    assert report.passed
    (warning,) = [w.message for w in report.gate.warnings if w.rule == "tokens"]
    assert warning == (
        "tokens partly reported (1 of 2 model turns reports tokens on the baseline)"
        " (+100.0% on what is reported); tokens gate not judged"
    )
    said = "total tokens 100 → 200 (+100.0%); partly reported: 1 of 2 model turns reports tokens"
    assert f"{said} on the baseline" in findings(report)
    whole = compare(trace(_tokened(100, 100)), trace(_tokened(100, 300, prefix="c")))
    assert [v.rule for v in whole.gate.violations] == ["tokens"]


def test_a_trace_total_covers_every_turn():
    run = trace(_tokened(100, None), total_tokens={"total_tokens": 300})
    assert compare(run, run).baseline.token_coverage == TokenCoverage(reported=2, turns=2)


def _two_turns(prefix: str, latencies: tuple[float | None, float | None]):
    """Two root LLM steps with these latencies, no timestamps and no trace total."""
    steps = [
        step(i, "llm_call", "model", prefix=prefix, latency_ms=ms) for i, ms in enumerate(latencies)
    ]
    return trace(steps, prefix)


def test_latency_summed_over_some_root_steps_is_unknown_never_judged():
    """A baseline step without latency made the baseline's sum look 70 ms short: 'latency up
    70%' and a gate warning, where nothing says how long the baseline run took."""
    report = compare(_two_turns("b", (100.0, None)), _two_turns("c", (120.0, 50.0)))
    latency = report.deltas.latency_ms
    assert (latency.baseline, latency.candidate, latency.pct) == (None, 170.0, None)
    assert not [v for v in report.gate.violations if "latency" in v.rule]
    whole = compare(_two_turns("b", (100.0, 20.0)), _two_turns("c", (120.0, 50.0)))
    assert (whole.deltas.latency_ms.baseline, whole.deltas.latency_ms.candidate) == (120.0, 170.0)
