"""Compacted traces hold the same data, say the same fields-sets, and stay independent."""

from __future__ import annotations

import orjson

from agentdiff.models.compact import compact_trace
from agentdiff.models.trace import AgentTrace, TraceStep
from agentdiff.render import RenderOptions, render, render_output
from tests.realdata import real_sources
from tests.render.reports import real_report


def _real_traces() -> list[AgentTrace]:
    return [
        source.load(shape, scenario, side)
        for source in real_sources()
        for shape, scenario, side in source.cases()
        if source.path(shape, scenario, side).exists()
    ]


def _fresh(trace: AgentTrace) -> AgentTrace:
    return AgentTrace.model_validate(orjson.loads(orjson.dumps(trace.model_dump(mode="json"))))


def test_compacting_real_traces_changes_nothing_visible() -> None:
    traces = _real_traces()
    assert len(traces) > 100
    for trace in traces:
        before = _fresh(trace)
        after = compact_trace(_fresh(trace))
        assert after == before
        assert after.model_dump_json() == before.model_dump_json()
        for mine, theirs in zip(after.steps, before.steps, strict=True):
            assert mine.model_fields_set == theirs.model_fields_set
            if theirs.tokens is not None:
                assert mine.tokens is not None
                assert mine.tokens.model_fields_set == theirs.tokens.model_fields_set


def _step(step_id: str, parent: str | None = None) -> TraceStep:
    return TraceStep(
        step_id=step_id, parent_id=parent, step_index=0, step_type="tool_call", name="search"
    )


def _copy(text: str) -> str:
    """An equal string that is another object (as two parsed JSON strings are)."""
    return text.encode().decode()


def test_names_and_parent_ids_are_shared_and_steps_stay_independent() -> None:
    trace = AgentTrace(
        trace_id="t",
        agent_name="a",
        steps=[_step("root"), _step("c1", _copy("root")), _step("c2")],
    )
    assert trace.steps[1].parent_id is not trace.steps[0].step_id
    compact_trace(trace)
    first, child, last = trace.steps
    assert child.parent_id is first.step_id
    assert child.name is first.name is last.name
    assert first.model_fields_set is last.model_fields_set
    first.metadata = {"k": 1}
    assert "metadata" in first.model_fields_set
    assert "metadata" not in last.model_fields_set
    assert last.metadata is None


def test_json_is_written_as_the_same_bytes() -> None:
    report = real_report("loop")
    options = RenderOptions()
    assert render_output(report, "json", options) == render(report, "json", options).encode()
    redacted = RenderOptions(redact=True)
    assert render_output(report, "json", redacted) == render(report, "json", redacted).encode()
    assert render_output(report, "markdown", options) == render(report, "markdown", options)
