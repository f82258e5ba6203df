"""Findings: what a reader should know first, each with its evidence, read off a finished report.

In order: where the runs first part ways, each loop, each run of added or removed steps, the
calls whose arguments changed, each failed attempt and its outcome, and content that changed.
Each names its alignment rows (1-based), step ids and tool, and — for added or removed steps —
the tokens those steps carry themselves (`Effect`), summed from their own token counts the way
the totals are, so "these 6 extra steps carry +873 of +873 tokens" is measured, never guessed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress, count, repeat
from operator import attrgetter, is_, is_not
from typing import Any

from agentdiff.diff.metrics import own_tokens, steps_tokens
from agentdiff.models.compact import shared_store
from agentdiff.models.report import (
    Aligned,
    DiffReport,
    Effect,
    Finding,
    LoopFinding,
    Op,
    StepRef,
)
from agentdiff.models.trace import TraceStep

__all__ = ["Noted", "report_findings"]


@dataclass(frozen=True, slots=True)
class Noted:
    """What `compare` noted while it made the alignment (the findings need not look for it).

    Found again, it would take a pass over every entry and every step of both traces.
    """

    content_rows: list[int]
    """The 1-based rows whose listed changes include content."""
    inserted: list[TraceStep]
    """The candidate steps of the insert entries."""
    deleted: list[TraceStep]
    """The baseline steps of the delete entries."""


_OP = attrgetter("op")
_CHANGES = attrgetter("changes")
_CANDIDATE = attrgetter("candidate")
_STEP_ID = attrgetter("step_id")
_KIND = attrgetter("kind")


_FINDINGS, _EFFECTS = shared_store(Finding), shared_store(Effect)
_DEFAULTS = {name: info.default for name, info in Finding.model_fields.items()}
"""Every field's default (all immutable: None, 0), in field order; the required ones' are
placeholders, always given."""
_REQUIRED = frozenset(name for name, info in Finding.model_fields.items() if info.is_required())
_GIVEN_SETS: dict[tuple[str, ...], set[str]] = {}
"""The fields-set of each combination of given fields (one per call site), shared."""
_EFFECT_GIVEN = set(Effect.model_fields)


def _finding(**given: Any) -> Finding:
    """`Finding(**given)` without running validation: the same instance (values, fields-set).

    Every value given is what validation would keep: ints, strings, bools and lists of them
    read off validated records, an `Effect`. A large pair has thousands of findings (one per
    run of added or removed steps), and validating each one and its effect was a tenth of the
    findings' cost; `tests/diff/test_findings.py` checks them against validated ones.
    """
    names = tuple(given)
    fields_set = _GIVEN_SETS.get(names)
    if fields_set is None:
        if not _REQUIRED <= set(names) <= _DEFAULTS.keys():
            msg = f"Finding needs {sorted(_REQUIRED)} and takes {sorted(_DEFAULTS)}: {names}"
            raise TypeError(msg)
        fields_set = _GIVEN_SETS[names] = set(names)
    finding: Finding = _FINDINGS.adopt({**_DEFAULTS, **given}, fields_set)  # in field order
    return finding


def _effect(steps: int, tokens: int | None, of_tokens: float | None) -> Effect:
    """`Effect(steps=..., tokens=..., of_tokens=...)` without running validation.

    As for `_finding`; `of_tokens` is a `Delta`'s value, a float already.
    """
    held = {"steps": steps, "tokens": tokens, "of_tokens": of_tokens}
    effect: Effect = _EFFECTS.adopt(held, _EFFECT_GIVEN)
    return effect


def _candidate_rows(entries: list[Aligned], wanted: set[str]) -> dict[str, int]:
    """The `wanted` candidate step ids → the 1-based rows of their entries, at C speed.

    Only the wanted ids (the loops' and errors' steps, a few) go in the dict: a dict of every
    candidate step was most of the findings' cost on a large pair.
    """
    cands = list(map(_CANDIDATE, entries))
    present = list(map(is_not, cands, repeat(None)))
    ids = list(map(_STEP_ID, compress(cands, present)))
    keep = list(map(wanted.__contains__, ids))
    rows = compress(compress(count(1), present), keep)
    return dict(zip(compress(ids, keep), rows, strict=True))


def _rows_where(ops: list[Op], op: Op) -> list[int]:
    """The 1-based rows whose op is `op`."""
    return list(compress(count(1), map(is_, ops, repeat(op))))


def _content_rows(entries: list[Aligned]) -> list[int]:
    """The 1-based rows whose listed changes include content."""
    return [
        row
        for row in compress(count(1), map(_CHANGES, entries))
        if "content" in map(_KIND, entries[row - 1].changes)
    ]


class _Rows:
    """One scan of the alignment: the rows every finding needs, and the steps' own tokens."""

    def __init__(self, report: DiffReport, noted: Noted | None = None) -> None:
        self.report = report
        self.entries = entries = report.alignment
        needed = {i for loop in report.loops for i in loop.step_ids}
        needed.update(rec.error_step_id for rec in report.recovery)
        # the rows of each kind picked at C speed (`compress`): a Python step per row of the
        # alignment only where one is needed (rows with changes, a small share)
        ops = list(map(_OP, entries))
        self.inserts = _rows_where(ops, Op.INSERT)
        self.deletes = _rows_where(ops, Op.DELETE)
        self.changed = _rows_where(ops, Op.CHANGE)  # a change always lists its changes
        self.content = _content_rows(entries) if noted is None else noted.content_rows
        """Rows whose listed changes include content."""
        self.noted = noted
        self.cand_row = _candidate_rows(entries, needed) if needed else {}
        """Candidate step id → its row (for the loops' and errors' steps only)."""
        self.of_tokens = report.deltas.total_tokens.delta
        self._tokens: tuple[dict[str, int], dict[str, int]] | None = None

    def _own(self) -> tuple[dict[str, int], dict[str, int]]:
        """Own tokens of the added (candidate) and removed (baseline) steps, by step id."""
        if self._tokens is None and self.noted is not None:  # the steps themselves, no scan
            self._tokens = steps_tokens(self.noted.inserted), steps_tokens(self.noted.deleted)
        if self._tokens is None:
            base, cand = self.report.baseline_trace, self.report.candidate_trace
            entries = self.entries
            added = {entries[r - 1].candidate.step_id for r in self.inserts}  # type: ignore[union-attr]
            removed = {entries[r - 1].baseline.step_id for r in self.deletes}  # type: ignore[union-attr]
            self._tokens = (
                own_tokens(cand, added) if cand is not None else {},
                own_tokens(base, removed) if base is not None else {},
            )
        return self._tokens

    def effect(self, rows: list[int]) -> Effect:
        """The steps the rows add or remove, and the tokens those steps carry themselves."""
        added, removed = self._own()
        steps = 0
        tokens: int | None = None
        for row in rows:
            entry = self.entries[row - 1]
            if entry.op is Op.INSERT and entry.candidate is not None:
                steps += 1
                own = added.get(entry.candidate.step_id)
            elif entry.op is Op.DELETE and entry.baseline is not None:
                steps -= 1
                own = removed.get(entry.baseline.step_id)
                own = None if own is None else -own
            else:
                continue
            if own is not None:
                tokens = own if tokens is None else tokens + own
        return _effect(steps, tokens, self.of_tokens)


