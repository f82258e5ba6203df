"""Execution order does not depend on how a trace lists its steps (`order.prepare`).

`prepare` checks whether the steps are listed in execution order already (one pass) and only
otherwise walks the tree and reorders its lists. Both routes must give the same side: these
tests prepare each real trace as captured (in execution order: the check's route) and with its
steps shuffled or reversed (the walk's route), and require equal sides.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from agentdiff.diff import order
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import Side, _Columns, _execution_order, execution_order, prepare
from agentdiff.diff.signatures import Signer
from agentdiff.models.trace import AgentTrace
from tests.diff.builders import step, trace
from tests.realdata import load, real_pairs

_FIELDS = ("refs", "base", "exact", "call", "depth", "group", "failed", "canon", "wall_clock")


def _real_traces() -> list[AgentTrace]:
    return [load(path) for pair in real_pairs() for path in (pair.baseline, pair.candidate)]


def _assert_same(one: Side, other: Side) -> None:
    assert len(one.steps) == len(other.steps)
    assert all(a is b for a, b in zip(one.steps, other.steps, strict=True))
    for name in _FIELDS:
        assert getattr(one, name) == getattr(other, name), name


def _listed_in_order(item: AgentTrace, signer: Signer) -> bool:
    return _execution_order(_Columns(item.steps, signer))[0] is None


def _relisted(item: AgentTrace, steps: list) -> AgentTrace:
    return item.model_copy(update={"steps": steps})


def test_a_shuffled_or_reversed_trace_prepares_like_the_trace_as_captured():
    signer = Signer(Normalizer(), strict=False)
    rng = random.Random(7)
    traces = [t for t in _real_traces() if len({s.step_index for s in t.steps}) == len(t.steps)]
    in_order = [t for t in traces if _listed_in_order(t, signer)]
    assert len(in_order) > len(traces) / 2, "the check never found a trace in execution order"
    for item in traces:
        shuffled = list(item.steps)
        rng.shuffle(shuffled)
        for relisted in (_relisted(item, shuffled), _relisted(item, item.steps[::-1])):
            if len(item.steps) > 1:
                assert not _listed_in_order(relisted, signer)
            _assert_same(prepare(item, signer), prepare(relisted, signer))


def test_execution_order_alone_is_the_order_prepare_lists_the_steps_in():
    """`execution_order` (for places in a run compared as a folded copy) is `prepare`'s order."""
    signer = Signer(Normalizer(), strict=False)
    rng = random.Random(11)
    for item in _real_traces():
        shuffled = list(item.steps)
        rng.shuffle(shuffled)
        for relisted in (item, _relisted(item, shuffled), _relisted(item, item.steps[::-1])):
            steps = relisted.steps
            ordered = [steps[at] for at in execution_order(relisted)]
            assert all(
                a is b for a, b in zip(ordered, prepare(relisted, signer).steps, strict=True)
            )
    for starts in ([1.0, 2.0, 3.0], [3.0, 1.0, 2.0]):
        item = _fan_out(starts)
        ordered = [item.steps[at] for at in execution_order(item)]
        assert all(a is b for a, b in zip(ordered, prepare(item, signer).steps, strict=True))


def _fan_out(starts: list[float]) -> AgentTrace:
    """An LLM turn issuing three calls (listed in issue order, started at `starts`), each
    followed by a thought under it: listed as a pre-order by `step_index`."""
    steps = [step(0, "llm_call", "model", metadata={"started_at": 0.0, "ended_at": 1.0})]
    for name, start in zip(("a", "b", "c"), starts, strict=True):
        call = len(steps)
        times = {"started_at": start, "ended_at": start + 5.0}
        steps.append(step(call, "tool_call", name, 0, input_payload={"q": call}, metadata=times))
        steps.append(step(call + 1, "thought", f"after {name}", call))
    return trace(steps)


