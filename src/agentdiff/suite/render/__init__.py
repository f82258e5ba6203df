"""Suite renderers: each turns one `SuiteReport` into text; none recomputes anything."""

from __future__ import annotations

from collections.abc import Callable

from agentdiff.suite.render.json import render_suite_json
from agentdiff.suite.report import SuiteReport

__all__ = ["FILE_NAMES", "SUITE_RENDERERS", "render_suite"]

SuiteRenderer = Callable[[SuiteReport], str]

SUITE_RENDERERS: dict[str, SuiteRenderer] = {
    "json": render_suite_json,
}

FILE_NAMES = {
    "json": "suite.json",
    "terminal": "suite.txt",
    "markdown": "suite.md",
    "junit": "suite.junit.xml",
    "html": "suite.html",
}
"""The file each format is written to by `SuiteReport.write`."""


def render_suite(report: SuiteReport, fmt: str = "terminal") -> str:
    """Render `report` in `fmt` (a key of `SUITE_RENDERERS`)."""
    return SUITE_RENDERERS[fmt](report)
