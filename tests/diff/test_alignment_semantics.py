"""Alignment, reorders and concurrency on hand-built pairs (issue 11, items 1-3)."""

from __future__ import annotations

import pytest

from agentdiff import compare, load_trace
from agentdiff.diff import align as align_module
from agentdiff.diff.compare import _align
from agentdiff.diff.groups import reorders
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import prepare
from agentdiff.diff.signatures import Signer
from agentdiff.models.report import Op
from tests.realdata import real_pairs

from .builders import step, tools, trace


def _ops(report) -> list[tuple[str, str]]:
    return [(e.op.value, (e.candidate or e.baseline).step_id) for e in report.alignment]


def _count(report, op: Op) -> int:
    return sum(e.op is op for e in report.alignment)


def _paired(report) -> int:
    return sum(e.baseline is not None and e.candidate is not None for e in report.alignment)


def _inserted(report) -> list[str]:
    """The inserted steps as `name` or `name(n)`, sorted."""
    trace_steps = report.candidate_trace.step_map()
    out = []
    for e in report.alignment:
        if e.op is Op.INSERT:
            n = trace_steps[e.candidate.step_id].input_payload.get("n")
            out.append(e.candidate.name if n is None else f"{e.candidate.name}({n})")
    return sorted(out)


def _lookup(n: int) -> tuple[str, dict[str, int]]:
    return ("lookup", {"n": n})


def test_insert_into_a_run_of_same_tool_calls_is_one_insert():
    base = tools(*map(_lookup, [1, 2, 3, 4]))
    cand = tools(*map(_lookup, [1, 2, 99, 3, 4]), prefix="c")
    report = compare(base, cand)
    assert _inserted(report) == ["lookup(99)", "model"]
    assert _count(report, Op.CHANGE) == 0 == _count(report, Op.DELETE)


def test_late_insert_after_a_long_same_tool_prefix_is_no_cascade():
    calls = list(map(_lookup, range(60)))
    cand_calls = [*calls[:50], _lookup(1000), *calls[50:]]
    report = compare(tools(*calls), tools(*cand_calls, prefix="c"))
    assert _count(report, Op.CHANGE) == 0 == _count(report, Op.DELETE)
    assert _inserted(report) == ["lookup(1000)", "model"]


def _fan_out(args: list[int], prefix: str, name: str = "fetch"):
    steps = [step(0, "llm_call", "model", prefix=prefix)]
    for i, n in enumerate(args, start=1):
        steps.append(step(i, "tool_call", name, 0, prefix=prefix, input_payload={"n": n}))
    return trace(steps, trace_id=prefix)


def test_fan_out_plus_one_is_one_insert_and_no_reorder():
    report = compare(_fan_out([1, 2, 3], "b"), _fan_out([1, 2, 7, 3], "c"))
    assert [(op, i) for op, i in _ops(report) if op != "match"] == [("insert", "c3")]


def test_fan_out_with_one_changed_argument_is_one_change():
    report = compare(_fan_out([1, 2, 3], "b"), _fan_out([1, 5, 3], "c"))
    assert [(op, i) for op, i in _ops(report) if op != "match"] == [("change", "c2")]
    (changed,) = [e for e in report.alignment if e.op is Op.CHANGE]
    assert [(c.path, c.baseline, c.candidate) for c in changed.changes] == [
        ("input_payload.n", 2, 5)
    ]


def test_fan_out_issued_in_another_order_pairs_call_by_call():
    report = compare(_fan_out([1, 2, 3], "b"), _fan_out([3, 1, 2], "c"))
    assert _count(report, Op.CHANGE) == 0
    assert [(op, i) for op, i in _ops(report) if op != "match"] == [("reorder", "c1")]
    assert report.divergence == 0.0
    pairs = {e.candidate.step_id: e.baseline.step_id for e in report.alignment}
    assert pairs == {"c0": "b0", "c1": "b3", "c2": "b1", "c3": "b2"}


