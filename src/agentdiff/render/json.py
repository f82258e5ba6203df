"""The JSON renderer: the report's versioned contract, nothing added."""

from __future__ import annotations

from agentdiff.models.report import DiffReport
from agentdiff.render.options import RenderOptions

__all__ = ["render_json"]


def render_json(report: DiffReport, options: RenderOptions) -> str:  # noqa: ARG001
    """`report.to_json()` with a trailing newline."""
    return report.to_json() + "\n"
