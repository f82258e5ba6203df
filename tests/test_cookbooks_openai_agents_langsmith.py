"""The OpenAI Agents SDK and LangSmith ingestion cookbooks run offline and show what they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

COOKBOOKS = Path(__file__).resolve().parents[1] / "cookbooks"


def _run(name: str) -> str:
    result = subprocess.run([sys.executable, str(COOKBOOKS / name)], capture_output=True,
                            text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_ingestion_openai_agents_cookbook_runs() -> None:
    out = _run("ingestion_openai_agents.py")
    assert "export  adapter=openai_agents steps=13 tokens=3421" in out
    assert "ingest  adapter=openai_agents steps=13 tokens=3421" in out
    assert "handoff Triage Agent → Weather Agent" in out
    assert "tool_call get_weather" in out
    assert "weather service timed out after 5.0s (upstream 504)" in out
    assert "final output: It is 65.1°F (18.4°C) in Paris right now" in out
    assert "tool_calls 3 -> 4 llm_calls 5 -> 6 tokens 2609 -> 3425 errors 0 -> 0" in out
    assert "errors 0 -> 1" in out
    assert "recovery: retry=True recovered=True" in out


def test_ingestion_langsmith_cookbook_runs() -> None:
    out = _run("ingestion_langsmith.py")
    for shape in ("nested", "flat"):
        line = f"{shape:6s} adapter=langsmith steps=31 tokens=2288 tools=geocode,get_weather,"
        assert line + "get_weather" in out
    assert "ERROR: TimeoutError: weather service timeout" in out
    assert "llm_call  ScriptedChatModel" in out
    assert "final output: It is 65.1°F in Paris right now" in out
    assert "tool_calls 2 -> 5 llm_calls 3 -> 6 tokens 1532 -> 4136" in out
    assert "loop: get_weather x4 (new=True)" in out
    assert "recovery: retry=True recovered=True" in out
