"""The view of an N-vs-M report (and of a routes report) that every renderer reads.

Everything shown is computed here once, as text cells: the summary line, per scenario its
verdict and reasons, the tests table, the invariants, the route clusters and where each departs
from the main route, the route trie, the noise floor and the nearest pairs. Every string from a
trace (scenario keys, step and tool names, skeletons, run ids, messages) passes
`render.prepare.text`: secrets redacted, control characters and bidi overrides escaped.
Renderers only add markup (markdown escapes with `md`, HTML with jinja2 autoescape).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentdiff.render.measures import count, folded, plural
from agentdiff.render.prepare import text, text_parts
from agentdiff.routes.skeleton import ARROW
from agentdiff.scenario.report import (
    Band,
    Departure,
    Rate,
    RouteRow,
    RouteSection,
    RoutesReport,
    RunsReport,
    ScenarioReport,
    SkeletonPart,
    StatTest,
    TrieNode,
    Verdict,
)
from agentdiff.stats_options import inconclusive_fails

__all__ = [
    "ROUTE_CHARS",
    "ROUTE_TAIL",
    "TEST_HEADER",
    "ScenarioView",
    "caveat",
    "clip_route",
    "concurrency_legend",
    "folded_facts",
    "folded_words",
    "number",
    "route_cells",
    "route_header",
    "route_notes",
    "route_sections",
    "scenario_view",
    "section_runs",
    "side_route_notes",
    "summary_line",
    "trie_view",
]

TEST_HEADER = ("test", "baseline", "candidate", "change [95 % CI]", "p", "adjusted p", "verdict")
ROUTE_TAIL = ("skeleton (medoid)", "runs with loops", "with errors", "cost p50")
ROUTE_CHARS = 1900
"""The most of a route a table cell or note shows (`clip_route`), in every format: with its
note's words it stays within what a markdown cell keeps (`md`, 2,000), which would cut it
mid-name."""
_ORDER = (Verdict.REGRESSED, Verdict.ERROR, Verdict.INCONCLUSIVE, Verdict.IMPROVED, Verdict.PASS)


def number(value: float | None) -> str:
    """A compact number: `1,234`, `12.5`, `0.0213`; `–` when unknown."""
    if value is None:
        return "–"
    size = abs(value)
    if size >= 100:  # noqa: PLR2004
        return f"{value:,.0f}"
    if size >= 1 or value == 0:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"


def summary_line(report: RunsReport) -> str:
    """`3 passed · 1 regressed · 2 inconclusive · 0 errors`.

    Inconclusive scenarios that fail (`inconclusive = "fail"`: exit 1) say so, as the suite's do.
    """
    c = report.counts
    inconclusive = c.get("inconclusive", 0)
    fails = inconclusive and inconclusive_fails(report.settings)
    failing = " (counted as failing)" if fails else ""
    parts = [
        f"{c.get('pass', 0)} passed",
        f"{c.get('regressed', 0)} regressed",
        f"{c.get('improved', 0)} improved",
        f"{inconclusive} inconclusive{failing}",
        plural(c.get("error", 0), "error"),
    ]
    return " · ".join(parts)


def caveat(report: RunsReport) -> str:
    """What the loop invariant can and cannot see (printed with the report)."""
    if report.settings.get("loops") == "rate":
        return "loops are tested as a rate (Fisher's exact test)"
    return (
        "a loop no baseline run shows fails its scenario; a baseline behaviour of rate p goes "
        'unseen in N runs with probability (1 − p)^N (use [stats] loops = "rate" for a test)'
    )


@dataclass
class ScenarioView:
    """One scenario, as cells and lines."""

    title: str
    verdict: str
    reasons: list[str]
    tests: list[tuple[str, ...]] = field(default_factory=list)
    invariants: list[str] = field(default_factory=list)
    routes: list[tuple[str, ...]] = field(default_factory=list)
    route_notes: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)
    nearest: list[str] = field(default_factory=list)


def scenario_view(s: ScenarioReport, fdr: float) -> ScenarioView:
    """The cells and lines of one scenario (judged at false discovery rate `fdr`)."""
    runs = f"{plural(s.n_baseline, 'baseline run')}, {plural(s.n_candidate, 'candidate run')}"
    title = f"{text(s.scenario)} · {runs}"
    view = ScenarioView(title=title, verdict=s.verdict.value, reasons=[text(r) for r in s.reasons])
    if s.error:
        view.reasons = [text(s.error)]
        return view
    view.tests = [_test_cells(t) for t in s.tests]
    view.invariants = [text(i.message) for i in s.invariants]
    if s.routes is not None:
        totals = {"baseline": s.n_baseline, "candidate": s.n_candidate}
        view.routes = [route_cells(r, totals) for r in s.routes.clusters]
        view.route_notes = route_notes(s.routes)
    view.facts = folded_facts(s) + [text(u) for u in s.untested] + _test_notes(s.tests)
    view.facts += _facts(s, fdr)
    view.nearest = [
        text(
            f"{n.candidate_run} vs {n.baseline_run}: divergence {n.divergence:.2f}, "
            f"first divergence {n.first_divergence or '–'}, +{n.inserted} −{n.deleted} ~{n.changed}"
            + ("" if n.gate_passed else f"; gate: {'; '.join(n.violations)}")
        )
        for n in s.nearest
    ]
    return view


def folded_facts(s: ScenarioReport) -> list[str]:
    """`framework steps folded: 24 in the baseline runs, 26 in the candidate runs (…)`.

    With `fold_framework_steps` every run is read folded, as `compare` compares it: its step
    count, route and tested metrics leave those steps out. Nothing when none was folded.
    """
    b, c = (
        sum(r.folded_framework_steps or 0 for r in s.runs if r.side == side)
        for side in ("baseline", "candidate")
    )
    return folded_words(b, c, "runs", "step counts, routes and tests are of the rest")


def folded_words(baseline: int, candidate: int, runs: str, rest: str) -> list[str]:
    """`framework steps folded: 9 in the baseline {runs}, 12 in the candidate {runs} ({rest})`.

    Nothing when neither side had a step folded (as `compare` says nothing then).
    """
    if not baseline and not candidate:
        return []
    sides = f"{count(baseline)} in the baseline {runs}, {count(candidate)} in the candidate {runs}"
    return [f"framework steps folded: {sides} ({rest})"]


def section_runs(section: RouteSection) -> str:
    """`6 runs`, or `6 runs (48 framework steps folded)` when folding removed steps from them."""
    return plural(section.runs, "run") + folded(section.folded_framework_steps)


def ordered(report: RunsReport) -> list[ScenarioReport]:
    """Scenarios with the worst verdicts first (then by key)."""
    return sorted(report.scenarios, key=lambda s: (_ORDER.index(s.verdict), s.scenario))


def _test_cells(t: StatTest) -> tuple[str, ...]:
    return (
        text(t.name),
        _side(t.baseline),
        _side(t.candidate),
        _change(t),
        *(f"{p:.2g}" for p in t.directed_p()),  # an improvement's p is the better direction's
        t.verdict.value,
    )


def _side(value: Band | Rate | None) -> str:
    if isinstance(value, Band):
        return f"{number(value.median)} [{number(value.q1)}–{number(value.q3)}]"
    if isinstance(value, Rate):
        return f"{value.count}/{value.runs}"
    return "–"


def _change(t: StatTest) -> str:
    if t.change_pct is not None:
        interval = ""
        if t.change_low is not None and t.change_high is not None:
            interval = f" [{t.change_low:+.0f}, {t.change_high:+.0f}]"
        return f"{t.change_pct:+.0f} %{interval}"
    if t.shift is not None:
        return f"{t.shift:+.3g}"
    if t.statistic is not None:
        return f"E = {t.statistic:.3g}"
    return ""


def route_header(totals: dict[str, int]) -> tuple[str, ...]:
    """The route table's header for these sides."""
    return ("route", *totals, *ROUTE_TAIL)


