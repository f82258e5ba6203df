"""The HTML renderer: one self-contained, offline page (inline CSS and SVG, no script, no CDN).

Verdict, thresholds, findings and deltas at the top; then both trajectories aligned side by
side, each changed row showing what changed inline (a window around the first difference) and
expanding on click to the step's input, output and error; unchanged runs folded into a row that
opens on click (plain `<details>`: no script). Below, a picture of both DAGs with unchanged
subtrees folded, in a box of capped height. The page stays small at scale: folded rows carry
no payloads, and payloads stop at a page budget. jinja2 renders it with autoescape on, so every
string from a trace is text, never markup; jinja2 is imported lazily (the `html` extra).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from agentdiff.errors import AgentDiffError
from agentdiff.models.report import DiffReport
from agentdiff.render.dag import dag_pictures
from agentdiff.render.options import RenderOptions
from agentdiff.render.view import RowView, report_view

__all__ = ["render_html"]

TEMPLATES = Path(__file__).parent / "templates"
FOLD_AT = 4
"""Unchanged runs at least this long fold into one row (it opens on click)."""
FOLD_BUDGET = 5000
"""Folded rows listed on the page in all (past it a fold says how many it leaves out)."""
MIN_ROWS = 2000
"""Rows (divergent ones and folds) shown before the tail is cut, at least."""
DETAIL_BUDGET = 100_000
"""Characters of step payloads on the page in all (past it a row links to the JSON report)."""
WINDOW = 60
"""Characters of a changed value shown around its first difference."""
CHANGES_PER_ROW = 10
CONTENT_PER_ROW = 2
"""Uncounted content changes shown inline on an otherwise matching row."""


def _changes(row: RowView) -> tuple[list[tuple[str, str, Any, Any]], int]:
    shown, hidden = row.shown_changes(CHANGES_PER_ROW if row.op != "match" else CONTENT_PER_ROW)
    return [(c.kind, c.path, *c.windows(WINDOW)) for c in shown], hidden


def _context(report: DiffReport, options: RenderOptions) -> dict[str, Any]:
    rows_options = options.model_copy(update={"max_rows": max(options.max_rows, MIN_ROWS)})
    view = report_view(
        report,
        rows_options,
        detail=True,
        fold_at=FOLD_AT,
        fold_budget=FOLD_BUDGET,
        detail_budget=DETAIL_BUDGET,
    )
    return {"view": view, "changes": _changes, "dags": dag_pictures(report)}


def _environment() -> Any:
    """The one jinja2 environment of the process (its templates compile once, not per page)."""
    try:
        import jinja2  # noqa: PLC0415, F401 - optional dependency, only the html format needs it
    except ImportError:
        msg = "the html format needs jinja2"
        raise AgentDiffError(msg, hint="pip install 'agentdiff[html]'") from None
    return _built_environment()


@cache
def _built_environment() -> Any:
    """Compiling a template costs ~40 ms: a suite that renders 25 pair pages paid it 25 times."""
    import jinja2  # noqa: PLC0415 - imported by `_environment` already

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_html(report: DiffReport, options: RenderOptions) -> str:
    """The report as one self-contained HTML page."""
    template = _environment().get_template("report.html.j2")
    return str(template.render(_context(report, options)))