@pytest.mark.parametrize(
    ("starts", "names"),
    [
        ([1.0, 2.0, 3.0], ["model", "a", "after a", "b", "after b", "c", "after c"]),
        ([3.0, 1.0, 2.0], ["model", "b", "after b", "c", "after c", "a", "after a"]),
    ],
)
def test_siblings_run_in_start_order_with_their_subtrees(starts, names):
    signer = Signer(Normalizer(), strict=False)
    item = _fan_out(starts)
    side = prepare(item, signer)
    assert [ref.name for ref in side.refs] == names
    assert side.depth == [0, 1, 2, 1, 2, 1, 2]
    assert side.group == [-1, 0, -1, 0, -1, 0, -1]
    assert side.failed == []
    _assert_same(side, prepare(_relisted(item, item.steps[::-1]), signer))


def test_steps_no_root_reaches_are_left_out_in_either_route():
    signer = Signer(Normalizer(), strict=False)
    steps = [step(0, "llm_call", "model"), step(1, "tool_call", "a", 0)]
    orphan_loop = step(2, "thought", "self", 2)  # its own parent: never reached from a root
    item = AgentTrace.model_construct(trace_id="t", agent_name="agent", steps=[*steps, orphan_loop])
    side = prepare(item, signer)
    assert [ref.name for ref in side.refs] == ["model", "a"]
    assert side.depth == [0, 1]


def _calls(names: list[str], starts: list[float], *, below: bool) -> AgentTrace:
    """An LLM turn issuing calls `names` started at `starts`, each with a thought under it
    when `below` (moved calls then carry a subtree: the walk's route), else leaves."""
    steps = [step(0, "llm_call", "model", metadata={"started_at": 0.0, "ended_at": 1.0})]
    for name, start in zip(names, starts, strict=True):
        call = len(steps)
        times = {"started_at": start, "ended_at": start + 5.0}
        steps.append(step(call, "tool_call", name, 0, input_payload={"q": call}, metadata=times))
        if below:
            steps.append(step(call + 1, "thought", f"after {name}", call))
    steps.append(step(len(steps), "response", "answer"))
    return trace(steps)


@pytest.mark.parametrize("below", [False, True], ids=["leaves", "subtrees"])
def test_calls_listed_out_of_start_and_name_order(below):
    signer = Signer(Normalizer(), strict=False)
    item = _calls(["c", "a", "b"], [2.0, 3.0, 1.0], below=below)
    side = prepare(item, signer)
    tools = [ref.name for ref in side.refs if ref.step_type.value == "tool_call"]
    assert tools == ["b", "c", "a"]  # execution order: by start
    assert side.refs[-1].name == "answer"
    assert side.canon is not None
    canonical = [side.refs[i].name for i in side.canon]
    called = [n for n in canonical if len(n) == 1]
    assert called == ["a", "b", "c"]  # canonical order: by type and name
    if below:  # each call keeps its thought right under it, in both orders
        assert canonical[1:7] == ["a", "after a", "b", "after b", "c", "after c"]
    assert sorted(side.canon) == list(range(len(side.refs)))
    _assert_same(side, prepare(_relisted(item, item.steps[::-1]), signer))


_T1, _T2, _T3 = (
    "2026-01-02T00:00:01.000000Z",
    "2026-01-02T00:00:02.000000Z",
    "2026-01-02T00:00:03.5Z",
)


@pytest.mark.parametrize(
    ("starts", "ends", "expected"),
    [
        ([_T1, _T2], [_T2, _T3], (_T1, _T3)),
        ([None, _T2, None, _T1], [_T2, None, None], (_T1, _T2)),  # untimed steps left out
        ([None], [_T2], None),
        ([None, None], [_T2, _T3], None),
        ([_T1], [None, None], None),
        ([], [], None),
        ([3.0, None, 1.0], [None, 4.5], (1.0, 4.5)),
    ],
)
def test_wall_clock_spans_the_known_times_only(
    starts: list[Any], ends: list[Any], expected: tuple[Any, Any] | None
) -> None:
    epoch = order._epoch
    want = None if expected is None else (epoch(expected[0]), epoch(expected[1]))
    assert order._wall_clock(starts, ends) == want


def test_uniform_utc_reads_the_known_times_only() -> None:
    assert order._uniform_utc([_T1, None, _T2], [None, _T2])
    assert order._uniform_utc([None], [None])
    assert not order._uniform_utc([_T1, None], [_T3])  # another layout
    assert not order._uniform_utc([_T1, 1.0], [_T2])  # not all strings
