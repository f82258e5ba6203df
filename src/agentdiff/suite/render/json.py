"""The suite JSON renderer: the report's versioned contract, nothing added."""

from __future__ import annotations

from agentdiff.render.options import RenderOptions
from agentdiff.suite.report import SuiteReport

__all__ = ["render_suite_json"]


def render_suite_json(report: SuiteReport, options: RenderOptions | None = None) -> str:  # noqa: ARG001
    """`report.to_json()` with a trailing newline (what `suite.json` holds)."""
    return report.to_json() + "\n"
