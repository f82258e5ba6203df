"""The CI gate: one table of rules; a report and thresholds in, a verdict out.

Each `Rule` names the `GateThresholds` setting it reads, how it evaluates a `DiffReport`, and
its words. `evaluate_gate(report, thresholds)` re-runs the gate from a report alone (tool counts
and cost coverage live in the report), so a report read back from JSON can be re-gated with other
thresholds. Config, CLI flags (`--max-changed-calls`), JUnit test cases and the verdict words
all read `RULES`; a new rule is one entry here plus its `GateThresholds` field.

=================  ========  =====================  ===========================================
rule               severity  setting                default
=================  ========  =====================  ===========================================
loop               hard      allow_loops            a new or grown loop fails (``True``:
                                                    reported, never fails)
divergence         hard      max_divergence         > 0.5 fails; steps inserted or deleted
                                                    within budget are a soft "alternate route"
changed_calls      soft      max_changed_calls      calls on the same route with other
                                                    arguments, status or model warn, naming them
                                                    (``N``: more than N fail)
cost               hard      max_cost_increase      > 25 % fails when known on both sides
                                                    (0 → more fails too); unknown or partly
                                                    priced on a side → a warning, never judged
tokens             hard      max_token_increase     > 25 % fails, as for cost (tokens reported
                                                    by only some model turns → a warning)
latency            soft      max_latency_increase   > 50 % warns
errors             soft      max_new_errors         any new error warns, naming its step (``N``:
                                                    more than N fail); a new error is a failed
                                                    candidate step not paired with a failed
                                                    baseline step
tool_repeats       hard      max_tool_repeats       off (``N``: a tool called > N times fails)
=================  ========  =====================  ===========================================

`verdict(result)` says the outcome in plain words, for every renderer and for
`assert_no_regressions`: "No loops. No cost spike. Trajectory within budget." or
"Blocked by: tool loop get_weather ×4".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import compress, repeat
from operator import attrgetter, is_
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentdiff.figures import fixed
from agentdiff.models.compact import shared_store
from agentdiff.models.report import (
    Aligned,
    CostCoverage,
    Delta,
    DiffReport,
    GateResult,
    GateViolation,
    Op,
    TokenCoverage,
)
from agentdiff.models.trace import FAILED, MAX_COUNT

__all__ = [
    "CHANGE_WORDS",
    "RULES",
    "GateThresholds",
    "Rule",
    "changed_calls_words",
    "changed_kinds",
    "evaluate_gate",
    "verdict",
]


class GateThresholds(BaseModel):
    """Every gate threshold; `None` switches a rule off. Percentages are in percent units."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_divergence: float | None = Field(default=0.5, ge=0, le=1)
    max_changed_calls: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    max_cost_increase: float | None = Field(default=25.0, ge=0)
    max_token_increase: float | None = Field(default=25.0, ge=0)
    max_latency_increase: float | None = Field(default=50.0, ge=0)
    max_new_errors: int | None = Field(default=None, ge=0, le=MAX_COUNT)
    allow_loops: bool = False
    max_tool_repeats: int | None = Field(default=None, ge=1, le=MAX_COUNT)


Findings = tuple[list[str], list[str]]
"""What a rule found: (hard violation messages, soft warning messages)."""


@dataclass(frozen=True)
class Rule:
    """One gate rule: the setting it reads, how it judges a report, and its words."""

    name: str
    """`GateViolation.rule` of what it finds; the JUnit test case."""
    severity: Literal["hard", "soft"]
    """The worst it does at its default setting's kind of value (hard: can fail the gate)."""
    setting: str
    """The `GateThresholds` field it reads (also the config key, `--flag` and env variable)."""
    kind: Literal["number", "int", "flag"]
    """How the setting is written in config and on the command line."""
    help: str
    """The setting's one-line help."""
    check: Callable[[DiffReport, GateThresholds], Findings]
    quiet: str | None
    """Verdict words when the rule found nothing (None: say nothing)."""
    warned: str
    """Verdict words when it only warned."""