def _ref(entry: Aligned) -> StepRef | None:
    return entry.candidate or entry.baseline


NAMES_SHOWN = 3
"""Distinct step names a run's `tool` lists before `…`."""


def _names(refs: list[StepRef | None]) -> str:
    names = list(dict.fromkeys(ref.name for ref in refs if ref is not None))
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown + (", …" if len(names) > NAMES_SHOWN else "")


def _first(report: DiffReport) -> Iterator[Finding]:
    """The first divergence (insert/delete), and the first change when it comes earlier."""
    divergence = _row_of(report.first_divergence, report)
    marks = (
        ("first_change", report.first_change, _row_of(report.first_change, report)),
        ("first_divergence", report.first_divergence, divergence),
    )
    for kind, first, row in marks:
        if first is None or row is None:
            continue
        if kind == "first_change" and row == divergence:
            continue  # the first change is the first divergence: one finding says it
        ref = _ref(first)
        yield _finding(
            kind=kind,
            rows=[row],
            step_ids=[ref.step_id] if ref else [],
            tool=ref.name if ref else None,
            count=1,
        )


def _row_of(entry: Aligned | None, report: DiffReport) -> int | None:
    """The 1-based row of the first entry that is `entry` or equals it (`list.index`)."""
    return None if entry is None else report.alignment.index(entry) + 1


