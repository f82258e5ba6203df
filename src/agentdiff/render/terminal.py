"""The terminal renderer (rich): verdict, thresholds and findings first, then the aligned runs.

It reads the prepared `ReportView` and only adds styling: every string goes into a
`rich.text.Text` (never a markup string), so `[bold red]` and escape sequences inside names or
payloads print literally. Step names are cut only to the width their column has; on a terminal
at least `WIDE` columns wide each row also shows its step type, latency and tokens.
Colour: `RenderOptions.color` forces it; `None` means off (the CLI decides for a TTY).
"""

from __future__ import annotations

import io

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentdiff.models.report import DiffReport
from agentdiff.render.options import RenderOptions
from agentdiff.render.view import ReportView, RowView, SideView, StepView, report_view
from agentdiff.render.window import Window

__all__ = ["render_terminal", "terminal_renderable"]

DEFAULT_WIDTH = 100
WIDE = 120
"""From this width on, rows also show type, latency and tokens."""
CHANGES_PER_ROW = 5
_OP_STYLE = {
    "match": "dim",
    "change": "yellow",
    "insert": "green",
    "delete": "red",
    "reorder": "cyan",
    "fold": "dim",
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
    view = report_view(report, options)
    width = options.width or DEFAULT_WIDTH
    return Group(
        _verdict(view),
        _findings(view),
        _sides(view),
        _alignment(view, width),
        _deltas(view),
    )


def _verdict(view: ReportView) -> Text:
    text = Text()
    text.append(f"{view.state}  ", style="bold green" if view.passed else "bold red")
    text.append(view.verdict, style="bold")
    for _, message in view.warnings:
        text.append("\nwarning: ", style="yellow")
        text.append(message)
    for line in view.thresholds:
        text.append("\nthresholds: ", style="dim")
        text.append(line, style="dim")
    return text


def _findings(view: ReportView) -> Text:
    text = Text("\nFindings", style="bold")
    for line in view.findings:
        text.append("\n  • ")
        text.append(line)
    return text


def _side(side: SideView) -> Text:
    text = Text(f"{side.label:<10}", style="bold")
    text.append(side.agent)
    text.append(f"  {side.trace_id}", style="dim")
    text.append(f"  {side.source_format}", style="dim")
    text.append(f"  {side.counts}")
    return text


def _sides(view: ReportView) -> Text:
    text = Text("\n")
    for side in view.sides:
        text.append_text(_side(side))
        text.append("\n")
    text.append(f"divergence {view.divergence}  {view.first_divergence}")
    return text


def _cell(text: str, style: str = "", *, wrap: bool = False) -> Text:
    return Text(text, style=style, no_wrap=not wrap, overflow="fold" if wrap else "ellipsis")


def _alignment(view: ReportView, width: int) -> Table:
    wide = width >= WIDE
    heads = ["#", "op", *(["type"] if wide else []), "baseline", "candidate"]
    heads += ["latency", "tokens"] if wide else []
    table = Table(*heads, box=None, pad_edge=False)
    for column in table.columns:
        column.no_wrap, column.overflow = True, "ellipsis"
    table.columns[0].min_width = len(str(view.total_rows))
    table.columns[1].min_width = 2
    names = table.columns[3:5] if wide else table.columns[2:4]
    for column in names:
        column.no_wrap = False  # these give up width when the table is too wide
    if wide:
        table.columns[2].min_width = len("tool_call")
        table.columns[-1].justify = table.columns[-2].justify = "right"
    window = max((width - (60 if wide else 12)) // 2 - 10, 20)
    for row in view.rows:
        _add_row(table, row, wide=wide, window=window)
    return table


def _pad(cells: list[Text], *, wide: bool) -> list[Text]:
    """`[#, op, baseline, candidate]` spread over the columns of a wide or narrow table."""
    number, op, base, cand = cells
    if not wide:
        return cells
    return [number, op, Text(""), base, cand, Text(""), Text("")]


def _add_row(table: Table, row: RowView, *, wide: bool, window: int) -> None:
    style = _OP_STYLE[row.op]
    if row.op == "fold":
        gap = _cell(row.elision, "dim")
        table.add_row(*_pad([_cell(str(row.number), "dim"), Text(""), gap, Text("")], wide=wide))
        return
    marker = Text(row.marker, style="bold " + style)
    candidate = _name(row.candidate, style)
    if row.first:
        marker.stylize("reverse")
        candidate.append("  ◀ first divergence", style="bold magenta")
    cells = [_cell(str(row.number), "dim"), marker, _name(row.baseline, style), candidate]
    if wide:
        table.add_row(
            cells[0],
            cells[1],
            _cell(row.step_type, "dim"),
            cells[2],
            cells[3],
            _cell(row.latency, "cyan"),
            _cell(row.tokens, "blue"),
        )
    else:
        table.add_row(*cells)
    _add_details(table, row, wide=wide, window=window)


def _name(step: StepView | None, style: str) -> Text:
    return _cell(step.label if step else "", style)


def _add_details(table: Table, row: RowView, *, wide: bool, window: int) -> None:
    blank = Text("")
    errors = [row.baseline.error if row.baseline else None]
    errors.append(row.candidate.error if row.candidate else None)
    if any(errors):
        cells = [_cell(f"  error: {e}" if e else "", "red") for e in errors]
        table.add_row(*_pad([blank, blank, *cells], wide=wide))
    shown, hidden = row.shown_changes(CHANGES_PER_ROW)
    for change in shown:
        before, after = change.windows(window)
        path = _cell(f"  {change.path}:", "dim", wrap=True)
        table.add_row(*_pad([blank, blank, path, blank], wide=wide))
        values = [_window(before, "red", "    "), _window(after, "green", "→ ")]
        table.add_row(*_pad([blank, blank, *values], wide=wide))
    if hidden:
        more = _cell(f"  {row.more_text(hidden)}", "dim")
        table.add_row(*_pad([blank, blank, more, blank], wide=wide))


def _window(window: Window, style: str, lead: str = "") -> Text:
    """A value around its first difference, the changed part bracketed and underlined."""
    text = _cell(lead, wrap=True)
    text.append(window.before, style=style)
    if window.changed:
        text.append(f"[{window.mark}]", style=f"bold underline {style}")
        text.append(window.after, style=style)
    return text


def _deltas(view: ReportView) -> RenderableType:
    table = Table("measure", "baseline", "candidate", "change", "%", box=None, pad_edge=False)
    for column in table.columns[1:]:
        column.justify = "right"
    for row in view.deltas:
        table.add_row(*row)
    return Group(Text("\nDeltas", style="bold"), table)
