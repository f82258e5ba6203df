"""The shared adapter kit: the one token reader, the one summing helper, the one ordering."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdiff.adapters._kit.ordering import parents_first
from agentdiff.adapters._kit.shapes import (
    amount,
    identifier,
    items,
    key_path,
    mapping,
    number,
    text,
    timestamp,
)
from agentdiff.adapters._kit.tokens import KeySets, count, sum_usage, usage_from
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import TokenUsage

KEYS = KeySets(("input_tokens", "prompt_tokens"), ("output_tokens",), ("total_tokens",))


@pytest.mark.parametrize(
    ("value", "expected"), [(3, 3), (0, 0), (4.0, 4), ("12", 12), (" 7 ", 7), (10**12, 10**12)]
)
def test_count_is_a_whole_number_from_0_to_10_12(value: Any, expected: int) -> None:
    assert count(value, "usage.n") == expected
    assert count(None, "usage.n") is None  # absent: unknown, never zero


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (True, "true"),
        (-1, "-1"),
        ("abc", '"abc"'),
        (2.5, "2.5"),
        (10**30, str(10**30)),
        (1e308, "1e+308"),
        ({}, "an object"),
        ([1], "an array"),
    ],
)
def test_a_wrong_count_is_an_error_naming_its_path(value: Any, shown: str) -> None:
    with pytest.raises(TraceFormatError) as info:
        count(value, "spans[3].attributes.llm.token_count.prompt")
    assert str(info.value) == (
        "spans[3].attributes.llm.token_count.prompt: expected a token count "
        f"(a whole number from 0 to 10^12), got {shown}"
    )


def test_usage_from_reads_the_first_present_key_and_derives_the_total() -> None:
    usage = usage_from({"prompt_tokens": 9, "input_tokens": 7, "output_tokens": 3}, KEYS, "u")
    assert usage == TokenUsage(prompt_tokens=7, completion_tokens=3, total_tokens=10)
    assert usage_from({"input_tokens": None, "prompt_tokens": 5}, KEYS, "u") == TokenUsage(
        prompt_tokens=5
    )


def test_usage_from_names_the_key_that_is_wrong() -> None:
    with pytest.raises(TraceFormatError, match=r"^data\[2\]\.usage\.input_tokens: expected"):
        usage_from({"input_tokens": -1, "prompt_tokens": 5}, KEYS, "data[2].usage")
    with pytest.raises(TraceFormatError, match=r"^data\[2\]\.usage: expected an object, got "):
        usage_from("12 tokens", KEYS, "data[2].usage")


def test_usage_from_keeps_unknown_as_none_never_zero() -> None:
    assert usage_from({}, KEYS, "u") is None
    assert usage_from(None, KEYS, "u") is None
    assert usage_from({"other": 3}, KEYS, "u") is None
    assert usage_from({}, KEYS, "u", cost=0.5) == TokenUsage(estimated_cost_usd=0.5)


@pytest.mark.parametrize(
    ("where", "key", "path"),
    [
        ("spans[3]", "name", "spans[3].name"),
        ("", "id", "id"),
        ("a", 2, "a[2]"),
        ("a", "llm.token_count.prompt", "a.llm.token_count.prompt"),
        ("a", "x y", 'a["x y"]'),
    ],
)
def test_key_path(where: str, key: str | int, path: str) -> None:
    assert key_path(where, key) == path


def test_the_shape_readers_tolerate_absence_and_name_a_wrong_type() -> None:
    assert (mapping(None, "a"), items(None, "a"), text(None, "a"), number(None, "a")) == (
        {},
        [],
        None,
        None,
    )
    assert identifier(7, "a") == "7"
    assert number(3, "a") == 3.0
    for reader, value, expected in (
        (mapping, [], "an object"),
        (items, {}, "an array"),
        (text, 5, "a string"),
        (identifier, 1.5, "an id (a string)"),
        (identifier, True, "an id (a string)"),
        (number, "3", "a number"),
        (number, True, "a number"),
        (number, 10**400, "a finite number"),
        (timestamp, {"t": 1}, "a timestamp"),
        (amount, 1e16, "an amount of at most 10^15"),
    ):
        with pytest.raises(TraceFormatError, match=rf"^x\.y: expected {re.escape(expected)}, got "):
            reader(value, "x.y")
    assert timestamp("not a time", "a") is None  # unreadable text: unknown, documented


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
