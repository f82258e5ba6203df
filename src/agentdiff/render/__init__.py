"""Renderers: each turns one `DiffReport` into text; none recomputes anything."""

from __future__ import annotations

from collections.abc import Callable

from agentdiff.errors import AgentDiffError
from agentdiff.models.report import DiffReport
from agentdiff.render.html import render_html
from agentdiff.render.json import render_json, render_json_bytes
from agentdiff.render.junit import render_junit, render_junit_error
from agentdiff.render.markdown import render_markdown
from agentdiff.render.options import RenderOptions
from agentdiff.render.terminal import render_terminal
from agentdiff.render.view import redacting

__all__ = [
    "ERROR_RENDERERS",
    "RENDERERS",
    "RenderFormatError",
    "RenderOptions",
    "render",
    "render_output",
]

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


def render(
    report: DiffReport,
    fmt: str = "terminal",
    options: RenderOptions | None = None,
    **option_values: object,
) -> str:
    """`report` as text in `fmt`: "terminal", "markdown", "html", "junit" or "json".

    Presentation options come as a `RenderOptions` or as its fields by keyword
    (`render(report, "terminal", width=120, color=False)`). An unknown format is a `ValueError`
    (an `AgentDiffError`) naming the valid ones.
    """
    renderer = RENDERERS.get(fmt)
    if renderer is None:
        msg = f"unknown report format {fmt!r}; choose one of: {', '.join(RENDERERS)}"
        raise RenderFormatError(msg)
    chosen = options or RenderOptions()
    if option_values:
        chosen = RenderOptions.model_validate({**chosen.model_dump(), **option_values})
    with redacting(chosen.redactor(default=fmt != "json")):
        return renderer(report, chosen)


def render_output(
    report: DiffReport, fmt: str, options: RenderOptions | None = None
) -> str | bytes:
    """What `render()` gives, except JSON as UTF-8 bytes (no copy as text) for writing out."""
    if fmt != "json":
        return render(report, fmt, options)
    chosen = options or RenderOptions()
    with redacting(chosen.redactor(default=False)):
        return render_json_bytes(report, chosen)


class RenderFormatError(AgentDiffError, ValueError):
    """`render()` was asked for a format it does not have."""
