"""What every suite renderer shows, decided once: the summary line, the order and the findings.

Renderers read a `SuiteReport` through these helpers and never recompute a verdict.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from agentdiff.render.measures import plural
from agentdiff.render.prepare import text
from agentdiff.render.runs.view import (
    clip_route,
    concurrency_legend,
    folded_facts,
    folded_words,
    side_route_notes,
)
from agentdiff.render.text import clip
from agentdiff.stats_options import inconclusive_fails, judged_fdr
from agentdiff.suite.report import PairSummary, RunError, ScenarioRow, SuiteReport

__all__ = [
    "FINDING_ROUTE_CHARS",
    "ScenarioView",
    "by_severity",
    "count_words",
    "divergence_cell",
    "error_text",
    "first_divergence_text",
    "most_severe",
    "run_pair_text",
    "scenario_views",
    "several_runs",
    "summary_line",
]

FINDING_ROUTE_CHARS = 180
"""The most of a route a finding shows (`clip_route`: ~20 of them go to `… (+N more steps)`)."""

_COUNT_WORDS = (
    ("passed", "passed"),
    ("regressed", "regressed"),
    ("improved", "improved"),
    ("inconclusive", "inconclusive"),
    ("errors", "error"),
    ("added", "added"),
    ("removed", "removed"),
)


def count_words(report: SuiteReport) -> list[str]:
    """`412 passed`, `3 regressed`, `2 errors`... (zero counts left out, except passed).

    Inconclusive scenarios that fail the suite (`[stats] inconclusive = "fail"`) say so.
    """
    counts = report.counts.model_dump()
    words = []
    fails = inconclusive_fails(report.stats)
    for key, word in _COUNT_WORDS:
        n = counts[key]
        if n or key == "passed":
            suffix = "s" if word == "error" and n != 1 else ""
            failing = " (counted as failing)" if key == "inconclusive" and fails else ""
            words.append(f"{n} {word}{suffix}{failing}")
    if report.counts.partly_loaded:  # counted above too, under their verdict (or added/removed)
        n = report.counts.partly_loaded
        words.append(f"{n} with runs that could not be loaded")
    if report.unjudged:  # --fail-fast stopped the suite: the counts above are not the suite's
        words.append(f"{report.unjudged} not judged (stopped at a failure: --fail-fast)")
    return words


def summary_line(report: SuiteReport) -> str:
    """The one line that comes first: `412 passed · 3 regressed · 2 errors · 1 added`."""
    return " · ".join(count_words(report))


def _severity(row: ScenarioRow) -> tuple[int, float, str]:
    pair = row.pair
    broken = len(pair.violations) if pair else 0
    return (-broken, -(pair.divergence if pair else 0.0), row.scenario)


def by_severity(rows: list[ScenarioRow]) -> list[ScenarioRow]:
    """Regressed rows, most severe first: more broken rules, then larger divergence."""
    return sorted((r for r in rows if r.verdict == "regressed"), key=_severity)


def most_severe(rows: Iterable[ScenarioRow], limit: int) -> list[ScenarioRow]:
    """The first `limit` of `by_severity(rows)`, holding at most `limit` rows at a time.

    A suite's rows are parsed one by one: 50,000 of them parsed at once would take ~600 MB.
    """
    return heapq.nsmallest(limit, (r for r in rows if r.verdict == "regressed"), key=_severity)


def first_divergence_text(pair: PairSummary) -> str | None:
    """`first divergence at row 8: insert tool_call search` (None when on the same path).

    Rows are numbered from 1, as `agentdiff compare` numbers them (`position` is 0-based).
    """
    first = pair.first_divergence
    if first is None:
        return None
    step = first.candidate or first.baseline
    what = f"{step.step_type} {text(step.name)}" if step else ""
    return f"first divergence at row {first.position + 1}: {first.op} {what}".rstrip()


def error_text(error: RunError, limit: int = 300) -> str:
    """`candidate run r2: <its message>`, on one line, clipped to `limit`."""
    run = f" run {text(error.run)}" if error.run else ""
    return f"{error.side}{run}: {clip(text(error.message), limit)}"


def run_pair_text(pair: PairSummary) -> str:
    """Which runs were compared, by id and source (enough to rerun `agentdiff compare`)."""
    return (
        f"baseline {text(pair.baseline.run)} ({text(pair.baseline.source)}) vs "
        f"candidate {text(pair.candidate.run)} ({text(pair.candidate.source)})"
    )


@dataclass(frozen=True)
class ScenarioView:
    """One scenario as the renderers show it."""

    row: ScenarioRow
    headline: str
    findings: list[str]
    divergence: str
    """The divergence a table shows (`divergence_cell`)."""
    runs: str
    """The runs a table shows (`runs_cell`)."""


def several_runs(row: ScenarioRow) -> bool:
    """Whether the scenario has several runs on a side (judged by the N-vs-M statistics)."""
    return row.stats is not None or row.baseline_runs > 1 or row.candidate_runs > 1


def divergence_cell(row: ScenarioRow) -> str:
    """The divergence shown in a table: the pair's, `0.27 (deciding pair)` with several runs.

    With several runs, each candidate run was compared with its nearest baseline run; the
    deciding pair is the first failing one, else the most divergent one. `—` when no pair ran.
    """
    pair = row.pair
    if pair is None:
        return "—"
    return f"{pair.divergence:.2f}" + (" (deciding pair)" if several_runs(row) else "")


def runs_cell(row: ScenarioRow, noun: str = "") -> str:
    """The runs per side a table shows: `10→10`, or `10→9 loaded` when some run could not be.

    `noun` goes after the counts (`10→9 runs loaded`, as a headline says it). A run that could
    not be loaded is not counted: the cell must not read as a run never made. A side with no run
    at all (its error names no run) lost none: `1→0`.
    """
    lost = any(error.run is not None for error in row.errors)
    return f"{row.baseline_runs}→{row.candidate_runs}{noun}" + (" loaded" if lost else "")


def _findings(row: ScenarioRow) -> list[str]:
    lines = [error_text(e) for e in row.errors]
    lost = plural(len(row.errors), "run")
    if row.errors and row.verdict in ("added", "removed"):  # on one side only: never judged
        lines.insert(0, f"{lost} could not be loaded:")
    elif row.errors and row.verdict != "error":  # several runs: judged on those that loaded
        lines.insert(0, f"judged without {lost} that could not be loaded:")
    pair = row.pair
    if row.stats is not None:
        lines += [clip(text(reason), 300) for reason in row.stats.reasons]
        lines += folded_facts(row.stats)
        lines += _route_lines(row)
        lines += [text(note) for note in row.stats.untested]
        if pair is not None:  # the pair behind the divergence the tables show
            lines.append(f"deciding pair, divergence {pair.divergence:.2f}: {run_pair_text(pair)}")
    if pair is not None and row.stats is None:
        lines += [text(v.message) for v in pair.violations]
        first = first_divergence_text(pair)
        if first:
            lines.append(first)
        if several_runs(row):
            failing = sum(not p.passed for p in row.pairs)
            lines.append(f"{failing} of {len(row.pairs)} candidate runs fail against their nearest")
        lines += _pair_folded(pair)
        lines.append(run_pair_text(pair))
    return lines


def _pair_folded(pair: PairSummary) -> list[str]:
    """How many framework steps folding took out of the pair's runs (nothing when none)."""
    folded = pair.folded_framework_steps or {}
    b, c = folded.get("baseline", 0), folded.get("candidate", 0)
    return folded_words(b, c, "run", "the pair was compared on the rest")