def route_cells(row: RouteRow, totals: dict[str, int]) -> tuple[str, ...]:
    """One route cluster's cells: name, `8/10` per side, skeleton, loops, errors, cost."""
    counts = [
        f"{row.counts.get(side, 0)}/{total}" if row.counts.get(side) else "—"
        for side, total in totals.items()
    ]
    name = f"{row.name} new" if row.new else row.name
    return (
        text(name),
        *counts,
        clip_route(row.skeleton, row.skeleton_parts, ROUTE_CHARS),
        str(row.runs_with_loops),
        str(row.runs_with_errors),
        number(row.cost_median),
    )


CONCURRENCY_LEGEND = (
    "skeletons: {a ‖ b} = a and b in one concurrent group (issued together, e.g. by one model "
    "message, or overlapping in time), listed by name, not in the order they ran; {a ‖×3} = "
    "three a's in one; a → b = a, then b; a ×3 = three steps named a in a row"
)


def concurrency_legend(rows: Sequence[RouteRow]) -> list[str]:
    """The legend of the skeletons' notation, when one of `rows` shows a concurrent group."""
    return [CONCURRENCY_LEGEND] if any(row.concurrent for row in rows) else []


def route_notes(section: RouteSection) -> list[str]:
    """Where each route departs from the main one; runs no baseline route explains.

    Last, the legend of a concurrent group's notation when a skeleton shows one.
    """
    notes = []
    placed = section.folded_framework_steps is not None  # a step's place in the run as given
    for row in section.clusters:
        notes += side_route_notes(row, ROUTE_CHARS)
        d = row.departure
        if d is None:
            continue
        where = f"step {d.step}{_departure_group(d, placed=placed)}"
        what = f"{d.here or 'ends'} instead of {d.main or 'the end'}"
        extra = f"; {d.extra_steps:+d} steps" if d.extra_steps else ""
        notes.append(text(f"{row.name} departs from the main route at {where}: {what}{extra}"))
    notes += concurrency_legend(section.clusters)
    if section.unexplained is not None and section.unexplained.count:
        u = section.unexplained
        notes.append(
            f"{u.count}/{u.runs} candidate runs are farther than {section.threshold:g} from "
            "every baseline run"
        )
    return notes


