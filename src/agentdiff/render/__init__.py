"""Renderers: each turns one `DiffReport` into text; none recomputes anything."""

from __future__ import annotations

from collections.abc import Callable

from agentdiff.models.report import DiffReport
from agentdiff.render.json import render_json
from agentdiff.render.options import RenderOptions
from agentdiff.render.terminal import render_terminal

__all__ = ["RENDERERS", "RenderOptions", "render"]

Renderer = Callable[[DiffReport, RenderOptions], str]

RENDERERS: dict[str, Renderer] = {
    "terminal": render_terminal,
    "json": render_json,
}


def render(report: DiffReport, fmt: str = "terminal", options: RenderOptions | None = None) -> str:
    """Render `report` in `fmt` (a key of `RENDERERS`)."""
    return RENDERERS[fmt](report, options or RenderOptions())
