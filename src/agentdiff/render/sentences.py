"""The sentences of a report, in plain words: findings with their evidence, thresholds, lines.

Every sentence is read off the report (its `findings`, loops, recovery, deltas and thresholds)
and every trace string in it goes through `prepare.text()`; renderers only add markup.
"""

from __future__ import annotations

from collections.abc import Callable

from agentdiff.figures import fixed
from agentdiff.gate import CHANGE_WORDS, changed_kinds
from agentdiff.models.report import (
    CostCoverage,
    DiffReport,
    Effect,
    Finding,
    Op,
    Threshold,
    TokenCoverage,
)
from agentdiff.models.trace import StepStatus
from agentdiff.render.measures import DELTA_ROWS, count, format_delta, plural
from agentdiff.render.prepare import ERROR_CHARS, text
from agentdiff.render.rows import first_index

__all__ = [
    "MARKERS",
    "error_lines",
    "finding_line",
    "findings",
    "first_divergence_line",
    "loop_lines",
    "threshold_lines",
]

MARKERS: dict[str, str] = {
    Op.MATCH.value: "=",
    Op.CHANGE.value: "~",
    Op.INSERT.value: "+",
    Op.DELETE.value: "-",
    Op.REORDER.value: "↕",
    "fold": "…",
}
FINDINGS_SHOWN = 12
"""Finding sentences shown before "… N more findings" (the JSON report lists all)."""
ROWS_SHOWN = 8
_OUTCOMES = {
    "retried_succeeded": "retried → succeeded",
    "retried_still_failing": "retried → still failing",
    "gave_up": "gave up",
}


def _rows(rows: list[int]) -> str:
    """`row 6`, `rows 6–13` (a run) or `rows 5, 9, 12` (at most `ROWS_SHOWN`, then `…`)."""
    if not rows:
        return "no row"
    if len(rows) == 1:
        return f"row {rows[0]}"
    if rows == list(range(rows[0], rows[-1] + 1)):
        return f"rows {rows[0]}–{rows[-1]}"
    shown = ", ".join(map(str, rows[:ROWS_SHOWN]))
    return f"rows {shown}" + (f", … ({len(rows)} in all)" if len(rows) > ROWS_SHOWN else "")


def _signed(value: float) -> str:
    return ("+" if value > 0 else "−" if value < 0 else "") + count(abs(value))


def _carry(effect: Effect | None, what: str) -> str:
    """`: these 6 extra steps carry +873 of +873 tokens`."""
    if effect is None or effect.steps == 0:
        return ""
    n = abs(effect.steps)
    steps = "it" if n == 1 else f"these {plural(n, what)}"
    verb = "carried" if effect.steps < 0 else "carries" if n == 1 else "carry"
    if effect.tokens is None:
        return f": {steps} {'reports' if n == 1 else 'report'} no tokens"
    of = "" if effect.of_tokens is None else f" of {_signed(effect.of_tokens)}"
    return f": {steps} {verb} {_signed(effect.tokens)}{of} tokens"


def _way_back(steps: int | None, ended: bool) -> str:
    """Where the run went after an error (`ended`: the error was the candidate's last step).

    `steps` counts the steps off the baseline path from the error on (the error itself too,
    when it is off it), so the words say "off it": one step off it is the error alone.
    """
    if steps is None:
        return "the run ended there" if ended else "never back on the baseline path"
    if steps == 0:
        return "stayed on the baseline path"
    return f"back on the baseline path after {plural(steps, 'step')} off it"


def _ended_at(report: DiffReport, rows: list[int]) -> bool:
    """No candidate step comes after the row (the error's) in the alignment."""
    return bool(rows) and all(e.candidate is None for e in report.alignment[rows[0] :])


def _first(f: Finding, report: DiffReport) -> str:
    entry = report.alignment[f.rows[0] - 1]
    ref = entry.candidate or entry.baseline
    status = "" if ref is None or ref.status is StepStatus.SUCCESS else f" [{ref.status.value}]"
    name = text(f.tool or "", 60)
    what = "first divergence" if f.kind == "first_divergence" else "first change"
    return f"{what} at {_rows(f.rows)}: {MARKERS[entry.op.value]} {name}{status}"