def _loop(loop: LoopFinding, rows: _Rows) -> Finding:
    found = sorted(rows.cand_row[i] for i in loop.step_ids if i in rows.cand_row)
    span = list(range(found[0], found[-1] + 1)) if found else []
    after = span[-1] if span else 0
    while after < len(rows.entries) and rows.entries[after].op is Op.INSERT:
        after += 1  # the turns that follow the last repeat belong to the loop too
        span.append(after)
    return _finding(
        kind=loop.kind,
        rows=span,
        step_ids=list(loop.step_ids),
        tool=" → ".join(loop.names),
        count=loop.repetitions,
        new=loop.new,
        # the extra steps are the inserted ones: a baseline step deleted inside the span is
        # not netted against them (it gets a finding of its own, see `report_findings`)
        effect=rows.effect([r for r in span if rows.entries[r - 1].op is Op.INSERT]),
    )


def _runs(rows: list[int], taken: set[int]) -> Iterator[list[int]]:
    """Maximal runs of consecutive row numbers in `rows`, leaving out `taken` ones."""
    run: list[int] = []
    for row in rows:
        if row in taken:
            continue
        if run and row != run[-1] + 1:
            yield run
            run = []
        run.append(row)
    if run:
        yield run


def _steps_run(rows: _Rows, run: list[int], added: bool) -> Finding:
    refs = [_ref(rows.entries[r - 1]) for r in run]
    return _finding(
        kind="added_steps" if added else "removed_steps",
        rows=run,
        step_ids=[ref.step_id for ref in refs if ref is not None],
        tool=_names(refs),
        count=len(run),
        effect=rows.effect(run),
    )


def _changed_calls(rows: _Rows) -> Iterator[Finding]:
    changed = rows.changed
    if not changed:
        return
    refs = [_ref(rows.entries[r - 1]) for r in changed]
    yield _finding(
        kind="changed_calls",
        rows=changed,
        step_ids=[ref.step_id for ref in refs if ref is not None],
        tool=_names(refs),
        count=len(changed),
    )


def _errors(rows: _Rows) -> Iterator[Finding]:
    for rec in rows.report.recovery:
        row = rows.cand_row.get(rec.error_step_id)
        ref = rows.entries[row - 1].candidate if row else None
        yield _finding(
            kind="error",
            rows=[row] if row else [],
            step_ids=[rec.error_step_id],
            tool=ref.name if ref else None,
            count=1,
            outcome=rec.outcome,
            other_arguments=rec.other_arguments or None,
            back_after=rec.steps_to_recover if rec.recovered else None,
            message=ref.error_message if ref else None,
        )


def _content(rows: _Rows, counted: bool) -> Iterator[Finding]:
    """The rows whose changes include content; `counted`: `compare_content` was on.

    Not read off the rows' ops: a row that changed its arguments too is a `change` whether
    its content counted or not.
    """
    changed = rows.content
    if not changed:
        return
    yield _finding(
        kind="content",
        rows=changed,
        step_ids=[ref.step_id for r in changed if (ref := _ref(rows.entries[r - 1]))],
        count=len(changed),
        counted=counted,
    )


def report_findings(
    report: DiffReport, noted: Noted | None = None, *, compare_content: bool = False
) -> list[Finding]:
    """Every finding of `report` (whose traces are attached, for token attribution).

    `noted`: what `compare` noted of the alignment as it made it (else read off the report);
    `compare_content`: the option the report was made with (content changes counted).
    """
    rows = _Rows(report, noted)
    found = list(_first(report))
    loops = [_loop(loop, rows) for loop in report.loops]
    found += loops
    taken = {r for loop in loops for r in loop.rows if rows.entries[r - 1].op is not Op.DELETE}
    found += [_steps_run(rows, run, added=True) for run in _runs(rows.inserts, taken)]
    found += [_steps_run(rows, run, added=False) for run in _runs(rows.deletes, taken)]
    found += _changed_calls(rows)
    found += _errors(rows)
    found += _content(rows, compare_content)
    return found
