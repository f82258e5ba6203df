"""Runs `cookbooks/ingestion_crewai.py` as a user would and checks what it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

COOKBOOK = Path(__file__).parents[1] / "cookbooks" / "ingestion_crewai.py"


def test_crewai_cookbook_runs() -> None:
    result = subprocess.run([sys.executable, str(COOKBOOK)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "format: crewai, agents: Weather Researcher, Travel Advisor, 1832 tokens" in out
    assert re.search(r"routing +Weather Researcher/weather_research", out)
    assert re.search(r"tool_call Weather Researcher/get_weather +error +weather service", out)
    assert re.search(r"response +Travel Advisor/final_answer", out)
    assert "crew travel_weather_crew: 6 LLM calls, 1832 tokens" in out
    assert "same tool calls True" in out
    assert ("error at Weather Researcher/get_weather: recovered True, by an identical retry "
            "True") in out
    assert "loop found: Weather Researcher/get_weather x4 (new in candidate: True)" in out
