"""A shown change agrees with the shown values (issue 11 audit: "13 ms → 13 ms, +1 ms")."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdiff import CompareOptions, compare
from agentdiff.models.report import Delta
from agentdiff.render import render
from agentdiff.render.measures import MAX_PLACES, count, format_delta, ms, usd
from agentdiff.render.view import report_view
from tests.diff.builders import step, trace


def _delta(base: float, cand: float) -> Delta:
    return Delta(baseline=base, candidate=cand, delta=cand - base, pct=None)


def _number(shown: str) -> float:
    """What a reader takes a shown value for (`12.6 ms`, `10.0 s`, `-$0.25`, `+1,200`)."""
    found = re.fullmatch(r"\+?(-?)\$?([\d,]+(?:\.\d+)?)( ms| s)?", shown)
    assert found, shown
    value = float(found[1] + found[2].replace(",", ""))
    return value * 1000 if found[3] == " s" else value


def test_latencies_that_round_alike_get_the_decimals_their_change_needs():
    assert format_delta(_delta(12.6, 13.4), ms)[:3] == ("12.6 ms", "13.4 ms", "+0.8 ms")
    assert format_delta(_delta(13.0, 13.2), ms)[:3] == ("13.0 ms", "13.2 ms", "+0.2 ms")
    assert format_delta(_delta(2181, 2382), ms)[:3] == ("2,181 ms", "2,382 ms", "+201 ms")
    assert format_delta(_delta(13, 13), ms)[:3] == ("13 ms", "13 ms", "0 ms")


@given(
    st.sampled_from([ms, usd, count]),
    st.floats(0, 50_000, allow_nan=False),
    st.floats(0, 50_000, allow_nan=False),
)
def test_the_shown_change_is_the_difference_of_the_shown_values(fmt, base, cand):
    left, right, change, _ = format_delta(_delta(base, cand), fmt)
    shown = _number(right) - _number(left)
    assert abs(shown - _number(change)) <= 1e-9 * max(1.0, abs(shown))
    if _number(change) == 0 and base != cand:  # only when even MAX_PLACES decimals part them not
        assert fmt(base, MAX_PLACES) == fmt(cand, MAX_PLACES)


def _latency_pair():
    """12.6 ms → 13.4 ms in two calls a side; the gate fails (a tool called more than once)
    so that JUnit's failure text lists the findings too."""

    def run(prefix: str, each: float):
        calls = [
            step(i, "tool_call", "fetch", prefix=prefix, input_payload={"u": i}, latency_ms=each)
            for i in range(2)
        ]
        return trace(calls, prefix)

    options = CompareOptions(gate={"max_tool_repeats": 1})
    return compare(run("b", 6.3), run("c", 6.7), options=options)


def test_the_view_model_carries_the_consistent_latency_row():
    view = report_view(_latency_pair())
    assert ("latency", "12.6 ms", "13.4 ms", "+0.8 ms", "+6.3%") in view.deltas
    assert any("latency 12.6 ms → 13.4 ms (+6.3%)" in line for line in view.findings)


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit"])
def test_every_renderer_shows_the_latency_change_consistently(fmt):
    shown = render(_latency_pair(), fmt, width=200, color=False)
    assert "13 ms → 13 ms" not in shown and "+1 ms" not in shown
    assert re.search(r"12\.6 ms\W+(?:\w+\W+)?13\.4 ms", shown)


def test_a_cost_that_fell_reads_minus_dollars():
    assert format_delta(_delta(0.000039, 0.0000195), usd)[:3] == (
        "$0.0000390",
        "$0.0000195",
        "-$0.0000195",
    )
    assert format_delta(_delta(3.5, 1.25), usd)[2] == "-$2.25"
    assert format_delta(_delta(1.25, 3.5), usd)[2] == "+$2.25"