def test_deletion_inside_a_group_reorders_nothing():
    report = compare(_fan_out([1, 2, 3, 4], "b"), _fan_out([1, 3, 4], "c"))
    assert [(op, i) for op, i in _ops(report) if op != "match"] == [("delete", "b2")]


def test_each_side_is_reported_in_the_order_it_ran():
    report = compare(_fan_out([1, 2, 3], "b"), _fan_out([3, 1, 2], "c"))
    assert [e.candidate.step_id for e in report.alignment] == ["c0", "c1", "c2", "c3"]
    multi = compare(
        trace(
            [
                step(0, "llm_call", "m"),
                *(step(i, "tool_call", n, 0) for i, n in [(1, "b"), (2, "a")]),
            ]
        ),
        trace(
            [
                step(0, "llm_call", "m", prefix="c"),
                *(step(i, "tool_call", n, 0, prefix="c") for i, n in [(1, "b"), (2, "a")]),
            ],
            "c",
        ),
    )
    assert [e.candidate.step_id for e in multi.alignment] == ["c0", "c1", "c2"]
    assert {e.op for e in multi.alignment} == {Op.MATCH}


def _timed(i, kind, name, parent, start, end, prefix):
    meta = (
        {}
        if start is None
        else {
            "started_at": f"2026-01-01T00:00:{start:02d}Z",
            "ended_at": f"2026-01-01T00:00:{end:02d}Z",
        }
    )
    return step(i, kind, name, parent, prefix=prefix, metadata=meta)


def test_timed_sequential_swap_in_a_flat_trace_diverges():
    base = trace(
        [_timed(0, "tool_call", "a", None, 0, 1, "b"), _timed(1, "tool_call", "b", None, 2, 3, "b")]
    )
    cand = trace(
        [
            _timed(0, "tool_call", "b", None, 0, 1, "c"),
            _timed(1, "tool_call", "a", None, 2, 3, "c"),
        ],
        "c",
    )
    report = compare(base, cand)
    assert _count(report, Op.REORDER) == 0
    assert report.divergence > 0


def test_untimed_flat_roots_are_not_one_turn():
    base = trace([step(0, "tool_call", "a"), step(1, "tool_call", "b")])
    cand = trace(
        [step(0, "tool_call", "b", prefix="c"), step(1, "tool_call", "a", prefix="c")], "c"
    )
    report = compare(base, cand)
    assert _count(report, Op.REORDER) == 0
    assert report.divergence > 0


def test_one_untimed_step_among_overlapping_subagents():
    def run(prefix, first, second):
        return trace(
            [
                _timed(0, "routing", "orchestrator", None, 0, 30, prefix),
                _timed(1, "thought", "plan", 0, None, None, prefix),
                _timed(2, "routing", first, 0, 1, 20, prefix),
                _timed(3, "routing", second, 0, 2, 10, prefix),
            ],
            prefix,
        )

    report = compare(run("b", "research", "write"), run("c", "write", "research"))
    assert report.divergence == 0.0
    assert [op for op, _ in _ops(report)].count("reorder") == 1


def test_turn_id_beats_timing_and_different_turns_are_sequential():
    def run(prefix, names, turns):
        steps = [step(0, "routing", "agent", prefix=prefix)]
        for i, (name, turn) in enumerate(zip(names, turns, strict=True), start=1):
            meta = {
                "turn_id": turn,
                "started_at": f"2026-01-01T00:00:0{i}Z",
                "ended_at": f"2026-01-01T00:00:0{i}.5Z",
            }
            steps.append(step(i, "tool_call", name, 0, prefix=prefix, metadata=meta))
        return trace(steps, prefix)

    same_turn = compare(run("b", "xy", ["t1", "t1"]), run("c", "yx", ["t1", "t1"]))
    assert (same_turn.divergence, _count(same_turn, Op.REORDER)) == (0.0, 1)
    two_turns = compare(run("b", "xy", ["t1", "t2"]), run("c", "yx", ["t1", "t2"]))
    assert two_turns.divergence > 0 and _count(two_turns, Op.REORDER) == 0


