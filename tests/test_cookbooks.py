"""Every cookbook runs offline as a user would, and prints what it promises."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

COOKBOOKS = Path(__file__).resolve().parents[1] / "cookbooks"
SHAPES = sum(
    len(json.loads(m.read_text(encoding="utf-8"))["shapes"])
    for m in (COOKBOOKS.parent / "tests" / "fixtures" / "real").glob("*/manifest.json")
)
"""Export shapes over every fixture manifest: the suite cookbook builds 9 scenarios of each."""

# cookbook → what its output must contain: substrings; `re:` a regex, `not:` must be absent,
# `N×` a substring that appears exactly N times
EXPECTED: dict[str, list[str]] = {
    "ingestion_claude_code.py": [
        "format: claude_code",
        "tool_call Agent",
        r"re:Bash ×4 at rows \d+–\d+ \(retry storm, new\)",
        "re:error in Bash \\(row \\d+\\): retried with other arguments → succeeded",
        r"re:exec_command ×4 at rows \d+–\d+ \(retry storm, new\)",
    ],
    "ingestion_crewai.py": [
        "format: crewai, agents: Weather Researcher, Travel Advisor, 1832 tokens",
        r"re:routing +Weather Researcher/weather_research",
        r"re:tool_call Weather Researcher/get_weather +error +weather service",
        r"re:response +Travel Advisor/final_answer",
        "crew travel_weather_crew: 6 model turns, 1832 tokens",
        "same tool calls True",
        "divergence from the kickoff dump 0.00",
        r"re:error in Weather Researcher/get_weather \(row \d+\): retried → succeeded; back on the baseline path after 2 steps",
        r"re:Weather Researcher/get_weather ×4 at rows \d+–\d+ \(loop, new\): these \d+ extra steps carry \+[\d,]+ of \+[\d,]+ tokens",
    ],
    "ingestion_langfuse.py": [
        "json ",
        "snake.json ",
        "v2_observations.json ",
        "otlp.json ",
        "4×adapter=langfuse steps=10 tokens=572",
        "tool_call get_weather",
        r"re:tool_call get_weather +error .*weather service unavailable \(HTTP 503\), please retry",
        r"re:get_weather ×4 at rows \d+–\d+ \(loop, new\)",
    ],
    "ingestion_langgraph.py": [
        "format: langgraph",
        "tool_call geocode",
        "tool_call web_search",
        r"re:routing +get_weather",
        r"re:response +final_answer",
        "6×same tool calls True",
        "not:same tool calls False",
        "first divergence: row 3, + web_search",
        r"re:get_weather ×4 at rows \d+–\d+ \(loop, new\)",
    ],
    "ingestion_openai_agents.py": [
        "export  adapter=openai_agents steps=13 tokens=3421",
        "ingest  adapter=openai_agents steps=13 tokens=3421",
        "handoff Triage Agent → Weather Agent",
        "tool_call get_weather",
        r"re:tool_call get_weather +error .*weather service timed out after 5\.0s \(upstream 504\)",
        "final output: It is 65.1°F (18.4°C) in Paris right now",
        # the Deltas tables of detour, then of error_retry
        r"re:tool calls +3 +4 .*\nLLM calls +5 +6 .*\nerrors +0 +0 .*\n.*\n.*\ntotal tokens +2,609 +3,425",
        r"re:tool calls +3 +4 .*\nLLM calls +5 +6 .*\nerrors +0 +1 .*\n.*\n.*\ntotal tokens +2,609 +3,421",
        r"re:error in get_weather \(row \d+\): retried → succeeded; back on the baseline path after 2 steps",
    ],
    "ingestion_langsmith.py": [
        "nested adapter=langsmith steps=31 tokens=2288 tools=geocode,get_weather,get_weather",
        "flat   adapter=langsmith steps=31 tokens=2288 tools=geocode,get_weather,get_weather",
        r"re:tool_call get_weather +error .*TimeoutError: weather service timeout",
        "llm_call  ScriptedChatModel",
        "not:routing   Prompt",
        "not:routing   should_continue",
        "final output: It is 65.1°F in Paris right now",
        # the Deltas table of loop
        r"re:tool calls +2 +5 .*\nLLM calls +3 +6 .*\n.*\n.*\n.*\ntotal tokens +1,532 +4,136",
        r"re:get_weather ×4 at rows \d+–\d+ \(loop, new\)",
        r"re:error in get_weather \(row \d+\): retried → succeeded; back on the baseline path after 8 steps",
    ],
    "baseline_workflow.py": [
        "$ agentdiff init  (exit 0)",
        "wrote agentdiff.toml",
        "wrote .github/workflows/agentdiff.yml",
        "runs/candidate/1.json: 3 steps (agentdiff.record)",
        "no baseline yet: baselines/weather.json created from runs/candidate/1.json",
        "provenance: by Grace Hopper <grace@example.com>, commit is v1: True, reason: first baseline",
        "$ agentdiff compare  (exit 1)",
        r"re:get_weather ×4 at rows \d+–\d+ \(loop, new\)",
        "$ agentdiff approve (refused)  (exit 1)",
        "not approved: new tool loop get_weather ×4",
        "$ agentdiff approve --force  (exit 0)",
        "overridden by --force: the gate failed: tool loop get_weather ×4",
        "provenance: commit is v2: True, reason: polling is intended in v2, previous commit is v1: True",
        "$ agentdiff compare (after approval)  (exit 0)",
        "not:(dirty)",
    ],
    "record_openai_agent.py": [
        "baseline: generic trace",
        r"re:llm_call  chat.completions  success .* 77 tok",
        "tool_call web_search",
        "first divergence: row 4, + web_search",
        r"re:total tokens +442 +819",
        "FAILED  Blocked by:",
        "gate passed: False",
    ],
    "record_otel_agent.py": [
        "files written: 2, named by trace id: True",
        "file trace equals the in-memory spans' trace: True",
        "timestamps agree within 1 µs: True",
        "baseline: openinference, 6 steps, 435 tokens, tools ['geocode', 'get_weather']",
        "candidate: openinference, 8 steps, 802 tokens, tools ['geocode', 'web_search', 'get_weather']",
        "first divergence: row 5, + web_search",
        "gate passed: False",
    ],
    "many_runs.py": [
        "refund (unchanged): pass",
        "refund (loop): regressed",
        "re:loop lookup_order ×4 in \\d+/10 runs \\(in no baseline run\\)",
        "refund (cost): regressed",
        "re:cost_usd \\+\\d+ % \\(adjusted p = ",
        "40 baseline runs take 2 routes:",
        "re:R1 \\d+/40 runs: .*lookup_order → gpt-4o-mini → refund_payment",
        "re:R2 \\d+/40 runs: .*search_kb → .*escalate",
    ],
    "suite_from_fixtures.py": [
        f"scenarios: {9 * SHAPES} baseline, {9 * SHAPES} candidate",
        r"re:(?m)^\d+ passed · \d+ regressed$",
        rf"re:(?m)^  identical +pass +{SHAPES}$",
        rf"re:(?m)^  loop +regressed +{SHAPES}$",
        rf"re:(?m)^  identical-vs-loop +regressed +{SHAPES}$",
        rf"re:(?m)^  identical-vs-reworded +pass +{SHAPES}$",
        f"scenarios blocked by a tool loop: {2 * SHAPES}",
        "LocalCluster: 2 workers",
        "LocalCluster suite.json identical to the local one: True",
    ],
    "ingestion_openinference.py": [
        "tool_call geocode",
        "tool_call web_search",
        "OTLP JSON Lines loads the same tool calls: True",
        r"re:get_weather ×4 at rows \d+–\d+ \(loop, new\)",
        "baseline: 6 steps, 715 tokens",
    ],
}


def test_every_cookbook_is_checked():
    assert sorted(p.name for p in COOKBOOKS.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cookbook_runs_and_shows_what_it_promises(name):
    result = subprocess.run(
        [sys.executable, str(COOKBOOKS / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for expected in EXPECTED[name]:
        _check(result.stdout, expected)


def _check(out: str, expected: str) -> None:
    count = re.match(r"(\d+)×", expected)
    if count:
        assert out.count(expected[count.end() :]) == int(count.group(1)), expected
    elif expected.startswith("re:"):
        assert re.search(expected[3:], out), expected
    elif expected.startswith("not:"):
        assert expected[4:] not in out, expected
    else:
        assert expected in out, expected
