"""The shared adapter kit: the one token reader, the one summing helper, the one ordering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdiff.adapters._kit.ordering import parents_first
from agentdiff.adapters._kit.tokens import KeySets, count, sum_usage, usage_from
from agentdiff.models.trace import TokenUsage

KEYS = KeySets(("input_tokens", "prompt_tokens"), ("output_tokens",), ("total_tokens",))


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, 3), (0, 0), (4.0, 4), ("12", 12), (True, None), (-1, None), ("x", None), (None, None)],
)
def test_count_is_a_non_negative_whole_number(value: Any, expected: int | None) -> None:
    assert count(value) == expected


def test_usage_from_reads_the_first_present_key_and_derives_the_total() -> None:
    usage = usage_from({"prompt_tokens": 9, "input_tokens": 7, "output_tokens": 3}, KEYS)
    assert usage == TokenUsage(prompt_tokens=7, completion_tokens=3, total_tokens=10)
    assert usage_from({"input_tokens": -1, "prompt_tokens": 5}, KEYS) == TokenUsage(prompt_tokens=5)


def test_usage_from_keeps_unknown_as_none_never_zero() -> None:
    assert usage_from({}, KEYS) is None
    assert usage_from(None, KEYS) is None
    assert usage_from({"other": 3}, KEYS) is None
    assert usage_from({}, KEYS, cost=0.5) == TokenUsage(estimated_cost_usd=0.5)


def test_sum_usage_sums_known_fields_only() -> None:
    total = sum_usage(
        [TokenUsage(prompt_tokens=2, total_tokens=5), None, TokenUsage(prompt_tokens=3)]
    )
    assert total == TokenUsage(prompt_tokens=5, total_tokens=5)
    assert sum_usage([None, None]) is None
    assert sum_usage([]) is None


@dataclass(frozen=True)
class _Node:
    id: int
    parent: int | None
    start: int


@st.composite
def _forests(draw: st.DrawFn) -> list[_Node]:
    size = draw(st.integers(0, 25))
    nodes = [
        _Node(
            i,
            draw(st.none() | st.integers(0, max(i - 1, 0))) if i else None,
            draw(st.integers(0, 9)),
        )
        for i in range(size)
    ]
    return draw(st.permutations(nodes))


def _order(nodes: list[_Node]) -> list[_Node]:
    return parents_first(
        nodes, id_of=lambda n: n.id, parent_of=lambda n: n.parent, key=lambda n: n.start
    )


@given(_forests())
def test_parents_first_keeps_every_item_and_puts_parents_first(nodes: list[_Node]) -> None:
    ordered = _order(nodes)
    assert sorted(ordered, key=lambda n: n.id) == sorted(nodes, key=lambda n: n.id)
    position = {n.id: i for i, n in enumerate(ordered)}
    assert all(position[n.parent] < position[n.id] for n in nodes if n.parent is not None)


@given(_forests())
def test_parents_first_takes_the_earliest_ready_item(nodes: list[_Node]) -> None:
    ordered, done = _order(nodes), set()
    for node in ordered:
        ready = [n for n in nodes if n.id not in done and (n.parent is None or n.parent in done)]
        assert node.start == min(n.start for n in ready)
        done.add(node.id)


def test_parents_first_roots_unknown_parents_and_keeps_cycles() -> None:
    nodes = [_Node(1, 2, 0), _Node(2, 1, 0), _Node(3, 99, 5), _Node(4, None, 1)]
    assert [n.id for n in _order(nodes)] == [4, 3, 1, 2]
