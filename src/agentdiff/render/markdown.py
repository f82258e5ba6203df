"""The Markdown renderer, for pull-request comments and `$GITHUB_STEP_SUMMARY`.

Verdict first, a short findings list, then the gate details and the step table inside
collapsible `<details>`. Every string from a trace goes through `md()`: table pipes, HTML
angle brackets, backticks, emphasis, link and math (`$`) characters are escaped, and `@`, `#`,
URLs and emoji shortcodes get a zero-width space, so a name can neither break the table nor
inject markup, nor ping anyone, reference an issue, or show a link or an emoji.
"""

from __future__ import annotations

import re

from agentdiff.models.report import DiffReport
from agentdiff.render.options import RenderOptions
from agentdiff.render.text import clip
from agentdiff.render.view import ReportView, RowView, StepView, report_view
from agentdiff.render.window import Window

__all__ = ["md", "render_markdown"]

CHANGES_PER_ROW = 5
WINDOW = 60
"""Characters of a changed value shown around its first difference."""
_ZWSP = "\u200b"
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "`": "&#96;", "|": "\\|"}
_ENTITIES |= {"@": "@" + _ZWSP, "#": "#" + _ZWSP}
"""`@` and `#` are followed by a zero-width space: GitHub finds mentions and issue references
in the rendered HTML, where `&#64;` and `\\#` are plain `@` and `#` again (`#` + a zero-width
space is no heading either)."""
_SPECIAL = re.compile(r"[&<>`@|\\*_\[\]~#$]")
_LINKS = re.compile(r"(?i)\b(?:https?|ftp|mailto):|\bwww(?=\.)|:(?=[\w+\\-]+:)")
"""Where a zero-width space stops GitHub's autolinks (`https://…`, `www.…`) and emoji
shortcodes (`:white_check_mark:`) in trace text: a link or a ✅ in a bot's comment that the
trace put there."""


def md(text: str, limit: int = 2000) -> str:
    """Prepared text (from the view), safe inside Markdown prose and table cells."""

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return _ENTITIES.get(char, "\\" + char)

    return _LINKS.sub(_broken, _SPECIAL.sub(escape, clip(text, limit)))


def _broken(match: re.Match[str]) -> str:
    return match.group() + _ZWSP


def render_markdown(report: DiffReport, options: RenderOptions) -> str:
    """The report as GitHub-flavoured Markdown."""
    view = report_view(report, options)
    icon = "✅" if view.passed else "❌"
    parts = [
        f"## {icon} AgentDiff: {view.state}",
        "",
        f"**{md(view.verdict)}**",
        "",
        *(f"- {md(line)}" for line in view.findings),
        "",
        *(f"<sub>Thresholds: {md(line)}</sub><br>" for line in view.thresholds),
        "",
        *_delta_details(view),
        *_gate_details(view),
        *_step_details(view),
    ]
    return "\n".join(parts) + "\n"


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _gate_details(view: ReportView) -> list[str]:
    body = ["| severity | rule | finding |", "| --- | --- | --- |"]
    body += [f"| ❌ blocks | {md(rule)} | {md(message)} |" for rule, message in view.violations]
    body += [f"| ⚠️ warning | {md(rule)} | {md(message)} |" for rule, message in view.warnings]
    if not view.violations and not view.warnings:
        body = ["No findings."]
    counts = f"{len(view.violations)} blocking, {len(view.warnings)} warnings"
    return _details(f"Gate details ({counts})", body)


def _window(window: Window) -> str:
    if not window.changed:
        return md(window.before)
    return f"{md(window.before)}**\\[{md(window.mark)}\\]**{md(window.after)}"


def _changes_cell(row: RowView) -> str:
    shown, hidden = row.shown_changes(CHANGES_PER_ROW)
    cells = []
    for change in shown:
        before, after = change.windows(WINDOW)
        cells.append(f"{md(change.path, 80)}: {_window(before)} → {_window(after)}")
    if hidden:
        cells.append(md(row.more_text(hidden)))
    return "<br>".join(cells)


def _side(step: StepView | None) -> str:
    if step is None:
        return ""
    cell = md(step.label)
    return f"{cell}<br>error: {md(step.error)}" if step.error else cell


def _step_details(view: ReportView) -> list[str]:
    body = [
        "| # | op | type | baseline | candidate | latency | tokens | changes |",
        "| --: | :-: | --- | --- | --- | --: | --: | --- |",
    ]
    for row in view.rows:
        if row.op == "fold":
            body.append(f"| {row.number} | {md(row.marker)} | | {md(row.elision)} | | | | |")
            continue
        op = f"**{md(row.marker)}**" if row.first else md(row.marker)
        first = " ⬅ first divergence" if row.first else ""
        body.append(
            f"| {row.number} | {op} | {md(row.step_type)} | {_side(row.baseline)} "
            f"| {_side(row.candidate)}{first} | {md(row.latency)} | {md(row.tokens)} "
            f"| {_changes_cell(row)} |"
        )
    return _details(f"Aligned steps ({view.total_rows}; {md(view.legend)})", body)


def _delta_details(view: ReportView) -> list[str]:
    body = ["| measure | baseline | candidate | change | % |", "| --- | --: | --: | --: | --: |"]
    body += ["| " + " | ".join(md(c) for c in row) + " |" for row in view.deltas]
    return _details("Deltas", body)
