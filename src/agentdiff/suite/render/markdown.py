"""The Markdown suite report, for a pull-request comment or `$GITHUB_STEP_SUMMARY`.

Counts first, a table of the regressed scenarios (most severe first) and of the errors, then the
findings of each inside a collapsed `<details>`. Every string from a trace or a path goes
through `md()` (the pair renderer's escaping), so it can neither break the table nor inject
markup.
"""

from __future__ import annotations

from agentdiff.render.markdown import md
from agentdiff.render.options import RenderOptions
from agentdiff.suite.render.view import ScenarioView, scenario_views, summary_line
from agentdiff.suite.report import SuiteReport

__all__ = ["render_suite_markdown"]

_LISTED = 50
"""Added/removed scenarios named before "and N more"."""


def render_suite_markdown(report: SuiteReport, options: RenderOptions | None = None) -> str:
    """The suite as GitHub-flavoured Markdown."""
    options = options or RenderOptions()
    icon = "✅" if report.passed else "❌"
    state = "PASSED" if report.passed else "FAILED"
    b, c = report.baseline, report.candidate
    parts = [
        f"## {icon} AgentDiff suite: {state}",
        "",
        f"**{md(summary_line(report))}**",
        "",
        (
            f"{md(report.name)}: {report.counts.scenarios} scenarios; baseline {md(b.label)} "
            f"({b.runs} runs), candidate {md(c.label)} ({c.runs} runs)."
        ),
        "",
    ]
    views = scenario_views(report)
    attention = [*views["regressed"], *views["error"], *views["inconclusive"]]
    shown = attention[: options.max_rows]
    if shown:
        parts += _table(shown)
        parts += _details(shown)
    hidden = len(attention) - len(shown)
    if hidden > 0:
        parts += [f"… and {hidden} more (see the JSON report)", ""]
    for group, title in (("added", "Only in the candidate"), ("removed", "Only in the baseline")):
        if views[group]:
            listed = views[group][:_LISTED]
            names = ", ".join(f"`{md(v.row.scenario, 120)}`" for v in listed)
            more = f" and {len(views[group]) - _LISTED} more" if len(views[group]) > _LISTED else ""
            parts += [f"**{title}** ({len(views[group])}): {names}{more}", ""]
    return "\n".join(parts) + "\n"


def _table(views: list[ScenarioView]) -> list[str]:
    lines = [
        "| Scenario | Verdict | Divergence | Runs | Broken rules |",
        "|---|---|---:|---:|---|",
    ]
    for view in views:
        row, pair = view.row, view.row.pair
        divergence = f"{pair.divergence:.2f}" if pair else "—"
        rules = ", ".join(sorted({v.rule for v in pair.violations})) if pair else ""
        if row.stats is not None:
            divergence = "—"
            rules = "; ".join(row.stats.reasons[:2])
        if row.errors:
            rules = "could not load a run"
        lines.append(
            f"| {md(row.scenario, 120)} | {row.verdict} | {divergence} "
            f"| {row.baseline_runs}→{row.candidate_runs} | {md(rules)} |"
        )
    return [*lines, ""]


def _details(views: list[ScenarioView]) -> list[str]:
    lines = ["<details><summary>Findings per scenario</summary>", ""]
    for view in views:
        lines.append(f"**{md(view.row.scenario, 120)}** — {md(view.headline)}")
        lines += [f"- {md(finding, 400)}" for finding in view.findings]
        lines.append("")
    return [*lines, "</details>", ""]