def _loop(report: DiffReport, t: GateThresholds) -> Findings:
    hard: list[str] = []
    soft: list[str] = []
    for loop in report.loops:
        label = " → ".join(loop.names)
        kind = loop.kind.replace("_", " ")
        if not loop.new:
            before = loop.baseline_repetitions
            has = f"×{before}" if before > loop.repetitions else "too"
            soft.append(f"known {kind} {label} ×{loop.repetitions} (the baseline has it {has})")
            continue
        grown = f", baseline ×{loop.baseline_repetitions}" if loop.baseline_repetitions else ""
        (soft if t.allow_loops else hard).append(f"tool {kind} {label} ×{loop.repetitions}{grown}")
    return hard, soft


def _divergence(report: DiffReport, t: GateThresholds) -> Findings:
    divergence, limit = report.divergence, t.max_divergence
    if divergence <= 0:
        return [], []
    if limit is not None and divergence > limit:
        shown = fixed(divergence, 2, limit)
        return [f"trajectory divergence {shown} exceeds {fixed(limit, 2)}"], []
    return [], [f"alternate route: divergence {fixed(divergence, 2)} within budget"]


_OP = attrgetter("op")
CHANGE_WORDS = {"argument": "arguments", "status": "status", "model": "model", "content": "content"}
"""Each kind of change (`Change.kind`) as the reports name it, in this order."""


def changed_kinds(report: DiffReport, entries: Iterable[Aligned]) -> list[str]:
    """The kinds of change (`CHANGE_WORDS` order) the entries made; content only when it counted.

    Content listed on a row that changed its arguments or status did not make it a change
    unless content counts (`--compare-content`); the content finding says which.
    """
    kinds = {c.kind for e in entries for c in e.changes}
    if "content" in kinds and not _content_counted(report):
        kinds.discard("content")
    return [kind for kind in CHANGE_WORDS if kind in kinds]


def _content_counted(report: DiffReport) -> bool:
    """Content changes counted as behaviour: the content finding says so.

    Before the findings are made (the gate reads the report first), a row changed by its
    content alone says so: only counted content makes one.
    """
    for finding in report.findings:
        if finding.kind == "content":
            return bool(finding.counted)
    return any(
        e.op is Op.CHANGE and e.changes and all(c.kind == "content" for c in e.changes)
        for e in report.alignment
    )


def changed_calls_words(report: DiffReport) -> str | None:
    """`2 calls changed arguments: geocode, get_weather` (None: no call changed)."""
    alignment = report.alignment
    if Op.CHANGE not in map(_OP, alignment):  # the usual pair: none, found at C speed
        return None
    # picked at C speed: half the cost of a comprehension over a 100,000-entry alignment
    changed = list(compress(alignment, map(is_, map(_OP, alignment), repeat(Op.CHANGE))))
    what = " or ".join(CHANGE_WORDS[kind] for kind in changed_kinds(report, changed))
    names = [e.candidate.name for e in changed if e.candidate is not None]
    count = len(changed)
    noun = "call" if count == 1 else "calls"
    return f"{count} {noun} changed {what or 'behaviour'}: {_shown(names)}"


def _shown(names: list[str]) -> str:
    """`a, b, c, d, e and 2 more`: the distinct names, sorted, the first five of them."""
    distinct = sorted(set(names))
    more = len(distinct) - _NAMES_SHOWN
    return ", ".join(distinct[:_NAMES_SHOWN]) + (f" and {more} more" if more > 0 else "")


_NAMES_SHOWN = 5


def _changed_calls(report: DiffReport, t: GateThresholds) -> Findings:
    words = changed_calls_words(report)
    if words is None:
        return [], []
    limit = t.max_changed_calls
    if limit is not None and report.changed_calls > limit:
        return [f"{words} (limit {limit})"], []
    return [], [words]