def _route_lines(row: ScenarioRow) -> list[str]:
    """Route clusters of an N-vs-M scenario: `R3 new 0/10 → 6/10: plan → lookup_order ×3`."""
    routes = row.stats.routes if row.stats is not None else None
    if routes is None:
        return []
    out = []
    for r in routes.clusters:
        mark = " new" if r.new else ""
        shares = f"{r.counts.get('baseline', 0)}/{row.baseline_runs} → "
        shares += f"{r.counts.get('candidate', 0)}/{row.candidate_runs}"
        shown = clip_route(r.skeleton, r.skeleton_parts, FINDING_ROUTE_CHARS)
        out.append(f"route {r.name}{mark} {shares}: {shown}")
        out += side_route_notes(r, FINDING_ROUTE_CHARS)
    return out + concurrency_legend(routes.clusters)


def _headline(row: ScenarioRow, fdr: float) -> str:
    runs = runs_cell(row, " runs")  # a run that could not be read is not counted among them
    pair = row.pair
    if row.stats is not None:  # the p and q of the verdict's direction, when tests decided it
        evidence = row.stats.evidence(fdr)
        shown = "" if evidence is None else f", p = {evidence[0]:.2g}, q = {evidence[1]:.2g}"
        return f"{row.verdict} ({runs}{shown})"
    if row.errors or pair is None:
        return f"{row.verdict} ({runs})"
    return f"{row.verdict}, divergence {pair.divergence:.2f} ({runs})"


def scenario_views(report: SuiteReport) -> dict[str, list[ScenarioView]]:
    """Rows to show, grouped: regressed (by severity), errors, partial, and the rest.

    `partial`: passed on the runs that loaded while others could not be; then inconclusive,
    improved, removed, added.
    """
    names = ("regressed", "error", "partial", "inconclusive", "improved", "removed", "added")
    groups: dict[str, list[ScenarioRow]] = {name: [] for name in names}
    for row in report.rows.having(*groups):  # passing rows are never parsed...
        groups[row.verdict].append(row)
    groups["partial"] = list(report.rows.with_errors("pass"))  # ...but those that list an error
    groups["regressed"] = by_severity(groups["regressed"])
    fdr = judged_fdr(report.stats)
    return {
        group: [
            ScenarioView(
                row, _headline(row, fdr), _findings(row), divergence_cell(row), runs_cell(row)
            )
            for row in rows
        ]
        for group, rows in groups.items()
    }
