"""Alignment invariants as Hypothesis properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentdiff import AgentTrace, StepStatus, StepType, TraceStep, compare
from agentdiff.models.report import DiffReport, Op

TOOLS = ["geocode", "get_weather", "search", "calc"]


@st.composite
def traces(draw, prefix: str = "s"):
    n = draw(st.integers(0, 25))
    steps = []
    for i in range(n):
        kind = draw(st.sampled_from([StepType.TOOL_CALL, StepType.LLM_CALL, StepType.ROUTING]))
        name = draw(st.sampled_from(TOOLS)) if kind is StepType.TOOL_CALL else kind.value
        parent = draw(st.none() | st.integers(0, i - 1)) if i else None
        steps.append(
            TraceStep(
                step_id=f"{prefix}{i}",
                parent_id=None if parent is None else f"{prefix}{parent}",
                step_index=i,
                step_type=kind,
                name=name,
                input_payload={"q": draw(st.integers(0, 2))},
                status=draw(
                    st.sampled_from([StepStatus.SUCCESS, StepStatus.SUCCESS, StepStatus.ERROR])
                ),
            )
        )
    return AgentTrace(trace_id=prefix, agent_name="a", steps=steps)


def _replay(report: DiffReport) -> tuple[list[str], list[str]]:
    base = [e.baseline.step_id for e in report.alignment if e.baseline is not None]
    cand = [e.candidate.step_id for e in report.alignment if e.candidate is not None]
    return base, cand


@settings(max_examples=200)
@given(traces())
def test_compare_with_itself_is_all_matches(trace):
    report = compare(trace, trace)
    assert {e.op for e in report.alignment} <= {Op.MATCH}
    assert report.divergence == 0.0
    assert report.first_divergence is None
    assert len(report.alignment) == len(trace.steps)


@settings(max_examples=200)
@given(traces("b"), traces("c"))
def test_ops_replay_exactly_to_both_sequences(baseline, candidate):
    report = compare(baseline, candidate)
    base, cand = _replay(report)
    assert sorted(base) == sorted(s.step_id for s in baseline.steps)
    assert sorted(cand) == sorted(s.step_id for s in candidate.steps)
    assert len(set(base)) == len(base) and len(set(cand)) == len(cand)
    for entry in report.alignment:
        if entry.op is Op.INSERT:
            assert entry.baseline is None and entry.candidate is not None
        elif entry.op is Op.DELETE:
            assert entry.candidate is None and entry.baseline is not None
        else:
            assert entry.baseline.step_type == entry.candidate.step_type
            assert entry.baseline.name == entry.candidate.name
    assert 0.0 <= report.divergence <= 1.0


@settings(max_examples=200)
@given(traces("b"), traces("c"))
def test_counts_are_symmetric_when_sides_swap(baseline, candidate):
    forward, backward = compare(baseline, candidate), compare(candidate, baseline)
    f_ops = [e.op for e in forward.alignment]
    b_ops = [e.op for e in backward.alignment]
    assert f_ops.count(Op.INSERT) == b_ops.count(Op.DELETE)
    assert f_ops.count(Op.DELETE) == b_ops.count(Op.INSERT)
    paired_f = len(f_ops) - f_ops.count(Op.INSERT) - f_ops.count(Op.DELETE)
    paired_b = len(b_ops) - b_ops.count(Op.INSERT) - b_ops.count(Op.DELETE)
    assert paired_f == paired_b
    # which of several equally long alignments is picked may differ, so divergence may too
    assert forward.deltas.steps.delta == -(backward.deltas.steps.delta or 0)
