"""Terminal and markdown renderers of an N-vs-M report and of a routes report."""

from __future__ import annotations

from collections.abc import Sequence

from agentdiff.render.markdown import md
from agentdiff.render.measures import plural
from agentdiff.render.runs.view import (
    TEST_HEADER,
    caveat,
    ordered,
    route_cells,
    route_header,
    route_notes,
    route_sections,
    scenario_view,
    section_runs,
    summary_line,
)
from agentdiff.scenario.report import RoutesReport, RunsReport, ScenarioReport
from agentdiff.stats_options import judged_fdr

__all__ = ["render_routes_markdown", "render_routes_terminal", "runs_markdown", "runs_terminal"]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return indent + "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))

    return [line(header).rstrip(), *(line(r).rstrip() for r in rows)]


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md(c) for c in r) + " |" for r in rows]
    return out


def runs_terminal(report: RunsReport) -> str:
    """Plain text: the summary line first, then each scenario (worst first)."""
    out = [summary_line(report), ""]
    for s in ordered(report):
        v = scenario_view(s, judged_fdr(report.settings))
        out.append(f"{v.title} → {v.verdict.upper()}")
        out += [f"  {r}" for r in v.reasons]
        if v.tests:
            out += _table(TEST_HEADER, v.tests)
        out += [f"  ! {line}" for line in v.invariants if line not in v.reasons]
        if v.routes:
            out += _table(route_header(_totals(s)), v.routes)
            out += [f"    {n}" for n in v.route_notes]
        out += [f"  {f}" for f in v.facts]
        out.append("")
    out.append(f"note: {caveat(report)}")
    return "\n".join(out) + "\n"


def runs_markdown(report: RunsReport) -> str:
    """A PR comment: counts, the scenarios that need attention, details collapsed."""
    out = ["## AgentDiff: N-vs-M runs", "", f"**{summary_line(report)}**", ""]
    for s in ordered(report):
        v = scenario_view(s, judged_fdr(report.settings))
        out.append(f"### {v.verdict.upper()} · {md(v.title)}")
        out += [f"- {md(r)}" for r in v.reasons]
        out.append("")
        out.append("<details><summary>tests and routes</summary>")
        out.append("")
        if v.tests:
            out += [*_md_table(TEST_HEADER, v.tests), ""]
        if v.routes:
            out += [*_md_table(route_header(_totals(s)), v.routes), ""]
            out += [f"- {md(n)}" for n in v.route_notes]
        out += [f"- {md(f)}" for f in v.facts]
        out += ["", "</details>", ""]
    out.append(f"_{caveat(report)}_")
    return "\n".join(out) + "\n"


def render_routes_terminal(report: RoutesReport) -> str:
    """The route clusters of each scenario, as text."""
    out = []
    for name, section in route_sections(report):
        out.append(
            f"{name} · {section_runs(section)} · "
            f"{plural(section.distinct, 'distinct route')} · "
            f"{plural(len(section.clusters), 'cluster')} "
            f"(threshold {section.threshold:g}, {section.method})"
        )
        totals = {"runs": section.runs}
        rows = [route_cells(r, totals) for r in section.clusters]
        out += _table(route_header(totals), rows)
        out += [f"    {n}" for n in route_notes(section)]
        out.append("")
    return "\n".join(out)


def render_routes_markdown(report: RoutesReport) -> str:
    """The route clusters of each scenario, as markdown tables."""
    out = ["## AgentDiff: routes", ""]
    for name, section in route_sections(report):
        clusters = plural(len(section.clusters), "route cluster")
        out.append(f"### {md(name)} · {section_runs(section)} · {clusters}")
        totals = {"runs": section.runs}
        rows = [route_cells(r, totals) for r in section.clusters]
        out += [*_md_table(route_header(totals), rows), ""]
        out += [f"- {md(n)}" for n in route_notes(section)]
        out.append("")
    return "\n".join(out)


def _totals(s: ScenarioReport) -> dict[str, int]:
    return {"baseline": s.n_baseline, "candidate": s.n_candidate}
