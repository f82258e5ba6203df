"""Runs `cookbooks/ingestion_openinference.py` as a user would and checks what it prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

COOKBOOK = Path(__file__).parents[1] / "cookbooks" / "ingestion_openinference.py"


def test_openinference_cookbook_runs() -> None:
    result = subprocess.run([sys.executable, str(COOKBOOK)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "tool_call geocode" in out
    assert "tool_call web_search" in out
    assert "OTLP JSON Lines loads the same tool calls: True" in out
    assert "loop found: get_weather x4 (new in candidate: True)" in out
    assert "baseline: 6 steps, 715 tokens" in out
