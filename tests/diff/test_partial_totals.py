"""A trace total that is only the sum of the turns that report never reads as covering them all.

Adapters give a trace the sum of its steps' tokens and cost, which leaves out a turn that reports
none; the gates then judged a partial total as complete ("tokens up 49.3 %" for a turn that
merely reported nothing; "no cost spike" for a turn the server did not price).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from agentdiff import compare
from agentdiff.loader import parse_trace_data
from tests.diff.builders import step, trace
from tests.realdata import REAL

_OI = REAL / "openinference" / "detour" / "candidate.spans.json"


def _without_tokens(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The spans with the token counts of their first LLM span removed."""
    spans = copy.deepcopy(spans)
    first = next(s for s in spans if "llm.token_count.prompt" in s["attributes"])
    for key in [k for k in first["attributes"] if k.startswith("llm.token_count.")]:
        del first["attributes"][key]
    return spans


def test_a_real_trace_with_one_unreported_turn_is_not_judged_on_tokens() -> None:
    spans = json.loads(_OI.read_text())
    whole, partial = parse_trace_data(spans), parse_trace_data(_without_tokens(spans))
    report = compare(partial, whole)
    coverage = report.baseline.token_coverage
    assert coverage is not None
    assert coverage.partial
    assert coverage.reported == coverage.turns - 1
    assert report.gate.passed
    assert not [v for v in report.gate.violations if v.rule == "tokens"]
    assert any("partly reported" in w.message for w in report.gate.warnings if w.rule == "tokens")


def _turns(costs: list[float | None], *, total: float | None, prefix: str = "s") -> Any:
    steps = [
        step(
            i,
            "llm_call",
            "unpriced-model",
            prefix=prefix,
            tokens={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            | ({} if cost is None else {"estimated_cost_usd": cost}),
        )
        for i, cost in enumerate(costs)
    ]
    given = {"prompt_tokens": 30, "completion_tokens": 15, "total_tokens": 45}
    if total is not None:
        given["estimated_cost_usd"] = total  # type: ignore[assignment]
    return trace(steps, trace_id=prefix, total_tokens=given)


def test_a_summed_cost_that_leaves_an_unpriced_turn_out_is_partly_priced() -> None:
    summed = compare(_turns([0.01, 0.01, 0.01], total=0.03), _turns([0.01, None, 0.01], total=0.02))
    coverage = summed.candidate.cost_coverage
    assert coverage is not None
    assert (coverage.priced, coverage.turns) == (2, 3)
    assert not [v for v in summed.gate.violations if v.rule == "cost"]
    assert any("partly priced" in w.message for w in summed.gate.warnings if w.rule == "cost")


def test_a_source_total_beyond_the_steps_sum_is_the_total() -> None:
    """A total the steps do not add up to is the source's own: it covers every turn."""
    report = compare(_turns([0.01, 0.01, 0.01], total=0.03), _turns([0.01, None, 0.01], total=0.05))
    assert report.candidate.cost_usd == 0.05
    coverage = report.candidate.cost_coverage
    assert coverage is not None
    assert (coverage.priced, coverage.turns) == (3, 3)
