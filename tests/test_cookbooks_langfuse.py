"""The Langfuse ingestion cookbook runs offline and shows what it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

COOKBOOK = Path(__file__).resolve().parents[1] / "cookbooks" / "ingestion_langfuse.py"


def test_ingestion_langfuse_cookbook_runs() -> None:
    result = subprocess.run([sys.executable, str(COOKBOOK)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for shape in ("json", "snake.json", "v2_observations.json", "otlp.json"):
        assert f"{shape} " in out
    assert out.count("adapter=langfuse steps=10 tokens=572") == 4
    assert "tool_call get_weather" in out
    assert "ERROR: weather service unavailable (HTTP 503), please retry" in out
    assert "loop: get_weather x4 (new=True)" in out