def _loop(f: Finding, report: DiffReport) -> str:
    before = next(
        (loop.baseline_repetitions for loop in report.loops if loop.step_ids == f.step_ids), 0
    )
    if not f.new:  # the baseline has it at least as large: say so when it was larger
        state = "known in the baseline" + (f", shrunk from ×{before}" if before > f.count else "")
    else:
        state = f"grown from ×{before}" if before else "new"
    kind = "retry storm" if f.kind == "retry_storm" else "loop"
    name = text(f.tool or "", 80)
    extra = _carry(f.effect, "extra step")
    return f"{name} ×{f.count} at {_rows(f.rows)} ({kind}, {state}){extra}"


def _added(f: Finding, _: DiffReport) -> str:
    what = plural(f.count, "extra step")
    return f"{what} at {_rows(f.rows)} ({text(f.tool or '', 80)}){_carry(f.effect, 'step')}"


def _removed(f: Finding, _: DiffReport) -> str:
    what = plural(f.count, "step")
    tail = _carry(f.effect, "step")
    return f"{what} removed at {_rows(f.rows)} ({text(f.tool or '', 80)}){tail}"


def _changed(f: Finding, report: DiffReport) -> str:
    """What changed in the calls; their content only when it counted (`--compare-content`)."""
    kinds = changed_kinds(report, (report.alignment[r - 1] for r in f.rows))
    how = "changed arguments" if kinds == ["argument"] else "changed"
    if how == "changed":
        words = {**CHANGE_WORDS, "content": "counted content"}
        how += " (" + ", ".join(words[k] for k in kinds) + ")"
    return f"{plural(f.count, 'call')} {how} at {_rows(f.rows)} ({text(f.tool or '', 80)})"


def _error(f: Finding, report: DiffReport) -> str:
    name = text(f.tool or (f.step_ids[0] if f.step_ids else ""), 60)
    outcome = _OUTCOMES.get(f.outcome or "", f.outcome or "failed")
    if f.other_arguments:
        outcome = outcome.replace("retried", "retried with other arguments", 1)
    said = f': "{text(f.message, ERROR_CHARS)}"' if f.message else ""
    back = _way_back(f.back_after, _ended_at(report, f.rows))
    return f"error in {name} ({_rows(f.rows)}{_failed_before(f, report)}): {outcome}; {back}{said}"


def _failed_before(f: Finding, report: DiffReport) -> str:
    """`, failed in the baseline too` when the error's row pairs it with a failed baseline step.

    The error finding is the candidate's: without this, an error both runs had read as new.
    """
    rows = [report.alignment[r - 1] for r in f.rows if 0 < r <= len(report.alignment)]
    paired = [row.baseline for row in rows if row.baseline is not None]
    if paired and all(ref.status in (StepStatus.ERROR, StepStatus.RETRY) for ref in paired):
        return ", failed in the baseline too"
    return ""


def _content(f: Finding, _: DiffReport) -> str:
    what = (
        f"content changed in {plural(f.count, 'step')} (LLM text or tool output, {_rows(f.rows)})"
    )
    if f.counted:
        return f"{what} — counted as changes (--compare-content)"
    return f"{what} — not counted; --compare-content counts {'it' if f.count == 1 else 'them'}"


_SENTENCES: dict[str, Callable[[Finding, DiffReport], str]] = {
    "first_divergence": _first,
    "first_change": _first,
    "loop": _loop,
    "retry_storm": _loop,
    "added_steps": _added,
    "removed_steps": _removed,
    "changed_calls": _changed,
    "error": _error,
    "content": _content,
}


