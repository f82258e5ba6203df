"""Suite renderers: each turns one `SuiteReport` into text; none recomputes anything."""

from __future__ import annotations

from collections.abc import Callable

from agentdiff.render.options import RenderOptions
from agentdiff.suite.render.html import render_suite_html
from agentdiff.suite.render.json import render_suite_json
from agentdiff.suite.render.junit import render_suite_junit
from agentdiff.suite.render.markdown import render_suite_markdown
from agentdiff.suite.render.terminal import render_suite_terminal
from agentdiff.suite.report import SuiteReport

__all__ = ["FILE_NAMES", "SUITE_RENDERERS", "render_suite"]

SuiteRenderer = Callable[[SuiteReport, RenderOptions | None], str]

SUITE_RENDERERS: dict[str, SuiteRenderer] = {
    "terminal": render_suite_terminal,
    "markdown": render_suite_markdown,
    "junit": render_suite_junit,
    "json": render_suite_json,
    "html": render_suite_html,
}

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
    """Render `report` in `fmt` (a key of `SUITE_RENDERERS`)."""
    return SUITE_RENDERERS[fmt](report, options)
