"""Runs `cookbooks/ingestion_langgraph.py` as a user would and checks what it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

COOKBOOK = Path(__file__).parents[1] / "cookbooks" / "ingestion_langgraph.py"


def test_langgraph_cookbook_runs() -> None:
    result = subprocess.run([sys.executable, str(COOKBOOK)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "format: langgraph" in out
    assert "tool_call geocode" in out
    assert "tool_call web_search" in out
    assert re.search(r"routing +get_weather", out)
    assert re.search(r"response +final_answer", out)
    assert out.count("same tool calls True") == 6
    assert "same tool calls False" not in out
    assert "first divergence: insert routing web_search at candidate step 2" in out
    assert "loop found: get_weather x4 (new in candidate: True)" in out
