"""The one view model every renderer reads: `report_view(report, options)` → `ReportView`.

It decides what is shown: rows and folds, each side's name, type, status, latency, tokens and
error, each changed field, the sentences (`render.sentences`) and the deltas. Every string from a
trace is prepared by `render.prepare` (`text()` / `block()`) while the view is built; renderers
add markup and cut to the width they have, and never recompute or touch trace strings.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentdiff.figures import fixed
from agentdiff.models.report import Aligned, DiffReport, Op, StepRef, Summary
from agentdiff.models.trace import StepStatus, TraceStep
from agentdiff.render.measures import (
    DELTA_ROWS,
    count,
    folded,
    format_delta,
    ms,
    pair,
    partly,
    plural,
)
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import ERROR_CHARS, block, redacting, shown_value, text
from agentdiff.render.rows import Row, rows
from agentdiff.render.sentences import (
    MARKERS,
    error_lines,
    findings,
    first_divergence_line,
    loop_lines,
    threshold_lines,
)
from agentdiff.render.text import payload_json, short_json
from agentdiff.render.verdict import headline, verdict_line
from agentdiff.render.window import Window, windows

__all__ = [
    "ERROR_CHARS",
    "MARKERS",
    "ChangeView",
    "ReportView",
    "RowView",
    "SideView",
    "StepView",
    "block",
    "findings",
    "first_divergence_line",
    "redacting",
    "report_view",
    "shown_value",
    "text",
    "verdict_line",
]

VALUE_CHARS = 20_000
"""Longest changed value kept for windowing."""
PAYLOAD_CHARS = 3000
"""Longest payload shown in the HTML step details (less when many rows share the budget)."""
MIN_PAYLOAD = 120


@dataclass(frozen=True)
class StepView:
    """One side of a row: what the step was and what it measured."""

    name: str
    step_type: str
    status: str | None
    """`None` on success, else `error` / `retry` / `abandoned`."""
    latency_ms: float | None = None
    tokens: int | None = None
    error: str | None = None
    """The error message, one line, shortened."""
    details: tuple[tuple[str, str], ...] = ()
    """(what, text) for the HTML step details: input, output, full error."""
    details_omitted: bool = False
    """True when the details were left out to keep the page small."""
    ran: int | None = None
    """On a row whose pair moved inside its concurrent group: the step's place in the order its
    own run ran (1-based; rows follow the candidate's order, so the baseline's shows here)."""

    @property
    def label(self) -> str:
        """`name`, with its status when it is not a success and its place when moved."""
        shown = self.name if self.status is None else f"{self.name} [{self.status}]"
        return shown if self.ran is None else f"{shown} (ran #{self.ran:,})"


@dataclass(frozen=True)
class ChangeView:
    """One changed field; `baseline`/`candidate` are compact one-line JSON."""

    kind: str
    path: str
    baseline: str
    candidate: str

    def windows(self, limit: int) -> tuple[Window, Window]:
        """Both values cut to about `limit` characters around where they first differ."""
        return windows(self.baseline, self.candidate, limit)


@dataclass(frozen=True)
class RowView:
    """One shown row of the alignment, or a fold of unchanged (or cut) rows."""

    number: int
    op: str
    """An `Op` value, or `fold`."""
    first: bool = False
    baseline: StepView | None = None
    candidate: StepView | None = None
    changes: tuple[ChangeView, ...] = ()
    more_changes: int = 0
    """Differences the engine counted beyond `changes`."""
    elision: str = ""
    folded: tuple[RowView, ...] = ()
    """The rows a fold hides, when the renderer asked for them (HTML)."""
    unlisted: int = 0
    """Rows of the fold not in `folded` (past the page's budget)."""

    @property
    def marker(self) -> str:
        """`=`, `~`, `+`, `-`, `↕`, or `…` for a fold."""
        return MARKERS[self.op]

    @property
    def step_type(self) -> str:
        """The step type (both sides are paired on it, so one is enough)."""
        side = self.candidate or self.baseline
        return side.step_type if side else ""

    @property
    def latency(self) -> str:
        """Latency on this row: `12 ms` or `10 → 12 ms`."""
        b, c = self.baseline, self.candidate
        return pair(b.latency_ms if b else None, c.latency_ms if c else None, ms)

    @property
    def tokens(self) -> str:
        """Tokens on this row: `120` or `100 → 120`."""
        b, c = self.baseline, self.candidate
        return pair(b.tokens if b else None, c.tokens if c else None, count)

    def shown_changes(self, limit: int) -> tuple[tuple[ChangeView, ...], int]:
        """The first `limit` changes and how many more there are (including uncounted)."""
        shown = self.changes[:limit]
        return shown, len(self.changes) - len(shown) + self.more_changes

    @staticmethod
    def more_text(hidden: int) -> str:
        """`+3 more changes`."""
        return f"+{plural(hidden, 'more change')}"


@dataclass(frozen=True)
class SideView:
    """A side's identity and counts, prepared."""

    label: str
    agent: str
    trace_id: str
    source_format: str
    steps: int
    tool_calls: int
    llm_calls: int
    errors: int
    model_turns: int = 0
    by_turns: bool = False
    """Count model turns, not `llm_call` steps: a side of the report has turns of other types."""
    folded: int = 0
    """Framework steps folded before comparing (`steps` counts the rest)."""

    @property
    def counts(self) -> str:
        """`8 steps · 2 tool calls · 3 LLM calls · 0 errors` (`3 model turns` when `by_turns`).

        With framework steps folded: `8 steps (9 framework steps folded) · …`.
        """
        calls = (
            plural(self.model_turns, "model turn")
            if self.by_turns
            else plural(self.llm_calls, "LLM call")
        )
        return " · ".join(
            (
                plural(self.steps, "step") + folded(self.folded),
                plural(self.tool_calls, "tool call"),
                calls,
                plural(self.errors, "error"),
            )
        )


@dataclass(frozen=True)
class ReportView:
    """Everything a renderer shows, prepared once."""

    passed: bool
    state: str
    verdict: str
    violations: list[tuple[str, str]]
    warnings: list[tuple[str, str]]
    thresholds: list[str]
    findings: list[str]
    sides: list[SideView]
    divergence: str
    """Written with 3 decimals, more when they would read as 0 (`figures.fixed`)."""
    first_divergence: str
    rows: list[RowView]
    total_rows: int
    loops: list[str]
    errors: list[str]
    deltas: list[tuple[str, str, str, str, str]]
    report_version: str
    legend: str = (
        "= match, ~ change, + insert, - delete, ↕ reorder (ran #n: the step's place in the"
        " order its run ran), … folded unchanged steps"
    )


def _details(step: TraceStep, limit: int) -> tuple[tuple[str, str], ...]:
    shown = [("input", payload_json(shown_value(step.input_payload), limit))]
    if step.output_payload is not None:
        shown.append(("output", payload_json(shown_value(step.output_payload), limit)))
    if step.error_message:
        shown.append(("error", block(step.error_message, limit)))
    return tuple(shown)


def _step_view(
    ref: StepRef | None,
    step: TraceStep | None,
    details: tuple[tuple[str, str], ...] | None,
    ran: int | None = None,
) -> StepView | None:
    """The view of one side of a row.

    `details`: `()` not asked for, `None` asked for but left out (page budget); `ran`: the
    step's place in its run when its pair moved.
    """
    if ref is None:
        return None
    status = None if ref.status is StepStatus.SUCCESS else ref.status.value
    message = ref.error_message or (step.error_message if step else None)
    tokens = step.tokens.total_tokens if step is not None and step.tokens is not None else None
    return StepView(
        name=text(ref.name),
        step_type=ref.step_type.value,
        status=status,
        latency_ms=step.latency_ms if step is not None else None,
        tokens=tokens,
        error=text(message, ERROR_CHARS) if message else None,
        details=details or (),
        details_omitted=details is None,
        ran=ran,
    )


def _change_views(entry: Aligned) -> tuple[ChangeView, ...]:
    return tuple(
        ChangeView(
            c.kind,
            text(c.path),
            short_json(shown_value(c.baseline, c.path), VALUE_CHARS),
            short_json(shown_value(c.candidate, c.path), VALUE_CHARS),
        )
        for c in entry.changes
    )


class _Builder:
    """Builds the rows of one view; HTML asks for folded rows and step details too."""

    def __init__(
        self, report: DiffReport, *, detail: bool, fold_budget: int, detail_budget: int
    ) -> None:
        self.report = report
        self.detail = detail
        self.budget = fold_budget
        self.detail_budget = detail_budget
        divergent = sum(e.op is not Op.MATCH for e in report.alignment) or 1
        self.payload_chars = min(PAYLOAD_CHARS, max(MIN_PAYLOAD, detail_budget // (4 * divergent)))
        base, cand = report.baseline_trace, report.candidate_trace
        self.base_steps = base.step_map() if base is not None else {}
        self.cand_steps = cand.step_map() if cand is not None else {}
        self.moved = {m.row: m for m in report.moved}

    def side(
        self,
        ref: StepRef | None,
        steps: dict[str, TraceStep],
        *,
        details: bool,
        ran: int | None = None,
    ) -> StepView | None:
        step = steps.get(ref.step_id) if ref is not None else None
        shown: tuple[tuple[str, str], ...] | None = ()
        if details and step is not None:
            shown = _details(step, self.payload_chars) if self.detail_budget > 0 else None
            self.detail_budget -= sum(len(t) for _, t in shown or ())
        return _step_view(ref, step, shown, ran)

    def row(self, row: Row, *, details: bool) -> RowView:
        entry = row.entry
        if entry is None:
            return self.fold(row)
        details = details and entry.op is not Op.MATCH
        moved = self.moved.get(row.number)
        return RowView(
            number=row.number,
            op=entry.op.value,
            first=row.first,
            baseline=self.side(
                entry.baseline,
                self.base_steps,
                details=details,
                ran=moved.baseline_position if moved else None,
            ),
            candidate=self.side(
                entry.candidate,
                self.cand_steps,
                details=details,
                ran=moved.candidate_position if moved else None,
            ),
            changes=_change_views(entry),
            more_changes=entry.more_changes,
        )

    def fold(self, row: Row) -> RowView:
        folded: list[RowView] = []
        if self.detail and not row.cut:
            take = min(row.skipped, self.budget)
            self.budget -= take
            entries = self.report.alignment[row.number - 1 : row.number - 1 + take]
            folded = [
                self.row(Row(row.number + i, e), details=False) for i, e in enumerate(entries)
            ]
        return RowView(
            number=row.number,
            op="fold",
            elision=row.elision,
            folded=tuple(folded),
            unlisted=row.skipped - len(folded),
        )


def _sides(report: DiffReport) -> list[SideView]:
    """Both sides, counted by model turns when a side has turns that are no `llm_call` step.

    A LangGraph or CrewAI run's model turns are routing and response steps: '0 LLM calls'
    would deny the calls it made.
    """
    sides = report.baseline, report.candidate
    by_turns = any(s.model_turns != s.llm_calls for s in sides)
    return [_side(label, s, by_turns) for label, s in zip(_LABELS, sides, strict=True)]


_LABELS = ("baseline", "candidate")


def _side(label: str, summary: Summary, by_turns: bool) -> SideView:
    return SideView(
        label=label,
        agent=text(summary.agent_name),
        trace_id=text(summary.trace_id),
        source_format=text(summary.source_format or "unknown format"),
        steps=summary.steps,
        tool_calls=summary.tool_calls,
        llm_calls=summary.llm_calls,
        errors=summary.errors,
        model_turns=summary.model_turns,
        by_turns=by_turns,
        folded=summary.folded_framework_steps or 0,
    )


def _deltas(report: DiffReport, by_turns: bool) -> list[tuple[str, str, str, str, str]]:
    """A row per measure; the calls to a model counted once, as the side lines count them.

    `LLM calls` (the `llm_call` steps), or `model turns` when a side has turns that are no
    `llm_call` step: beside the turns of a LangGraph run, 'LLM calls 0 → 0' would deny the
    calls it made. Without such turns both rows hold the same numbers. When framework steps
    were folded, a row under `steps` says how many on each side (`steps` counts the rest).
    """
    hidden = "llm_calls" if by_turns else "model_turns"
    rows = []
    for name, label, fmt in DELTA_ROWS:
        if name != hidden:
            base, cand, change, pct = format_delta(getattr(report.deltas, name), fmt)
            base_mark, cand_mark = _partial_marks(report, name)
            rows.append((label, base + base_mark, cand + cand_mark, change, pct))
        if name == "steps":
            rows.extend(_folded_row(report))
    return rows


def _folded_row(report: DiffReport) -> list[tuple[str, str, str, str, str]]:
    """`framework steps folded  9  9`: what each side's step count leaves out, when any.

    No change or percent: the folded steps are plumbing the comparison left out, not a measure
    of either run.
    """
    b, c = (s.folded_framework_steps or 0 for s in (report.baseline, report.candidate))
    return [("framework steps folded", count(b), count(c), "", "")] if b or c else []


def _partial_marks(report: DiffReport, name: str) -> tuple[str, str]:
    """` (partial)` beside a side's total that covers only some of its model turns.

    A candidate whose second turn reports no tokens totals what the first reports: shown bare,
    '200 → 100' would read as a halving (the warnings say how many turns each total covers).
    """
    if name not in _COVERED:
        return "", ""
    covered = _COVERED[name]
    return tuple(  # type: ignore[return-value]
        " (partial)" if partly(getattr(s, covered)) else ""
        for s in (report.baseline, report.candidate)
    )


_COVERED = {
    "prompt_tokens": "token_coverage",
    "completion_tokens": "token_coverage",
    "total_tokens": "token_coverage",
    "cost_usd": "cost_coverage",
}
"""The Deltas rows whose totals may cover only some model turns, and the coverage to read."""


def report_view(
    report: DiffReport,
    options: RenderOptions | None = None,
    *,
    detail: bool = False,
    fold_at: int | None = None,
    fold_budget: int = 0,
    detail_budget: int = 0,
) -> ReportView:
    """The view of `report`.

    `detail` adds each shown step's payloads (up to `detail_budget` characters in all) and the
    rows each fold hides (up to `fold_budget` rows in all); `fold_at` folds unchanged runs at
    least that long even when the report is short.
    """
    options = options or RenderOptions()
    with redacting(options.redactor()):
        return _view(report, options, detail, fold_at, fold_budget, detail_budget)


def _view(
    report: DiffReport,
    options: RenderOptions,
    detail: bool,
    fold_at: int | None,
    fold_budget: int,
    detail_budget: int,
) -> ReportView:
    builder = _Builder(report, detail=detail, fold_budget=fold_budget, detail_budget=detail_budget)
    state, words = headline(report)
    shown = rows(report, options.max_rows, fold_at)
    sides = _sides(report)
    return ReportView(
        passed=report.gate.passed,
        state=state,
        verdict=words,
        violations=[(v.rule, text(v.message)) for v in report.gate.violations],
        warnings=[(w.rule, text(w.message)) for w in report.gate.warnings],
        thresholds=threshold_lines(report),
        findings=findings(report),
        sides=sides,
        divergence=fixed(report.divergence, 3),
        first_divergence=first_divergence_line(report),
        rows=[builder.row(r, details=detail) for r in shown],
        total_rows=len(report.alignment),
        loops=loop_lines(report),
        errors=error_lines(report),
        deltas=_deltas(report, sides[0].by_turns),
        report_version=report.report_version,
    )