def test_crossing_same_name_calls_keep_every_pair():
    s1, s2 = ("s", {"n": 1}), ("s", {"n": 2})
    report = compare(tools(s1, ("t", {}), s2), tools(s2, ("t", {}), s1, prefix="c"))
    assert _paired(report) == len(report.alignment) == 7


def test_a_root_search_is_not_paired_with_a_nested_one():
    base = trace(
        [step(0, "routing", "agent"), step(1, "tool_call", "search", 0, input_payload={"q": 1})]
    )
    cand = trace(
        [
            step(0, "tool_call", "search", prefix="c", input_payload={"q": 1}),
            step(1, "routing", "agent", prefix="c"),
            step(2, "tool_call", "search", 1, prefix="c", input_payload={"q": 2}),
        ],
        "c",
    )
    report = compare(base, cand)
    pairs = {
        e.candidate.step_id: e.baseline and e.baseline.step_id
        for e in report.alignment
        if e.candidate
    }
    assert pairs == {"c0": None, "c1": "s0", "c2": "s1"}


def test_the_banded_path_for_huge_traces(monkeypatch):
    calls = [_lookup(i % 7) for i in range(300)]
    cand_calls = [*calls[:100], _lookup(500), *calls[100:250], _lookup(501), *calls[250:]]
    base, cand = tools(*calls), tools(*cand_calls, prefix="c")
    exact = compare(base, cand)
    monkeypatch.setattr(align_module, "LCS_CELLS", 1000)
    banded = compare(base, cand)
    assert len(base.steps) * len(cand.steps) > align_module.LCS_CELLS
    assert _ops(banded) == _ops(exact)
    assert _inserted(banded) == ["lookup(500)", "lookup(501)", "model", "model"]
    assert _count(banded, Op.CHANGE) == 0 == _count(banded, Op.DELETE)


@pytest.mark.parametrize("pair", real_pairs(), ids=lambda p: p.id)
def test_pairs_come_out_in_the_candidate_execution_order(pair):
    """`groups` reads each group's pairs in pair order as candidate order (no sort)."""
    signer = Signer(Normalizer(), strict=False)
    sides = prepare(load_trace(pair.baseline), signer), prepare(load_trace(pair.candidate), signer)
    pairs = _align(*sides)
    reorders(pairs, *sides)  # re-partnering moves baseline positions only
    positions = [c for _, c in pairs if c is not None]
    assert positions == sorted(positions) == list(range(len(sides[1].steps)))


def _chain(prefix, names, parent=None):
    """Siblings a 0–2 s, b 1–4 s, c 3–5 s (named `names`): a–b and b–c overlap, a–c do not."""
    windows = ((0, 2), (1, 4), (3, 5))
    first = [] if parent is None else [_timed(0, "routing", "agent", None, 0, 9, prefix)]
    kids = [
        _timed(i, "tool_call", name, parent, start, end, prefix)
        for i, (name, (start, end)) in enumerate(zip(names, windows, strict=True), start=1)
    ]
    return trace([*first, *kids], prefix)


@pytest.mark.parametrize("parent", [None, 0])
def test_a_swap_of_siblings_that_never_overlapped_diverges_through_a_chain(parent):
    """Overlap is pairwise: b overlapping both a and c does not make a and c concurrent."""
    base = _chain("b", ("a", "b", "c"), parent)
    cand = _chain("c", ("c", "b", "a"), parent)
    report = compare(base, cand)
    assert report.divergence > 0
    assert report.first_divergence is not None
    # still one group where every member overlaps every other: b with c, then with a
    same = compare(base, _chain("c", ("b", "a", "c"), parent))
    assert same.divergence == 0.0
    assert _count(same, Op.REORDER) == 1
