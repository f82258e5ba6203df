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


def _base_lcs(b: list[tuple[str, str]], c: list[tuple[str, str]]) -> int:
    row = [0] * (len(c) + 1)
    for x in b:
        prev = 0
        for j, y in enumerate(c, start=1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


@st.composite
def mutated_pairs(draw):
    """A flat random run, and a candidate made from it by inserting, deleting, changing steps.

    Returns (baseline, candidate, kept, changed, inserted, deleted) counts of the construction.
    """
    n = draw(st.integers(0, 30))
    names = [draw(st.sampled_from(TOOLS[:2])) for _ in range(n)]
    args = [draw(st.integers(0, 3)) for _ in range(n)]
    ops = [draw(st.sampled_from(["keep", "keep", "keep", "delete", "change"])) for _ in range(n)]
    inserts = draw(st.lists(st.tuples(st.integers(0, n), st.sampled_from(TOOLS[:2])), max_size=6))
    base = [(names[i], {"q": args[i]}) for i in range(n)]
    cand: list[tuple[str, dict[str, int]]] = []
    counts = {"keep": 0, "change": 0, "delete": 0, "insert": len(inserts)}
    for i in range(n + 1):
        cand.extend((name, {"q": 100 + k}) for k, (at, name) in enumerate(inserts) if at == i)
        if i == n:
            break
        counts[ops[i]] += 1
        if ops[i] == "keep":
            cand.append(base[i])
        elif ops[i] == "change":
            cand.append((names[i], {"q": 50 + args[i]}))
    return _flat(base, "b"), _flat(cand, "c"), counts


def _flat(calls, prefix):
    steps = [
        TraceStep(
            step_id=f"{prefix}{i}",
            step_index=i,
            step_type=StepType.TOOL_CALL,
            name=name,
            input_payload=args,
        )
        for i, (name, args) in enumerate(calls)
    ]
    return AgentTrace(trace_id=prefix, agent_name="a", steps=steps)


def _names(trace):
    return [(s.step_type.value, s.name) for s in trace.steps]


@settings(max_examples=300)
@given(mutated_pairs())
def test_pairs_reach_the_base_lcs_and_keep_what_the_construction_kept(made):
    baseline, candidate, counts = made
    report = compare(baseline, candidate)
    ops = [e.op for e in report.alignment]
    paired = len(ops) - ops.count(Op.INSERT) - ops.count(Op.DELETE)
    assert paired == _base_lcs(_names(baseline), _names(candidate))
    assert paired >= counts["keep"] + counts["change"]
    assert Op.REORDER not in ops  # a flat untimed run has no concurrent groups
    if counts["delete"] == 0 and counts["change"] == 0:
        assert ops.count(Op.MATCH) == len(baseline.steps)
    if counts["delete"] == 0 and counts["insert"] == 0:
        assert (ops.count(Op.MATCH), ops.count(Op.CHANGE)) == (counts["keep"], counts["change"])
    swapped = compare(candidate, baseline)
    s_ops = [e.op for e in swapped.alignment]
    assert (s_ops.count(Op.INSERT), s_ops.count(Op.DELETE)) == (
        ops.count(Op.DELETE),
        ops.count(Op.INSERT),
    )
    base, cand = _replay(report)
    assert base == sorted(base, key=lambda i: int(i[1:]))  # each side in execution order
    assert cand == [s.step_id for s in candidate.steps]


@settings(max_examples=300)
@given(traces("b"), traces("c"))
def test_no_reorder_without_an_inversion(baseline, candidate):
    report = compare(baseline, candidate)
    b_pos = {s.step_id: s.step_index for s in baseline.steps}
    c_pos = {s.step_id: s.step_index for s in candidate.steps}
    pairs = [
        (b_pos[e.baseline.step_id], c_pos[e.candidate.step_id], e)
        for e in report.alignment
        if e.baseline is not None and e.candidate is not None
    ]
    for b, c, entry in pairs:
        if entry.op is Op.REORDER:
            assert entry.baseline.parent_id is not None or entry.candidate.parent_id is not None
            assert any((b - b2) * (c - c2) < 0 for b2, c2, _ in pairs), entry
    assert len(pairs) == len(
        {e.baseline.step_id for e in report.alignment if e.baseline and e.candidate}
    )
