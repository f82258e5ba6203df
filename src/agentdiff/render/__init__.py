"""Renderers: each turns one `DiffReport` into text; none recomputes anything."""

from __future__ import annotations

from collections.abc import Callable

from agentdiff.models.report import DiffReport
from agentdiff.render.html import render_html
from agentdiff.render.json import render_json
from agentdiff.render.junit import render_junit, render_junit_error
from agentdiff.render.markdown import render_markdown
from agentdiff.render.options import RenderOptions
from agentdiff.render.terminal import render_terminal

__all__ = ["ERROR_RENDERERS", "RENDERERS", "RenderOptions", "render"]

Renderer = Callable[[DiffReport, RenderOptions], str]

RENDERERS: dict[str, Renderer] = {
    "terminal": render_terminal,
    "json": render_json,
    "markdown": render_markdown,
    "html": render_html,
    "junit": render_junit,
}

ERROR_RENDERERS: dict[str, Callable[[str], str]] = {"junit": render_junit_error}
"""Formats that also report an input error in their own shape (CI shows it as an error)."""


def render(report: DiffReport, fmt: str = "terminal", options: RenderOptions | None = None) -> str:
    """Render `report` in `fmt` (a key of `RENDERERS`)."""
    return RENDERERS[fmt](report, options or RenderOptions())
