"""Suite renderers: each turns one `SuiteReport` into text; none recomputes anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from agentdiff.render.imported import Imported
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import redacting
from agentdiff.suite.report import SuiteReport

__all__ = ["FILE_NAMES", "SUITE_RENDERERS", "render_suite"]

SuiteRenderer = Callable[[SuiteReport, RenderOptions | None], str]

SUITE_RENDERERS: Mapping[str, SuiteRenderer] = Imported(
    {
        "terminal": "agentdiff.suite.render.terminal:render_suite_terminal",
        "markdown": "agentdiff.suite.render.markdown:render_suite_markdown",
        "junit": "agentdiff.suite.render.junit:render_suite_junit",
        "json": "agentdiff.suite.render.json:render_suite_json",
        "html": "agentdiff.suite.render.html:render_suite_html",
    }
)
"""Each format's renderer, its module imported on first use (a JSON report never loads rich)."""

FILE_NAMES = {
    "json": "suite.json",
    "terminal": "suite.txt",
    "markdown": "suite.md",
    "junit": "suite.junit.xml",
    "html": "suite.html",
}
"""The file each format is written to by `SuiteReport.write`."""


def render_suite(
    report: SuiteReport, fmt: str = "terminal", options: RenderOptions | None = None
) -> str:
    """Render `report` in `fmt` (a key of `SUITE_RENDERERS`), redacting as `options` ask.

    Human-facing formats redact secrets by default; JSON only with `--redact`.
    """
    with redacting((options or RenderOptions()).redactor(default=fmt != "json")):
        return SUITE_RENDERERS[fmt](report, options)
