"""The Markdown renderer, for pull-request comments and `$GITHUB_STEP_SUMMARY`.

Verdict first, a short findings list, then the gate details and the step table inside
collapsible `<details>`. Every string from a trace goes through `md()`: table pipes, HTML
angle brackets, backticks, emphasis, link and math (`$`) characters and `@mentions` are
escaped, so a name can neither break the table nor inject markup, nor ping anyone.
"""

from __future__ import annotations

import re

from agentdiff.models.report import Aligned, DiffReport
from agentdiff.render.options import RenderOptions
from agentdiff.render.text import clip, one_line, short_json
from agentdiff.render.view import (
    DELTA_ROWS,
    MARKERS,
    findings,
    format_delta,
    headline,
    rows,
    shown_changes,
    step_label,
)

__all__ = ["md", "render_markdown"]

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "`": "&#96;", "@": "&#64;", "|": "\\|"}
_SPECIAL = re.compile(r"[&<>`@|\\*_\[\]~#$]")


def md(text: object, limit: int = 200) -> str:
    """`text` from a trace, safe inside Markdown prose and table cells."""

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return _ENTITIES.get(char, "\\" + char)

    return _SPECIAL.sub(escape, clip(one_line(text), limit))


def render_markdown(report: DiffReport, options: RenderOptions) -> str:
    """The report as GitHub-flavoured Markdown."""
    state, words = headline(report)
    icon = "✅" if report.gate.passed else "❌"
    parts = [
        f"## {icon} AgentDiff: {state}",
        "",
        f"**{md(words, 2000)}**",
        "",
        *(f"- {md(line)}" for line in findings(report)),
        "",
        *_gate_details(report),
        *_step_details(report, options),
        *_delta_details(report),
    ]
    return "\n".join(parts) + "\n"


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _gate_details(report: DiffReport) -> list[str]:
    gate = report.gate
    body = ["| severity | rule | finding |", "| --- | --- | --- |"]
    body += [f"| ❌ blocks | {md(v.rule)} | {md(v.message)} |" for v in gate.violations]
    body += [f"| ⚠️ warning | {md(w.rule)} | {md(w.message)} |" for w in gate.warnings]
    if not gate.violations and not gate.warnings:
        body = ["No findings."]
    counts = f"{len(gate.violations)} blocking, {len(gate.warnings)} warnings"
    return _details(f"Gate details ({counts})", body)


def _changes_cell(entry: Aligned) -> str:
    cells = [
        f"{md(c.path, 80)}: {md(short_json(c.baseline, 60))} → {md(short_json(c.candidate, 60))}"
        for c in shown_changes(entry)
    ]
    return "<br>".join(cells)


def _step_details(report: DiffReport, options: RenderOptions) -> list[str]:
    body = ["| # | op | baseline | candidate | changes |", "| --: | :-: | --- | --- | --- |"]
    for row in rows(report, options.max_rows):
        entry = row.entry
        if entry is None:
            body.append(f"| {row.number} | | {row.elision} | | |")
            continue
        marker = md(MARKERS[entry.op])
        op = f"**{marker}**" if row.first else marker
        first = " ⬅ first divergence" if row.first else ""
        body.append(
            f"| {row.number} | {op} | {md(step_label(entry.baseline))} "
            f"| {md(step_label(entry.candidate))}{first} | {_changes_cell(entry)} |"
        )
    legend = "= match, ~ change, + insert, - delete, ↕ reorder"
    return _details(f"Aligned steps ({len(report.alignment)}; {legend})", body)


def _delta_details(report: DiffReport) -> list[str]:
    body = ["| measure | baseline | candidate | change | % |", "| --- | --: | --: | --: | --: |"]
    for field, label, fmt in DELTA_ROWS:
        cells = format_delta(getattr(report.deltas, field), fmt)
        body.append(f"| {label} | " + " | ".join(md(c) for c in cells) + " |")
    return _details("Deltas", body)
