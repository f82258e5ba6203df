"""The library's own promises: an empty side is no pass, failure messages leak nothing, and a
keyword argument is named as one (a fresh reader's review of the Python API)."""

from __future__ import annotations

import pytest

from agentdiff import assert_no_regressions, compare, load_trace
from agentdiff.errors import ConfigError
from agentdiff.scenario.api import compare_runs, compare_scenarios
from tests.diff.builders import step, trace
from tests.realdata import REAL

RUN = REAL / "openai_agents" / "detour" / "baseline.json"


@pytest.mark.parametrize("side", ["baseline", "candidate"])
def test_a_side_without_runs_is_an_error_not_a_pass(side: str) -> None:
    runs = [load_trace(RUN)] * 3
    base, cand = ([], runs) if side == "baseline" else (runs, [])
    with pytest.raises(ConfigError, match=f"'weather' has no {side} runs"):
        compare_runs(base, cand, scenario="weather")
    with pytest.raises(ConfigError, match=f"'weather' has no {side} runs"):
        compare_scenarios({"weather": (base, cand)})


def test_the_assertion_message_redacts_and_escapes_the_gate_lines() -> None:
    key = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0" * 2
    name = f"lookup_{key}\x1b]8;;http://x\x07\u202e"
    base = trace([step(i, "tool_call", "lookup", input_payload={"q": i}) for i in range(2)])
    cand = trace(
        [step(i, "tool_call", name, prefix="c", input_payload={"q": 0}) for i in range(6)],
        trace_id="c",
    )
    with pytest.raises(AssertionError) as raised:
        assert_no_regressions(base, cand, max_tool_repeats=2)
    message = str(raised.value)
    assert "✗ tool_repeats" in message
    assert key not in message
    assert "\x1b" not in message
    assert "\u202e" not in message


def test_keyword_thresholds_are_named_as_arguments() -> None:
    report = assert_no_regressions(RUN, RUN, max_divergence=0.3)
    (threshold,) = [t for t in report.thresholds if t.setting == "max_divergence"]
    assert (threshold.value, threshold.source) == (0.3, "argument max_divergence")


@pytest.mark.parametrize(
    ("before", "after", "changed"),
    [
        ({"codes": {200: "ok"}}, {"codes": {200: "ok"}}, False),
        ({"codes": {200: "ok"}}, {"codes": {404: "missing"}}, True),
        ({"n": 2**70}, {"n": 2**70}, False),
        ({"n": 2**70}, {"n": 2**70 + 1}, True),
    ],
)
def test_arguments_built_in_python_that_json_cannot_hold_compare(
    before: dict[object, object], after: dict[object, object], changed: bool
) -> None:
    """Traces built in Python may hold int keys and 65-bit ints; files never do."""
    base = trace([step(0, "tool_call", "lookup", input_payload=before)])
    cand = trace([step(0, "tool_call", "lookup", prefix="c", input_payload=after)], trace_id="c")
    report = compare(base, cand)
    assert report.changed_calls == int(changed)
