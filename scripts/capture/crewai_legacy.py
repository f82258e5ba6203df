"""Capture the CrewAI fixtures with an older release: `python crewai_legacy.py OUT_ROOT`.

The same crew and script as `crewai.py`, run on crewai 1.12.2 (its own venv,
`requirements-crewai_legacy.txt`): a release whose `TaskOutput` has `messages` but no
`tool_failures`, so a failed tool shows only as the "Error executing tool: ..." text CrewAI
feeds back to the model. Writes under `OUT_ROOT/crewai_legacy/`.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    os.environ["AGENTDIFF_CAPTURE_SOURCE"] = "crewai_legacy"
    sys.argv = [str(Path(__file__).with_name("crewai.py")), *sys.argv[1:]]
    runpy.run_path(sys.argv[0], run_name="__main__")
