"""Which alignment entries a report shows as rows, and which unchanged runs it folds.

Every divergent entry (and every entry with a recorded difference) is shown with `CONTEXT`
unchanged neighbours on each side. Past `max_rows` every other unchanged run folds into one
row; `fold_at` folds unchanged runs at least that long even in a short report (the HTML page,
where a fold opens on click). When even the kept rows exceed `max_rows`, the tail is cut into
one row that says how many steps it hides.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentdiff.models.report import Aligned, DiffReport, Op
from agentdiff.render.measures import plural

__all__ = ["CONTEXT", "Row", "first_index", "rows"]

CONTEXT = 1
"""Unchanged rows kept around each divergent row when unchanged runs fold."""


@dataclass(frozen=True)
class Row:
    """One alignment entry to show (`entry`), or a fold of `skipped` entries from `number`."""

    number: int
    """1-based position in the alignment (of the first folded entry for a fold)."""
    entry: Aligned | None
    first: bool = False
    """True on the first divergence."""
    skipped: int = 0
    cut: bool = False
    """True when the fold is the tail cut at `max_rows` (it may hide changes too)."""

    @property
    def elision(self) -> str:
        """What a folded row says."""
        if self.cut:
            return f"… {plural(self.skipped, 'more step')} not shown (the JSON report has all) …"
        return f"… {plural(self.skipped, 'unchanged step')} …"


def _kept(entries: list[Aligned]) -> set[int]:
    keep = {
        j
        for i, e in enumerate(entries)
        if e.op is not Op.MATCH or e.changes
        for j in range(i - CONTEXT, i + CONTEXT + 1)
    }
    return keep | {0, len(entries) - 1}


def _fold(all_rows: list[Row], keep: set[int], min_run: int) -> list[Row]:
    shown: list[Row] = []
    run: list[Row] = []

    def close() -> None:
        if len(run) >= min_run:
            shown.append(Row(run[0].number, None, skipped=len(run)))
        else:
            shown.extend(run)
        run.clear()

    for row in all_rows:
        if row.number - 1 in keep:
            close()
            shown.append(row)
        else:
            run.append(row)
    close()
    return shown


def first_index(report: DiffReport) -> int | None:
    """The alignment index of the first divergence (`None`: the runs never part ways)."""
    first = report.first_divergence
    if first is None:
        return None
    for i, entry in enumerate(report.alignment):
        if entry is first:
            return i
    return report.alignment.index(first)  # a report read back from JSON: equal, not identical


def rows(report: DiffReport, max_rows: int, fold_at: int | None = None) -> list[Row]:
    """The alignment as rows; unchanged runs fold past `max_rows` (or from `fold_at` long)."""
    entries = report.alignment
    first = first_index(report)
    all_rows = [Row(i + 1, e, first=i == first) for i, e in enumerate(entries)]
    if len(all_rows) <= max_rows and fold_at is None:
        return all_rows
    min_run = 1 if len(all_rows) > max_rows else max(fold_at or 1, 1)
    shown = _fold(all_rows, _kept(entries), min_run)
    if len(shown) <= max_rows:
        return shown
    kept = shown[: max_rows - 1]
    hidden = len(entries) - (shown[max_rows - 1].number - 1)
    return [*kept, Row(shown[max_rows - 1].number, None, skipped=hidden, cut=True)]
