"""The Markdown suite report, for a pull-request comment or `$GITHUB_STEP_SUMMARY`.

Counts first, a table of the regressed scenarios (most severe first), the errors, the others
with a run that could not be loaded (their reasons first, then the load error) and the
inconclusive ones, a list of the improved ones, then the findings of each inside a collapsed
`<details>`. Every string from a trace or a path goes
through `md()` (the pair renderer's escaping), so it can neither break the table nor inject
markup.
"""

from __future__ import annotations

from agentdiff.render.markdown import md
from agentdiff.render.measures import plural
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import text
from agentdiff.suite.render.view import ScenarioView, error_text, scenario_views, summary_line
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
            f"{_cell(report.name)}: {plural(report.counts.scenarios, 'scenario')}; "
            f"baseline {_cell(b.label)} ({plural(b.runs, 'run')}), "
            f"candidate {_cell(c.label)} ({plural(c.runs, 'run')})."
        ),
        "",
    ]
    views = scenario_views(report)
    attention = [*views["regressed"], *views["error"], *views["partial"], *views["inconclusive"]]
    attention += [v for v in (*views["removed"], *views["added"]) if v.row.errors]  # exit 2 too
    shown = attention[: options.max_rows]
    if shown:
        parts += _table(shown)
    improved = views["improved"][: max(0, options.max_rows - len(shown))]
    if improved:  # each with the p and q of its improvement (its headline)
        parts += [f"**Improved** ({len(views['improved'])}):", ""]
        parts += [f"- {_cell(v.row.scenario)} — {md(v.headline)}" for v in improved]
        parts.append("")
    if shown or improved:
        parts += _details([*shown, *improved])
    hidden = len(attention) + len(views["improved"]) - len(shown) - len(improved)
    if hidden > 0:
        parts += [f"… and {hidden} more (see the JSON report)", ""]
    for group, title in (("added", "Only in the candidate"), ("removed", "Only in the baseline")):
        if views[group]:
            listed = views[group][:_LISTED]
            names = ", ".join(_cell(v.row.scenario) for v in listed)  # escaped: no code span
            more = f" and {len(views[group]) - _LISTED} more" if len(views[group]) > _LISTED else ""
            parts += [f"**{title}** ({len(views[group])}): {names}{more}", ""]
    return "\n".join(parts) + "\n"


def _table(views: list[ScenarioView]) -> list[str]:
    lines = [
        "| Scenario | Verdict | Divergence | Runs | Why |",
        "|---|---|---:|---:|---|",
    ]
    for view in views:
        row, pair = view.row, view.row.pair
        rules = ", ".join(sorted({v.rule for v in pair.violations})) if pair else ""
        if row.stats is not None:
            rules = _first_of([text(reason) for reason in row.stats.reasons], 2)
        if row.errors:  # after the reasons of a verdict reached on the runs that did load
            lost = _first_of([error_text(e, 160) for e in row.errors], 1)
            rules = f"{rules}; {lost}" if rules else lost
        lines.append(
            f"| {_cell(row.scenario)} | {row.verdict} | {view.divergence} "
            f"| {view.runs} | {md(rules)} |"
        )
    return [*lines, ""]


def _first_of(items: list[str], shown: int) -> str:
    """The first `shown` items and how many more (`a; b; … +1 more`): the details list all."""
    more = len(items) - shown
    return "; ".join(items[:shown]) + (f"; … +{more} more" if more > 0 else "")


def _cell(value: str) -> str:
    """A scenario key or label from the user's files, on one line and escaped for a cell."""
    return md(text(value), 120)


def _details(views: list[ScenarioView]) -> list[str]:
    lines = ["<details><summary>Findings per scenario</summary>", ""]
    for view in views:
        lines.append(f"**{_cell(view.row.scenario)}** — {md(view.headline)}")
        lines += [f"- {md(finding, 400)}" for finding in view.findings]
        lines.append("")
    return [*lines, "</details>", ""]