def finding_line(finding: Finding, report: DiffReport) -> str:
    """One finding as a sentence with its evidence."""
    sentence = _SENTENCES.get(finding.kind)
    if sentence is None:  # a kind this renderer does not word yet: say what the data says
        return f"{finding.kind.replace('_', ' ')} at {_rows(finding.rows)}"
    return sentence(finding, report)


def findings(report: DiffReport) -> list[str]:
    """Under the verdict: divergence, each finding with its evidence, then tokens/cost/latency."""
    found = [finding_line(f, report) for f in report.findings]
    first = [i for i, f in enumerate(report.findings) if f.kind == "first_divergence"]
    head = f"divergence {fixed(report.divergence, 2)}"
    same = ", same route" if report.first_change else ", same path"
    lines = [f"{head}; {found.pop(first[0])}" if first else head + same]
    lines += found[:FINDINGS_SHOWN]
    if len(found) > FINDINGS_SHOWN:
        rest = len(found) - FINDINGS_SHOWN
        lines.append(f"… {plural(rest, 'more finding')} (the JSON report lists all)")
    for name, label, fmt in DELTA_ROWS[-3:]:
        base, cand, _, pct = format_delta(getattr(report.deltas, name), fmt)
        lines.append(f"{label} {base} → {cand} ({pct}){_coverage(report, name)}")
    return lines


def _coverage(report: DiffReport, name: str) -> str:
    """`; partly priced: 4 of 5 model turns priced on the candidate`, when a cost is partial.

    For tokens: `; partly reported: 1 of 2 model turns reports tokens on the baseline`.
    """
    sides = (("baseline", report.baseline), ("candidate", report.candidate))
    covers: list[CostCoverage | TokenCoverage | None]
    if name == "cost_usd":
        done, covers = "priced", [s.cost_coverage for _, s in sides]
    elif name == "total_tokens":
        done, covers = "reported", [s.token_coverage for _, s in sides]
    else:
        return ""
    partial = [
        f"{c} on the {side}"
        for (side, _), c in zip(sides, covers, strict=True)
        if c is not None and c.partial
    ]
    return f"; partly {done}: {', '.join(partial)}" if partial else ""


def first_divergence_line(report: DiffReport) -> str:
    """Where the runs first part ways, e.g. `first divergence: row 6, + get_weather [error]`.

    On the same route with changed calls: `same route; first change: row 4, ~ geocode`.
    """
    index = first_index(report)
    if index is not None:
        return f"first divergence: {_row_words(report, index)}"
    change = report.first_change
    if change is None:
        return "same path"
    changed = next(i for i, e in enumerate(report.alignment) if e is change or e == change)
    return f"same route; first change: {_row_words(report, changed)}"


def _row_words(report: DiffReport, index: int) -> str:
    entry = report.alignment[index]
    ref = entry.candidate or entry.baseline
    label = "" if ref is None else text(ref.name, 60)
    if ref is not None and ref.status is not StepStatus.SUCCESS:
        label += f" [{ref.status.value}]"
    return f"row {index + 1}, {MARKERS[entry.op.value]} {label}"


def loop_lines(report: DiffReport) -> list[str]:
    """One sentence per loop or retry storm finding."""
    return [finding_line(f, report) for f in report.findings if f.kind in ("loop", "retry_storm")]


def error_lines(report: DiffReport) -> list[str]:
    """One sentence per failed candidate attempt: its retry, the way back, and its message."""
    return [finding_line(f, report) for f in report.findings if f.kind == "error"]


def _threshold_value(item: Threshold) -> str:
    value = item.value
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    suffix = "%" if item.setting.endswith("_increase") else ""
    return f"{value:g}{suffix}"


def threshold_lines(report: DiffReport) -> list[str]:
    """The gate settings that applied, grouped by where they came from (defaults last)."""
    by_source: dict[str, list[str]] = {}
    for item in report.thresholds:
        by_source.setdefault(item.source, []).append(f"{item.setting} {_threshold_value(item)}")
    order = sorted(by_source, key=lambda source: source == "default")
    return [f"{', '.join(by_source[s])} ({text(s)})" for s in order]
