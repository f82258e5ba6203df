"""The verdict as a console shows it: `headline()` and `verdict_line()`.

Kept apart from the view model (`render.view`) so that a command writing only JSON files, which
still echoes this line, never imports the view and its helpers.
"""

from __future__ import annotations

from agentdiff.gate import verdict
from agentdiff.models.report import DiffReport
from agentdiff.render.prepare import text

__all__ = ["headline", "verdict_line"]


def headline(report: DiffReport) -> tuple[str, str]:
    """`PASSED` or `FAILED`, and the gate's verdict in words (ready to show)."""
    return ("PASSED" if report.gate.passed else "FAILED"), text(verdict(report.gate))


def verdict_line(report: DiffReport) -> str:
    """`FAILED  Blocked by: tool loop get_weather ×4`: the one line a console always gets."""
    state, words = headline(report)
    return f"{state}  {words}"
