"""HTML for N-vs-M reports and route maps: one self-contained page (inline CSS and SVG).

Per scenario: verdict and reasons, the tests, the route clusters, the **route trie** (runs per
side at every branch, where divergence shows first) and the **distributions** of cost, latency,
tokens and steps per side as strip plots. jinja2 autoescapes every string from a trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import Any

from agentdiff.render.html import _environment
from agentdiff.render.runs.view import (
    TEST_HEADER,
    caveat,
    number,
    ordered,
    route_cells,
    route_header,
    route_notes,
    route_sections,
    scenario_view,
    section_runs,
    summary_line,
    trie_view,
)
from agentdiff.scenario.report import RoutesReport, RunRow, RunsReport
from agentdiff.stats_options import judged_fdr

__all__ = ["render_routes_html", "runs_html"]

_WIDTH = 520
_DISTRIBUTIONS = (
    ("cost_usd", "cost (USD)"),
    ("latency_ms", "latency (ms)"),
    ("total_tokens", "total tokens"),
    ("steps", "steps"),
)


@dataclass(frozen=True)
class _Strip:
    """One metric's values per side, placed on a shared axis (x in pixels)."""

    title: str
    low: str
    high: str
    rows: list[tuple[str, list[float], float]]
    """(side, x of each run, x of the median)."""


def runs_html(report: RunsReport) -> str:
    """The N-vs-M report as one HTML page."""
    scenarios = []
    for s in ordered(report):
        view = scenario_view(s, judged_fdr(report.settings))
        totals = {"baseline": s.n_baseline, "candidate": s.n_candidate}
        scenarios.append(
            {
                "view": view,
                "route_header": route_header(totals),
                "trie": trie_view(s.routes.trie) if s.routes else None,
                "sides": list(totals),
                "strips": _strips(s.runs),
            }
        )
    context: dict[str, Any] = {
        "title": "AgentDiff: N-vs-M runs",
        "summary": summary_line(report),
        "caveat": caveat(report),
        "test_header": TEST_HEADER,
        "scenarios": scenarios,
    }
    return str(_environment().get_template("runs.html.j2").render(context))


def render_routes_html(report: RoutesReport) -> str:
    """The route map of one set of runs as one HTML page."""
    scenarios = []
    for name, section in route_sections(report):
        totals = {"runs": section.runs}
        title = f"{name} · {section_runs(section)} · {len(section.clusters)} route clusters"
        scenarios.append(
            {
                "view": scenario_view_like(title, section),
                "route_header": route_header(totals),
                "trie": trie_view(section.trie),
                "sides": ["runs"],
                "strips": [],
            }
        )
    context: dict[str, Any] = {
        "title": "AgentDiff: routes",
        "summary": f"{len(report.scenarios)} scenarios, threshold {report.threshold:g}",
        "caveat": "",
        "test_header": TEST_HEADER,
        "scenarios": scenarios,
    }
    return str(_environment().get_template("runs.html.j2").render(context))


def scenario_view_like(title: str, section: Any) -> dict[str, Any]:
    """A scenario view with only routes (for the routes report)."""
    totals = {"runs": section.runs}
    return {
        "title": title,
        "verdict": "routes",
        "reasons": [],
        "tests": [],
        "invariants": [],
        "routes": [route_cells(r, totals) for r in section.clusters],
        "route_notes": route_notes(section),
        "facts": [],
        "nearest": [],
    }


def _strips(runs: list[RunRow]) -> list[_Strip]:
    out = []
    for key, title in _DISTRIBUTIONS:
        values = [(r.side, getattr(r, key)) for r in runs if getattr(r, key) is not None]
        if not values:
            continue
        numbers = [float(v) for _, v in values]
        low, high = min(numbers), max(numbers)
        span = (high - low) or 1.0

        def x(v: float, low: float = low, span: float = span) -> float:
            return round(10 + (v - low) / span * (_WIDTH - 20), 1)

        rows = []
        for side in dict.fromkeys(side for side, _ in values):
            mine = [float(v) for s, v in values if s == side]
            rows.append((side, [x(v) for v in mine], x(median(mine))))
        out.append(_Strip(title, number(low), number(high), rows))
    return out
