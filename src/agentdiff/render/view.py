"""What every renderer shows, read off the report (never recomputed): rows, labels, findings.

The renderers differ only in markup; this module decides the words: the op markers, which row
is the first divergence, which unchanged rows are elided, how a measure and a delta are written,
and the short list of findings under the verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentdiff.gate import verdict
from agentdiff.models.report import Aligned, Change, Delta, DiffReport, Op, StepRef
from agentdiff.models.trace import StepStatus
from agentdiff.render.text import clip, one_line

__all__ = [
    "DELTA_ROWS",
    "MARKERS",
    "Row",
    "findings",
    "first_divergence_line",
    "format_delta",
    "headline",
    "loop_lines",
    "recovery_lines",
    "rows",
    "shown_changes",
    "step_label",
]

MARKERS: dict[Op, str] = {
    Op.MATCH: "=",
    Op.CHANGE: "~",
    Op.INSERT: "+",
    Op.DELETE: "-",
    Op.REORDER: "↕",
}
_CONTEXT = 1
"""Unchanged rows kept around each divergent row when the alignment is elided."""


@dataclass(frozen=True)
class Row:
    """One alignment entry to show (`entry`), or a run of `skipped` unchanged entries."""

    number: int
    """1-based position in the alignment (of the first skipped entry for an elision)."""
    entry: Aligned | None
    first: bool = False
    """True on the first divergence."""
    skipped: int = 0
    cut: bool = False
    """True when the elision is the tail cut at `max_rows` (it may hide changes too)."""

    @property
    def elision(self) -> str:
        """What an elided row says."""
        plural = "s" if self.skipped != 1 else ""
        if self.cut:
            return f"… {self.skipped} more step{plural} not shown (the JSON report has all) …"
        return f"… {self.skipped} unchanged step{plural} …"


def headline(report: DiffReport) -> tuple[str, str]:
    """`("PASSED" | "FAILED", plain-words verdict)`."""
    return ("PASSED" if report.gate.passed else "FAILED"), verdict(report.gate)


def shown_changes(entry: Aligned) -> list[Change]:
    """The changes worth a line: all of them on a `change` row, none on a match."""
    return list(entry.changes) if entry.op is Op.CHANGE else []


def step_label(ref: StepRef | None, limit: int = 60) -> str:
    """`name` (single line, clipped) with its status when it is not a success."""
    if ref is None:
        return ""
    label = clip(one_line(ref.name), limit)
    return label if ref.status is StepStatus.SUCCESS else f"{label} [{ref.status.value}]"


def rows(report: DiffReport, max_rows: int) -> list[Row]:
    """The alignment as rows; past `max_rows`, long unchanged runs collapse into one row."""
    entries = report.alignment
    first = report.first_divergence
    all_rows = [Row(i + 1, e, first=e == first) for i, e in enumerate(entries)]
    if len(all_rows) <= max_rows:
        return all_rows
    keep = {
        j
        for i, e in enumerate(entries)
        if e.op is not Op.MATCH
        for j in range(i - _CONTEXT, i + _CONTEXT + 1)
    }
    keep |= {0, len(entries) - 1}
    shown: list[Row] = []
    for row in all_rows:
        if row.number - 1 in keep:
            shown.append(row)
        elif shown and shown[-1].entry is None:
            last = shown[-1]
            shown[-1] = Row(last.number, None, skipped=last.skipped + 1)
        else:
            shown.append(Row(row.number, None, skipped=1))
    if len(shown) <= max_rows:
        return shown
    kept = shown[: max_rows - 1]
    hidden = len(entries) - (shown[max_rows - 1].number - 1)
    return [*kept, Row(shown[max_rows - 1].number, None, skipped=hidden, cut=True)]


def _count(value: float) -> str:
    return f"{value:,.0f}"


def _usd(value: float) -> str:
    return f"${value:.6f}" if abs(value) < 1 else f"${value:,.2f}"


def _ms(value: float) -> str:
    return f"{value:,.0f} ms" if abs(value) < 10_000 else f"{value / 1000:,.1f} s"  # noqa: PLR2004


DELTA_ROWS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("steps", "steps", _count),
    ("tool_calls", "tool calls", _count),
    ("llm_calls", "LLM calls", _count),
    ("model_turns", "model turns", _count),
    ("errors", "errors", _count),
    ("prompt_tokens", "prompt tokens", _count),
    ("completion_tokens", "completion tokens", _count),
    ("total_tokens", "total tokens", _count),
    ("cost_usd", "cost", _usd),
    ("latency_ms", "latency", _ms),
)
"""(field of `Deltas`, label, formatter) in display order."""


def format_delta(delta: Delta, fmt: Callable[[float], str]) -> tuple[str, str, str, str]:
    """`(baseline, candidate, change, percent)` as text; unknown values say `unknown`."""

    def show(value: float | None) -> str:
        return "unknown" if value is None else fmt(value)

    change = (
        "unknown" if delta.delta is None else ("+" if delta.delta > 0 else "") + fmt(delta.delta)
    )
    pct = "n/a" if delta.pct is None else f"{delta.pct:+.1f}%"
    return show(delta.baseline), show(delta.candidate), change, pct


def _candidate_steps(report: DiffReport) -> dict[str, StepRef]:
    return {e.candidate.step_id: e.candidate for e in report.alignment if e.candidate}


def first_divergence_line(report: DiffReport) -> str:
    """Where the runs first part ways, e.g. `first divergence: row 6, + get_weather [error]`."""
    first = report.first_divergence
    if first is None:
        return "same path"
    row = report.alignment.index(first) + 1
    label = step_label(first.candidate or first.baseline)
    return f"first divergence: row {row}, {MARKERS[first.op]} {label}"


def loop_lines(report: DiffReport) -> list[str]:
    """One line per loop in the candidate: what repeats, how often, new or known."""
    lines = []
    for loop in report.loops:
        names = " → ".join(clip(one_line(n), 40) for n in loop.names)
        state = "new" if loop.new else f"known, baseline ×{loop.baseline_repetitions}"
        lines.append(f"{loop.kind.replace('_', ' ')} {names} ×{loop.repetitions} ({state})")
    return lines


_OUTCOMES = {
    "retried_succeeded": "retried → succeeded",
    "retried_still_failing": "retried → still failing",
    "gave_up": "gave up",
}


def recovery_lines(report: DiffReport) -> list[str]:
    """One plain sentence per failed attempt of the candidate: its retry, and the way back."""
    names = _candidate_steps(report)
    lines = []
    for rec in report.recovery:
        ref = names.get(rec.error_step_id)
        name = clip(one_line(ref.name if ref else rec.error_step_id), 60)
        after = rec.steps_to_recover
        if not rec.recovered or after is None:
            back = "never back on the baseline path"
        elif after == 0:
            back = "on the baseline path"
        else:
            back = f"back on the baseline path after {after} step{'s' if after != 1 else ''}"
        lines.append(f"error in {name}: {_OUTCOMES[rec.outcome]}; {back}")
    return lines


def findings(report: DiffReport) -> list[str]:
    """The short list under the verdict: divergence, loops, errors, cost and tokens."""
    found = [f"divergence {report.divergence:.2f}, {first_divergence_line(report)}"]
    found.extend(loop_lines(report))
    found.extend(recovery_lines(report))
    for field, label, fmt in DELTA_ROWS[-3:]:
        base, cand, _, pct = format_delta(getattr(report.deltas, field), fmt)
        found.append(
            f"{label} {base} → {cand} ({pct}){_coverage(report) if field == 'cost_usd' else ''}"
        )
    return found


def _coverage(report: DiffReport) -> str:
    """`; partly priced: 4 of 5 model turns priced on the candidate`, when a cost is partial."""
    sides = (("baseline", report.baseline), ("candidate", report.candidate))
    partial = [
        f"{s.cost_coverage} on the {name}"
        for name, s in sides
        if s.cost_coverage and s.cost_coverage.partial
    ]
    return f"; partly priced: {', '.join(partial)}" if partial else ""
