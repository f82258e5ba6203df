"""A prepared side's own lists give the totals the counts over every step give.

`totals.side_totals` hands `metrics.summarize` the side's tool calls (`Side.call`), failed
attempts (`Side.failed`) and model turns (`Side.model_turns`, picked as the side read its steps)
instead of counting the steps again, and `summarize` counts the LLM calls among the model turns:
each must equal the plain count over the trace's steps.
"""

from __future__ import annotations

import pytest

from agentdiff import load_trace
from agentdiff.diff.metrics import model_turns, summarize
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import prepare
from agentdiff.diff.pricing import DEFAULT_PRICES
from agentdiff.diff.recovery import later_attempts
from agentdiff.diff.signatures import Signer
from agentdiff.diff.totals import side_totals
from agentdiff.models.trace import FAILED, AgentTrace, StepStatus, StepType
from tests.diff.builders import step, trace
from tests.realdata import real_pairs


def _check(run: AgentTrace) -> None:
    side = prepare(run, Signer(Normalizer(), strict=False))
    attempts = later_attempts(side)
    given = side_totals(run, side, DEFAULT_PRICES, attempts)
    counted = summarize(
        run,
        DEFAULT_PRICES,
        side.wall_clock,
        side.refs,
        retries=given.retries,
        tool_counts=given.tool_counts,
    )
    assert given == counted
    steps = run.steps
    picked = model_turns(steps)
    assert list(map(id, side.model_turns)) == list(map(id, picked))  # the same dicts, in order
    assert given.tool_calls == sum(s.step_type is StepType.TOOL_CALL for s in steps)
    assert given.llm_calls == sum(s.step_type is StepType.LLM_CALL for s in steps)
    assert given.errors == sum(s.status in FAILED for s in steps)
    assert given.abandoned == sum(s.status is StepStatus.ABANDONED for s in steps)


@pytest.mark.parametrize("pair", real_pairs(), ids=lambda p: p.id)
def test_side_counts_equal_counts_over_the_steps_on_real_pairs(pair):
    for path in (pair.baseline, pair.candidate):
        _check(load_trace(path))


def test_side_counts_equal_counts_over_the_steps_of_every_kind_and_status():
    kinds = ["llm_call", "tool_call", "routing", "thought", "response"]
    statuses = ["success", "error", "retry", "abandoned"]
    usage = {"prompt_tokens": 3, "completion_tokens": 2}
    extras = [{}, {"metadata": {"model": "gpt-4o"}}, {"tokens": usage}, {"metadata": {"x": 1}}]
    steps = [
        step(
            i,
            kinds[i % 5],
            f"n{i % 3}",
            status=statuses[i % 4],
            parent=i - 1 if i % 2 else None,
            **extras[i % 4],
        )
        for i in range(40)
    ]
    run = trace(steps)
    _check(run)
    turns = prepare(run, Signer(Normalizer(), strict=False)).model_turns
    # every llm_call, and any other step but a tool call that has tokens or names a model
    assert [h["step_id"] for h in turns] == [
        f"s{i}"
        for i in range(40)
        if kinds[i % 5] == "llm_call" or (kinds[i % 5] != "tool_call" and i % 4 in (1, 2))
    ]
