"""The HTML suite report: one self-contained, offline page (inline CSS, no script, no CDN).

An index (counts, then a table of scenarios linking to their sections; passing scenarios last)
and one section per scenario that needs a look (regressed, error, added, removed) with its
findings and, for a regressed scenario whose pair report was kept (`SuiteOptions(pair_pages=
True)`, which the CLI sets for an html output; saved results keep them too, see
`agentdiff.suite.pages`), the pair renderer's own HTML report of the deciding pair in a
sandboxed frame, with a link to its file when read from a results folder (`pages_href`: the
folder as seen from the page written). Pages made with `--no-redact` are left out (with a note)
of a page rendered with redaction on.
jinja2 (the `html` extra) autoescapes every value.
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Any

from agentdiff.errors import AgentDiffError
from agentdiff.render.measures import plural
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import text
from agentdiff.suite.render.view import divergence_cell, runs_cell, scenario_views, summary_line
from agentdiff.suite.report import SuiteReport

__all__ = ["render_suite_html"]

TEMPLATES = Path(__file__).parent / "templates"
_ORDER = ("regressed", "error", "partial", "inconclusive", "improved", "removed", "added")


def _template() -> Any:
    try:
        from jinja2 import Environment, FileSystemLoader, StrictUndefined  # noqa: PLC0415
    except ImportError:
        msg = "the html format needs jinja2"
        raise AgentDiffError(msg, hint="pip install 'agentdiff[html]'") from None
    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined
    )
    return env.get_template("suite.html.j2")


def render_suite_html(report: SuiteReport, options: RenderOptions | None = None) -> str:
    """The suite as one HTML page."""
    options = options or RenderOptions()
    views = scenario_views(report)
    sections = [view for group in _ORDER for view in views[group]]
    anchors = {view.row.scenario: f"s{number}" for number, view in enumerate(sections, 1)}
    plain = (row for row in report.rows.having("pass") if row.scenario not in anchors)
    passing = list(islice(plain, options.max_rows))  # a `partial` one has its section already
    # pair reports made with --no-redact never reach a page rendered with redaction on
    withheld = bool(report.pair_pages) and not report.pages_redacted and options.redact is not False
    context: dict[str, Any] = {
        "report": report,
        "summary": summary_line(report),
        "sections": sections[: options.max_rows],
        "hidden_sections": max(0, len(sections) - options.max_rows),
        "anchors": anchors,
        "passing": [(row, divergence_cell(row), runs_cell(row)) for row in passing],
        "hidden_passing": report.counts.passed - len(views["partial"]) - len(passing),
        "pages": {} if withheld else report.pair_pages,
        "withheld": withheld,
        "files": report.pair_files,
        "href": report.pages_href,
        "text": text,
        "plural": plural,
    }
    return str(_template().render(context))