def _percent(what: str, delta: Delta, limit: float | None) -> Findings:
    if limit is None:
        return [], []
    if delta.baseline is None or delta.candidate is None:
        return [], [f"{what} unknown on {_unknown_sides(delta)}; {what} gate not checked"]
    if delta.pct is not None and delta.pct > limit:
        return [f"{what} up {fixed(delta.pct, 1, limit)}% (limit {limit:g}%)"], []
    if delta.baseline == 0 and delta.candidate > 0:
        return [f"{what} up from 0 to {delta.candidate:g} (limit {limit:g}%)"], []
    return [], []


def _cost(report: DiffReport, t: GateThresholds) -> Findings:
    coverage = report.baseline.cost_coverage, report.candidate.cost_coverage
    partial = _partial("cost", "priced", report.deltas.cost_usd, coverage, t.max_cost_increase)
    if partial is not None:
        return [], [partial]
    return _percent("cost", report.deltas.cost_usd, t.max_cost_increase)


_Coverage = CostCoverage | TokenCoverage
"""How many model turns a side's cost or token total covers."""


def _partial(
    what: str,
    done: str,
    delta: Delta,
    coverage: tuple[_Coverage | None, _Coverage | None],
    limit: float | None,
) -> str | None:
    """The warning when a known total leaves some model turns out on either side, or None.

    `done` says what a covered turn is (`priced`, `reported`); with None the rule judges the
    total.
    """
    partial = [
        f"{c} on the {side}"
        for side, c in zip(("baseline", "candidate"), coverage, strict=True)
        if c is not None and c.partial
    ]
    if limit is None or not partial or None in (delta.baseline, delta.candidate):
        return None
    change = "" if delta.pct is None else f" ({delta.pct:+.1f}% on what is {done})"
    return f"{what} partly {done} ({'; '.join(partial)}){change}; {what} gate not judged"


def _tokens(report: DiffReport, t: GateThresholds) -> Findings:
    delta, limit = report.deltas.total_tokens, t.max_token_increase
    coverage = report.baseline.token_coverage, report.candidate.token_coverage
    partial = _partial("tokens", "reported", delta, coverage, limit)
    if partial is not None:
        return [], [partial]
    return _percent("tokens", delta, limit)


def _latency(report: DiffReport, t: GateThresholds) -> Findings:
    limit, delta = t.max_latency_increase, report.deltas.latency_ms
    if limit is not None and delta.pct is not None and delta.pct > limit:
        return [], [f"latency up {fixed(delta.pct, 1, limit)}% (limit {limit:g}%)"]
    return [], []


def _new_errors(report: DiffReport) -> list[str]:
    """The names of the candidate's new errors, in order.

    A new error is a failed step (status `error` or `retry`) the alignment pairs with no failed
    baseline step (inserted, or a step that did not fail in the baseline). A baseline error
    gone elsewhere makes none of them old.
    """
    if not report.candidate.errors:
        return []
    return [
        e.candidate.name
        for e in report.alignment
        if e.candidate is not None
        and e.candidate.status in FAILED
        and (e.baseline is None or e.baseline.status not in FAILED)
    ]


def _errors(report: DiffReport, t: GateThresholds) -> Findings:
    names = _new_errors(report)
    new = len(names)
    if not new:
        return [], []
    message = f"{new} new error{'s' if new > 1 else ''} in the candidate: {_shown(names)}"
    if t.max_new_errors is not None and new > t.max_new_errors:
        return [f"{message} (limit {t.max_new_errors})"], []
    return [], [message]


def _tool_repeats(report: DiffReport, t: GateThresholds) -> Findings:
    limit = t.max_tool_repeats
    if limit is None:
        return [], []
    counts = report.candidate.tool_counts
    return [
        f"tool {name} called {count} times (limit {limit})"
        for name, count in sorted(counts.items())
        if count > limit
    ], []