def _departure_group(d: Departure, *, placed: bool = False) -> str:
    """Which of the two routes' steps at a departure is in a concurrent group, if one is.

    `placed`: the step is given by its place in the run as given (folded runs, `Departure.step`),
    not counted as the skeleton lists it; the note says so instead.
    """
    counted = "of the run as given" if placed else "counted as listed"
    if d.here_concurrent and d.main_concurrent:
        return f" (in a concurrent group here and on the main route, {counted})"
    if d.main_concurrent:
        return f" (the main route's step there is in a concurrent group, {counted})"
    if d.here_concurrent:
        return f" (in a concurrent group, {counted})"
    return f" ({counted})" if placed else ""


def side_route_notes(row: RouteRow, limit: int) -> list[str]:
    """`R1 holds more than one route: its baseline runs take plan → answer` (see `side_routes`).

    The skeleton shown is the cluster's medoid; a side none of whose runs took it is named with
    the route most of them took, so "5/5 → 5/5" is not read as one route both sides took.
    Each route is shown in at most `limit` characters, cut as a cluster's is (`clip_route`).
    """
    return [
        text(f"{row.name} holds more than one route: its {side} runs take ")
        + clip_route(route, row.side_route_parts.get(side, []), limit)
        for side, route in row.side_routes.items()
    ]


def clip_route(skeleton: str, parts: Sequence[SkeletonPart], limit: int) -> str:
    """`skeleton` in at most `limit` characters: whole, or cut between two of its `parts`.

    A concurrent group is one part, so it is shown whole or not at all, never left open. The
    cut is marked with the route's steps it leaves out (`lookup_order ×3` counts 3, a group its
    members): `plan → geocode → … (+7 more steps)`. Prepared (`text`) for display; without
    `parts` (a report written before routes gave them) it is shown whole. The parts are
    redacted as the whole is (`text_parts`): a secret spanning two of them is one part.
    """
    whole = text(skeleton)
    if len(whole) <= limit or not parts:
        return whole
    left = sum(part.steps for part in parts)
    kept: list[str] = []
    at = 0
    for shown, held in text_parts([part.shown for part in parts], ARROW):
        steps = sum(part.steps for part in parts[at : at + held])
        at += held
        if len(ARROW.join([*kept, shown, _cut_mark(left - steps)])) > limit:
            break
        kept.append(shown)
        left -= steps
    return ARROW.join([*kept, _cut_mark(left)])


def _cut_mark(hidden: int) -> str:
    """Where a route shown in part was cut: `… (+7 more steps)`."""
    return f"… (+{plural(hidden, 'more step')})"


def route_sections(report: RoutesReport) -> list[tuple[str, RouteSection]]:
    """Each scenario of a routes report: its key (prepared for display) and its routes."""
    return [(text(name), section) for name, section in report.scenarios.items()]


def trie_view(node: TrieNode) -> dict[str, Any]:
    """The route trie with its step names prepared for display (what the HTML page draws)."""
    return {
        "step": text(node.step),
        "counts": node.counts,
        "children": [trie_view(child) for child in node.children],
    }


def _test_notes(tests: Sequence[StatTest]) -> list[str]:
    """What a test's row cannot say: its note, and an interval that reads against its verdict.

    A shift is judged by the rank test over every run; the interval is the bootstrap of the
    medians alone, which few runs move in steps: it can hold 0 beside a significant shift.
    """
    out = [text(f"{t.name}: {t.note}") for t in tests if t.note]
    for t in tests:
        low, high = t.change_low, t.change_high
        judged = t.verdict in (Verdict.REGRESSED, Verdict.IMPROVED)
        if judged and low is not None and high is not None and low <= 0 <= high:
            out.append(
                text(
                    f"{t.name}: {t.verdict.value} by the rank test over every run; the 95 % "
                    f"interval of the median change [{low:+.0f}, {high:+.0f}] % still holds no "
                    "change (the medians of few runs move in steps)"
                )
            )
    return out


def _facts(s: ScenarioReport, fdr: float) -> list[str]:
    out = []
    if s.noise_floor is not None:
        nf = s.noise_floor
        out.append(
            f"noise floor: baseline runs stray {number(nf.median)} "
            f"[{number(nf.q1)}–{number(nf.q3)}] from their nearest other baseline run"
        )
    p, q = s.directed_p()
    if p is not None:
        better = ", the improvement" if s.verdict is Verdict.IMPROVED else ""
        shown = "left out (Tarone)" if q is None else f"{q:.2g}"
        line = f"scenario p = {p:.2g} (Holm{better}), q = {shown} (Benjamini–Hochberg)"
        if s.verdict is Verdict.REGRESSED and s.evidence(fdr) is None:
            line += ": not significant; a hard rule decided the verdict"
        out.append(line)
    out.append(
        "all candidate runs clean (no errors, loops or gate failures)"
        if s.all_clean
        else "not every candidate run is clean"
    )
    return out
