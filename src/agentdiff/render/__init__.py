"""Renderers: each turns one `DiffReport` into text; none recomputes anything.

`RENDERERS` maps a format to its renderer and imports a renderer's module the first time it is
asked for: a JSON report never loads rich, the HTML view or the JUnit writer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from agentdiff.errors import AgentDiffError
from agentdiff.models.report import DiffReport
from agentdiff.render.imported import Imported
from agentdiff.render.json import render_json_bytes, render_json_parts
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import redacting

__all__ = [
    "ERROR_RENDERERS",
    "RENDERERS",
    "RenderFormatError",
    "RenderOptions",
    "render",
    "render_output",
]

Renderer = Callable[[DiffReport, RenderOptions], str]


RENDERERS: Mapping[str, Renderer] = Imported(
    {
        "terminal": "agentdiff.render.terminal:render_terminal",
        "json": "agentdiff.render.json:render_json",
        "markdown": "agentdiff.render.markdown:render_markdown",
        "html": "agentdiff.render.html:render_html",
        "junit": "agentdiff.render.junit:render_junit",
    }
)

ERROR_RENDERERS: Mapping[str, Callable[[str], str]] = Imported(
    {"junit": "agentdiff.render.junit:render_junit_error"}
)
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
    _check_report(report, "render")
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
    report: DiffReport, fmt: str, options: RenderOptions | None = None, *, parts: bool = False
) -> str | bytes | Iterable[bytes | memoryview]:
    """What `render()` gives, except JSON as UTF-8 bytes (no copy as text) for writing out.

    With `parts`, JSON comes in parts made as they are written (`render_json_parts`).
    """
    _check_report(report, "render_output")
    if fmt != "json":
        return render(report, fmt, options)
    chosen = options or RenderOptions()
    if parts:
        return render_json_parts(report, chosen)
    with redacting(chosen.redactor(default=False)):
        return render_json_bytes(report, chosen)


def _check_report(report: object, function: str) -> None:
    if not isinstance(report, DiffReport):
        msg = (
            f"{function}() renders a DiffReport (what agentdiff.compare returns), "
            f"not {type(report).__name__}"
        )
        raise TypeError(msg)


class RenderFormatError(AgentDiffError, ValueError):
    """`render()` was asked for a format it does not have."""
