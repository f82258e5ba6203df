"""The diff engine tells the truth on real SDK-captured runs, for every adapter and shape."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from agentdiff import StepStatus, StepType, compare, load_trace
from agentdiff.models.report import DiffReport, Op
from tests.realdata import RealPair, real_pairs

ON_PATH = {Op.MATCH, Op.REORDER}


def _compare(pair: RealPair) -> DiffReport:
    return compare(load_trace(pair.baseline), load_trace(pair.candidate))


def _ids(scenario):
    pairs = real_pairs(scenario)
    return pytest.mark.parametrize("pair", pairs, ids=[p.id for p in pairs])


def test_every_source_has_every_scenario():
    sources = Counter((p.source, p.shape) for p in real_pairs())
    assert sources, "no real fixtures found"
    assert {s for s, _ in sources} >= {
        "langgraph",
        "langsmith",
        "openinference",
        "langfuse",
        "openai_agents",
        "crewai",
        "genai",
    }
    assert set(sources.values()) == {5}, sources


@_ids("identical")
def test_identical_runs_do_not_diverge(pair):
    report = _compare(pair)
    assert report.divergence == 0.0
    assert report.first_divergence is None
    assert {e.op for e in report.alignment} <= ON_PATH
    assert report.loops == []
    assert report.gate.passed, report.gate.violations


@_ids("reworded")
def test_reworded_runs_do_not_diverge_but_record_content(pair):
    report = _compare(pair)
    assert report.divergence == 0.0, [e for e in report.alignment if e.op not in ON_PATH]
    assert report.content_changes > 0
    assert report.loops == []


def _extra_tools(pair: RealPair) -> list[str]:
    base = Counter(c["name"] for c in pair.facts("baseline")["tool_calls"])
    cand = Counter(c["name"] for c in pair.facts("candidate")["tool_calls"])
    return list((cand - base).elements())


@_ids("detour")
def test_detour_is_one_block_of_inserts_with_the_extra_tool(pair):
    report = _compare(pair)
    ops = [e.op for e in report.alignment]
    assert Op.DELETE not in ops
    diverging = [i for i, op in enumerate(ops) if op not in ON_PATH]
    assert diverging == list(range(diverging[0], diverging[-1] + 1)), "inserts are not one block"
    inserted = [report.alignment[i].candidate for i in diverging]
    assert all(report.alignment[i].op is Op.INSERT for i in diverging)
    tools = [s.name.rsplit("/", 1)[-1] for s in inserted if s and s.step_type is StepType.TOOL_CALL]
    assert tools == _extra_tools(pair)
    assert not [
        e
        for e in report.alignment
        if e.op is Op.CHANGE and e.candidate and e.candidate.step_type is StepType.TOOL_CALL
    ]
    assert report.first_divergence == report.alignment[diverging[0]]
    assert report.loops == []
    assert report.deltas.tool_calls.delta == len(_extra_tools(pair))


@_ids("loop")
def test_loop_is_flagged_new_and_fails_the_gate(pair):
    report = _compare(pair)
    facts = pair.facts("candidate")["tool_calls"]
    # the same call (tool and arguments) repeated: a shell tool's other commands are other calls
    calls = Counter((c["name"], json.dumps(c["arguments"], sort_keys=True)) for c in facts)
    (name, _), repeated = calls.most_common(1)[0]
    assert len(report.loops) == 1, report.loops
    loop = report.loops[0]
    assert [n.rsplit("/", 1)[-1] for n in loop.names] == [name]
    assert loop.repetitions == repeated
    assert loop.new
    assert not report.gate.passed
    assert any(v.rule == "loop" for v in report.gate.violations)


@_ids("error_retry")
def test_error_then_retry_is_recovery_not_a_loop(pair):
    report = _compare(pair)
    failed = [c for c in pair.facts("candidate")["tool_calls"] if c["error"]]
    assert report.candidate.errors == len(failed) == 1
    assert report.baseline.errors == 0
    assert report.loops == []
    assert len(report.recovery) == 1
    recovery = report.recovery[0]
    assert recovery.recovered
    assert recovery.retry
    assert recovery.outcome == "retried_succeeded"
    assert report.candidate.retries == 1
    trace = report.candidate_trace
    assert trace is not None
    error_step = trace.step_map()[recovery.error_step_id]
    assert error_step.status is StepStatus.ERROR
    assert error_step.step_type is StepType.TOOL_CALL
