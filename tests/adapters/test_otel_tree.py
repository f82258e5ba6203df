"""`SpanTree` walks up only as far as it must: deep span chains cost linear work, not quadratic."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from agentdiff.adapters.openinference import OpenInferenceAdapter
from agentdiff.adapters.otel.span import OtelSpan
from agentdiff.adapters.otel.tree import SpanTree

_START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _chain(depth: int, *, plain_between: bool) -> list[OtelSpan]:
    """A run nested `depth` levels deep, each span the parent of the next; with `plain_between`
    every other span carries no agent attributes (it is dropped, its child re-hung)."""
    spans = []
    for i in range(depth):
        agent = not plain_between or i % 2 == 0
        spans.append(
            OtelSpan(
                trace_id="t",
                span_id=f"s{i}",
                parent_id=f"s{i - 1}" if i else None,
                name=f"step {i}",
                start=_START + timedelta(microseconds=i),
                end=_START + timedelta(seconds=1, microseconds=-i),
                attributes={"openinference.span.kind": "TOOL"} if agent else {},
            )
        )
    return spans


def _counting_parent_lookups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    original = SpanTree._parent

    def counted(self: SpanTree, span: OtelSpan) -> Any:
        calls[0] += 1
        return original(self, span)

    monkeypatch.setattr(SpanTree, "_parent", counted)
    return calls


@pytest.mark.parametrize("plain_between", [True, False])
def test_a_deep_chain_builds_with_linear_parent_lookups(
    monkeypatch: pytest.MonkeyPatch, plain_between: bool
) -> None:
    depth = 2_000
    spans = _chain(depth, plain_between=plain_between)
    calls = _counting_parent_lookups(monkeypatch)
    trace = OpenInferenceAdapter.from_spans(spans)
    assert calls[0] <= 20 * depth  # walking whole chains each time would take ~depth**2
    steps = {step.step_id: step for step in trace.steps}
    kept = [f"s{i}" for i in range(depth) if not plain_between or i % 2 == 0]
    assert list(steps) == kept
    for child, parent in zip(kept[1:], kept[:-1], strict=True):
        assert steps[child].parent_id == parent  # a dropped span's child hangs under the kept one


def test_outer_wrappers_are_kept_and_inner_plain_spans_dropped() -> None:
    spans = [
        OtelSpan(trace_id="t", span_id="http", parent_id=None, name="POST /run"),
        OtelSpan(
            trace_id="t",
            span_id="agent",
            parent_id="http",
            name="agent",
            attributes={"openinference.span.kind": "AGENT"},
        ),
        OtelSpan(trace_id="t", span_id="db", parent_id="agent", name="SELECT"),
        OtelSpan(
            trace_id="t",
            span_id="tool",
            parent_id="db",
            name="search",
            attributes={"openinference.span.kind": "TOOL"},
        ),
    ]
    tree = SpanTree(spans, keep={"agent", "tool"})
    assert tree.kept == {"http", "agent", "tool"}
    assert tree.kept_parent(spans[3]) == "agent"
    assert [s.span_id for s in tree.roots()] == ["http"]
