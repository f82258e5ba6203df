"""The terminal renderer (rich): the verdict first, then the aligned runs, findings and deltas.

Every string from a trace goes into a `rich.text.Text` (never a markup string) after
`one_line()`, so `[bold red]` and escape sequences inside names or payloads print literally.
Colour: `RenderOptions.color` forces it; `None` means on only for a TTY without `NO_COLOR`
(the CLI decides, since the renderer writes to a string).
"""

from __future__ import annotations

import io

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentdiff.models.report import Change, DiffReport, Op, Summary
from agentdiff.render.options import RenderOptions
from agentdiff.render.text import clip, one_line, short_json
from agentdiff.render.view import (
    DELTA_ROWS,
    MARKERS,
    Row,
    first_divergence_line,
    format_delta,
    headline,
    loop_lines,
    recovery_lines,
    rows,
    shown_changes,
    step_label,
)

__all__ = ["render_terminal", "terminal_renderable"]

DEFAULT_WIDTH = 100
_OP_STYLE = {
    Op.MATCH: "dim",
    Op.CHANGE: "yellow",
    Op.INSERT: "green",
    Op.DELETE: "red",
    Op.REORDER: "cyan",
}


def render_terminal(report: DiffReport, options: RenderOptions) -> str:
    """The report as terminal text; ANSI codes only when `options.color` is true."""
    buffer = io.StringIO()
    color = bool(options.color)
    console = Console(
        file=buffer,
        width=options.width or DEFAULT_WIDTH,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
        markup=False,
        legacy_windows=False,
    )
    console.print(terminal_renderable(report, options))
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def terminal_renderable(report: DiffReport, options: RenderOptions) -> RenderableType:
    """Everything the terminal shows, as one rich renderable."""
    parts: list[RenderableType] = [_verdict(report), _sides(report), _alignment(report, options)]
    parts.extend(_findings(report))
    parts.append(_deltas(report))
    return Group(*parts)


def _verdict(report: DiffReport) -> Text:
    state, words = headline(report)
    text = Text()
    text.append(f"{state}  ", style="bold green" if report.gate.passed else "bold red")
    text.append(words, style="bold")
    for warning in report.gate.warnings:
        text.append("\nwarning: ", style="yellow")
        text.append(one_line(warning.message))
    return text


def _side(label: str, summary: Summary) -> Text:
    text = Text(f"{label:<10}", style="bold")
    text.append(clip(one_line(summary.agent_name), 40))
    text.append(f"  {clip(one_line(summary.trace_id), 20)}", style="dim")
    text.append(f"  {one_line(summary.source_format or 'unknown format')}", style="dim")
    text.append(f"  {summary.steps} steps")
    return text


def _sides(report: DiffReport) -> Text:
    text = Text("\n")
    text.append_text(_side("baseline", report.baseline))
    text.append("\n")
    text.append_text(_side("candidate", report.candidate))
    text.append(f"\ndivergence {report.divergence:.3f}", style="bold")
    text.append(f"  {first_divergence_line(report)}")
    return text


def _alignment(report: DiffReport, options: RenderOptions) -> Table:
    table = Table(
        "#", "op", "baseline", "candidate", box=None, pad_edge=False, title_justify="left"
    )
    table.columns[2].overflow = table.columns[3].overflow = "fold"
    for row in rows(report, options.max_rows):
        _add_row(table, row)
    return table


def _add_row(table: Table, row: Row) -> None:
    entry = row.entry
    if entry is None:
        gap = Text(row.elision, "dim")
        table.add_row(Text(str(row.number), "dim"), Text(""), gap, Text(""))
        return
    style = _OP_STYLE[entry.op]
    marker = Text(MARKERS[entry.op], style="bold " + style)
    candidate = Text(step_label(entry.candidate), style=style)
    if row.first:
        marker.stylize("reverse")
        candidate.append("  ◀ first divergence", style="bold magenta")
    table.add_row(
        Text(str(row.number), "dim"),
        marker,
        Text(step_label(entry.baseline), style=style),
        candidate,
    )
    for change in shown_changes(entry):
        table.add_row(Text(""), Text(""), *_change_cells(change))


def _change_cells(change: Change) -> tuple[Text, Text]:
    path = Text(f"  {clip(one_line(change.path), 60)}: ", style="dim")
    path.append(short_json(change.baseline, 60), style="red")
    return path, Text(f"→ {short_json(change.candidate, 60)}", style="green")


def _findings(report: DiffReport) -> list[RenderableType]:
    parts: list[RenderableType] = []
    if report.loops:
        text = Text("\nLoops", style="bold")
        for line in loop_lines(report):
            text.append(f"\n  {line}", style="magenta")
        parts.append(text)
    recovered = recovery_lines(report)
    if recovered:
        text = Text("\nErrors and recovery", style="bold")
        for line in recovered:
            text.append(f"\n  {line}", style="red")
        parts.append(text)
    return parts


def _deltas(report: DiffReport) -> RenderableType:
    table = Table("measure", "baseline", "candidate", "change", "%", box=None, pad_edge=False)
    for column in table.columns[1:]:
        column.justify = "right"
    for field, label, fmt in DELTA_ROWS:
        table.add_row(label, *format_delta(getattr(report.deltas, field), fmt))
    return Group(Text("\nDeltas", style="bold"), table)