RULES: tuple[Rule, ...] = (
    Rule(
        "loop",
        "hard",
        "allow_loops",
        "flag",
        "Report loops but never fail on them.",
        _loop,
        "No loops.",
        "Loops seen, not blocking.",
    ),
    Rule(
        "cost",
        "hard",
        "max_cost_increase",
        "number",
        "Fail when cost rises more than this %.",
        _cost,
        "No cost spike.",
        "Cost unknown or partly priced, not checked.",
    ),
    Rule(
        "tokens",
        "hard",
        "max_token_increase",
        "number",
        "Fail when total tokens rise more than this %.",
        _tokens,
        None,
        "Tokens unknown or partly reported, not checked.",
    ),
    Rule(
        "divergence",
        "hard",
        "max_divergence",
        "number",
        "Fail when divergence (0-1: steps inserted or deleted) exceeds this.",
        _divergence,
        "Trajectory within budget.",
        "Alternate route, within budget.",
    ),
    Rule(
        "changed_calls",
        "soft",
        "max_changed_calls",
        "int",
        "Fail when more than N calls change arguments, status or model (default: warn).",
        _changed_calls,
        None,
        "Calls changed, not blocking.",
    ),
    Rule(
        "errors",
        "soft",
        "max_new_errors",
        "int",
        "Fail on more than N new errors (default: warn).",
        _errors,
        None,
        "New errors, within limit.",
    ),
    Rule(
        "latency",
        "soft",
        "max_latency_increase",
        "number",
        "Warn when latency rises more than this %.",
        _latency,
        None,
        "Slower, within limit.",
    ),
    Rule(
        "tool_repeats",
        "hard",
        "max_tool_repeats",
        "int",
        "Fail when any tool is called more than N times.",
        _tool_repeats,
        None,
        "Tool repeats within limit.",
    ),
)
"""Every rule the gate checks, in report order (also the order of the verdict's words)."""


def evaluate_gate(report: DiffReport, thresholds: GateThresholds | None = None) -> GateResult:
    """Apply `thresholds` (default: the defaults) to `report` with every rule of `RULES`."""
    thresholds = thresholds or GateThresholds()
    hard: list[GateViolation] = []
    soft: list[GateViolation] = []
    for rule in RULES:
        broken, warned = rule.check(report, thresholds)
        # most rules find nothing: no generator is built for them (a suite gates 20,000 pairs)
        if broken:
            hard.extend(_violation(rule.name, m) for m in broken)
        if warned:
            soft.extend(_violation(rule.name, m) for m in warned)
    result: GateResult = _RESULTS.adopt(
        {"passed": not hard, "violations": hard, "warnings": soft}, _RESULT_GIVEN
    )
    return result


def _violation(rule: str, message: str) -> GateViolation:
    """`GateViolation(rule=rule, message=message)` without running validation.

    Every value is what validation would keep (a rule's name and the message it wrote are
    strings; the result holds a bool and fresh lists of these records): the gate judges every
    pair a suite compares, and with the loops' records (`loops._finding`) its validations were
    ~44k instructions of a 50-step pair's 11.7M (`tests/test_gate.py` checks the records
    against validated ones).
    """
    violation: GateViolation = _VIOLATIONS.adopt({"rule": rule, "message": message}, _GIVEN)
    return violation


_RESULTS, _VIOLATIONS = shared_store(GateResult), shared_store(GateViolation)
_RESULT_GIVEN, _GIVEN = set(GateResult.model_fields), set(GateViolation.model_fields)
"""Every field given: one fields-set shared by all (frozen records never change theirs)."""


def _unknown_sides(delta: Delta) -> str:
    both = delta.baseline is None and delta.candidate is None
    return "both sides" if both else ("the baseline" if delta.baseline is None else "the candidate")


def verdict(result: GateResult) -> str:
    """The outcome in plain words: what blocked the candidate, or why it passed."""
    if not result.passed:
        return "Blocked by: " + "; ".join(v.message for v in result.violations)
    warned = {w.rule for w in result.warnings}
    words = [rule.warned if rule.name in warned else rule.quiet for rule in RULES]
    return " ".join(w for w in words if w)
