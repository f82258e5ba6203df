"""Renderers of N-vs-M reports and route maps; each reads one report and recomputes nothing."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from xml.sax.saxutils import escape, quoteattr

from agentdiff.render import prepare
from agentdiff.render.junit import error_suite, xml_text
from agentdiff.render.runs.html import render_routes_html, runs_html
from agentdiff.render.runs.text import (
    render_routes_markdown,
    render_routes_terminal,
    runs_markdown,
    runs_terminal,
)
from agentdiff.scenario.report import RoutesReport, RunsReport, Verdict
from agentdiff.stats_options import inconclusive_fails

__all__ = [
    "ROUTES_RENDERERS",
    "RUNS_ERROR_RENDERERS",
    "RUNS_RENDERERS",
    "runs_junit",
    "runs_junit_error",
]

_RUNS_SUITE = "agentdiff compare-runs"
"""The name of `compare-runs`' JUnit test suite, in a report and in an input error alike."""
_RUNS_CLASS = "agentdiff.runs"
"""The class name of its test cases."""
_RUNS_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>'
"""The XML declaration of its JUnit documents, a report and an input error alike."""


def runs_junit(report: RunsReport) -> str:
    """One testcase per scenario: regressed = failure, error = error, inconclusive = skipped.

    An improved scenario is a passing case whose `<system-out>` gives its reasons.
    Under `inconclusive = "fail"` an inconclusive scenario is a failure, as the exit code says.
    """
    cases = []
    failing = inconclusive_fails(report.settings)
    for s in report.scenarios:
        name = quoteattr(prepare.text(s.scenario))
        why = escape(prepare.text("; ".join(s.reasons)) or s.verdict.value)
        error = quoteattr(prepare.text(s.error or "error"))
        inconclusive = f"<skipped message={quoteattr(why)}/>"
        if failing:
            inconclusive = f"<failure message={quoteattr('inconclusive')}>{why}</failure>"
        body = {
            Verdict.REGRESSED: f"<failure message={quoteattr('regressed')}>{why}</failure>",
            Verdict.ERROR: f"<error message={error}>{why}</error>",
            Verdict.INCONCLUSIVE: inconclusive,
            Verdict.IMPROVED: f"<system-out>{why}</system-out>",  # why it improved, as in a suite
        }.get(s.verdict, "")
        case = f"<testcase classname={quoteattr(_RUNS_CLASS)} name={name}>{body}</testcase>"
        cases.append(f"  {case}")
    c = report.counts
    regressed, inconclusive_count = c.get("regressed", 0), c.get("inconclusive", 0)
    failures = regressed + (inconclusive_count if failing else 0)
    head = (
        f"<testsuite name={quoteattr(_RUNS_SUITE)} "
        f'tests="{len(report.scenarios)}" '
        f'failures="{failures}" errors="{c.get("error", 0)}" '
        f'skipped="{0 if failing else inconclusive_count}">'
    )
    lines = [_RUNS_DECLARATION, head, *cases, "</testsuite>"]
    return xml_text("\n".join(lines)) + "\n"  # names and reasons may hold U+FFFF


def runs_junit_error(message: str) -> str:
    """JUnit XML for a `compare-runs` that could not run (bad input): one `<error>`.

    In `runs_junit`'s shape (a bare `<testsuite>` root, declared `utf-8`), so a CI parser set
    up for its report reads its input error alike.
    """
    suite = error_suite(message, suite_name=_RUNS_SUITE, classname=_RUNS_CLASS)
    suite.set("skipped", "0")
    ET.indent(suite)
    return f"{_RUNS_DECLARATION}\n{ET.tostring(suite, 'unicode')}\n"


RUNS_RENDERERS: dict[str, Callable[[RunsReport], str]] = {
    "terminal": runs_terminal,
    "markdown": runs_markdown,
    "json": RunsReport.to_json,
    "html": runs_html,
    "junit": runs_junit,
}

RUNS_ERROR_RENDERERS: dict[str, Callable[[str], str]] = {"junit": runs_junit_error}
"""Formats of `compare-runs` that also report an input error in their own shape (CI shows it)."""

ROUTES_RENDERERS: dict[str, Callable[[RoutesReport], str]] = {
    "terminal": render_routes_terminal,
    "markdown": render_routes_markdown,
    "json": RoutesReport.to_json,
    "html": render_routes_html,
}
