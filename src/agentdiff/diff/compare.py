"""`compare()`: baseline and candidate in, one `DiffReport` out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from operator import attrgetter

from agentdiff.diff.align import Pair, align
from agentdiff.diff.changes import same_model, step_changes
from agentdiff.diff.findings import Noted, report_findings
from agentdiff.diff.fold import fold_framework_steps
from agentdiff.diff.groups import reorders
from agentdiff.diff.loops import label_loops, side_loops
from agentdiff.diff.metrics import deltas
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.options import CompareOptions, applied_thresholds
from agentdiff.diff.order import MAX_DEPTH, Side, places_in, prepare
from agentdiff.diff.portable import PortableSide, adopted_side
from agentdiff.diff.recovery import recoveries
from agentdiff.diff.signatures import Signer
from agentdiff.diff.totals import memoized_totals, with_folded
from agentdiff.gate import evaluate_gate
from agentdiff.gcpause import no_gc_pauses
from agentdiff.limits import nesting_error, too_deep
from agentdiff.models.report import (
    ON_PATH,
    Aligned,
    DiffReport,
    GateResult,
    LoopFinding,
    Moved,
    Op,
    new_aligned,
    new_moved,
    step_fields,
)
from agentdiff.models.trace import AgentTrace, not_a_trace

__all__ = ["compare", "compare_adopting", "compare_prepared", "passes_gate_prepared"]


def compare(
    baseline: AgentTrace,
    candidate: AgentTrace,
    detect_loops: bool = True,
    strict_tool_signatures: bool = False,
    *,
    options: CompareOptions | None = None,
) -> DiffReport:
    """Align two runs and report how the candidate's behaviour differs from the baseline's.

    `detect_loops` and `strict_tool_signatures` are the spec's keyword arguments; every other
    knob lives in `options` (whose values win when it is given; a dict of its fields is
    validated into one).
    """
    _check_traces(baseline, candidate)
    if options is not None and not isinstance(options, CompareOptions):
        options = _options_of(options)
    if options is None:
        if type(detect_loops) is bool and type(strict_tool_signatures) is bool:
            options = _default_options(detect_loops, strict_tool_signatures)
        else:  # let pydantic say what is wrong with them (or coerce them)
            options = CompareOptions(
                detect_loops=detect_loops, strict_tool_signatures=strict_tool_signatures
            )
    try:
        with no_gc_pauses():
            return _compare(baseline, candidate, options)
    except RecursionError as error:
        raise _nested_too_deep(baseline, candidate, error) from None


def compare_adopting(
    baseline: AgentTrace,
    candidate: AgentTrace,
    options: CompareOptions,
    candidate_side: Callable[[], PortableSide | None] | None,
) -> DiffReport:
    """`compare(baseline, candidate, options=options)`, the candidate prepared elsewhere.

    `candidate_side()` gives `portable_side(candidate, options)` made in another process (of a
    trace loaded from the same bytes), or None; it is called once the baseline is prepared, so
    that process has until then. The report is the one `compare` makes. With framework steps
    folded (the side would be of a folded copy), or no side, or one of another size, the
    candidate is prepared here.
    """
    if candidate_side is None or options.fold_framework_steps:
        return compare(baseline, candidate, options=options)
    _check_traces(baseline, candidate)
    try:
        with no_gc_pauses():
            return _compare(baseline, candidate, options, candidate_side)
    except RecursionError as error:
        raise _nested_too_deep(baseline, candidate, error) from None


def _check_traces(baseline: object, candidate: object) -> None:
    """Both sides are traces (a path or a dict is loaded first, and the error says how)."""
    for side, value in (("baseline", baseline), ("candidate", candidate)):
        if not isinstance(value, AgentTrace):
            said = f"the {side} is not one ({not_a_trace(value)})"
            msg = f"compare() takes two AgentTrace objects; {said}"
            raise TypeError(msg)


def _options_of(given: object) -> CompareOptions:
    """`options` given as a dict of its fields (validated), else a `TypeError` saying what."""
    if isinstance(given, Mapping):
        return CompareOptions.model_validate(given)
    msg = f"options must be a CompareOptions or a dict of its fields, not {type(given).__name__}"
    raise TypeError(msg)


def _nested_too_deep(
    baseline: AgentTrace, candidate: AgentTrace, error: RecursionError
) -> Exception:
    """The error of a walk that ran out of stack: the payload past the nesting limit.

    Loading refuses such a payload; only a trace built in Python can hold one. Without one
    (the stack ran out for another reason) the original error stands.
    """
    for side, trace in (("baseline", baseline), ("candidate", candidate)):
        path = too_deep(trace)
        if path is not None:
            return nesting_error(f"the {side}'s {path}")
    return error


@cache
def _default_options(detect_loops: bool, strict_tool_signatures: bool) -> CompareOptions:
    """The options of a call without `options` (frozen, so one object serves every call)."""
    return CompareOptions(detect_loops=detect_loops, strict_tool_signatures=strict_tool_signatures)


def compare_prepared(
    baseline: AgentTrace,
    candidate: AgentTrace,
    sides: tuple[Side, Side],
    options: CompareOptions,
    *,
    findings: bool = True,
    given: tuple[AgentTrace, AgentTrace] | None = None,
) -> DiffReport:
    """`compare()` of two runs whose sides are prepared already, e.g. cached for many pairs.

    Both sides must come from `prepare()` with one `Signer` (its ids are shared) built from
    `options` (`ignore`, `strict_tool_signatures`). With `fold_framework_steps` on, `baseline`
    and `candidate` are `fold_framework_steps(run)` of the runs as given, `given` (required
    then), and the sides are of those folded copies: the report is `compare()`'s of `given`.
    `findings=False` leaves `findings` empty (for callers that read the gate, alignment and
    deltas only, never the findings). The applied thresholds are computed once per `options`
    (`applied_thresholds`).
    """
    _check_folding(options, given, "compare_prepared")
    with no_gc_pauses():
        normalizer = Normalizer(options.ignore)
        return _report(
            baseline, candidate, *sides, normalizer, options, findings=findings, given=given
        )


def _check_folding(
    options: CompareOptions, given: tuple[AgentTrace, AgentTrace] | None, caller: str
) -> None:
    """`given` (the runs as given) comes with folded sides, and only with them."""
    if options.fold_framework_steps and given is None:
        msg = f"{caller} with fold_framework_steps needs the runs as given (`given`)"
        raise ValueError(msg)
    if given is not None and not options.fold_framework_steps:
        msg = f"{caller}: `given` is for sides of folded runs (fold_framework_steps off)"
        raise ValueError(msg)


def passes_gate_prepared(
    baseline: AgentTrace,
    candidate: AgentTrace,
    sides: tuple[Side, Side],
    options: CompareOptions,
    *,
    given: tuple[AgentTrace, AgentTrace] | None = None,
) -> bool:
    """`compare_prepared(baseline, candidate, sides, options, given=given).passed`, no entries.

    A scenario's gate-failure rate reads nothing else of its baseline runs' own pairs (10 of
    the 20 pairs of a 10-vs-10 scenario). Of the gate's rules only `changed_calls` and
    `errors` (a new error is read off its entry) read the alignment's entries, and each can fail
    only with its limit set (`max_changed_calls`, `max_new_errors`; else it warns): then the
    whole report is made. Otherwise what the other rules read is computed as
    `_report` computes it (alignment pairs, divergence, totals, deltas, loops), and the gate
    judges a report holding just that (the other fields empty).
    """
    _check_folding(options, given, "passes_gate_prepared")
    if options.gate.max_changed_calls is not None or options.gate.max_new_errors is not None:
        report = compare_prepared(baseline, candidate, sides, options, findings=False, given=given)
        return report.passed
    b_side, c_side = sides
    with no_gc_pauses():
        pairs = _align(b_side, c_side)
        off_route = sum(b is None or c is None for b, c in pairs)  # the inserts and deletes
        b_sum, _ = memoized_totals(baseline, b_side, options.prices)
        c_sum, _ = memoized_totals(candidate, c_side, options.prices)
        report = DiffReport.model_construct(
            baseline=b_sum,
            candidate=c_sum,
            divergence=_divergence(off_route, b_side, c_side),
            loops=_loops(b_side, c_side) if options.detect_loops else [],
            deltas=deltas(b_sum, c_sum),
            # what no rule that can fail here reads: left empty
            content_changes=0,
            changed_calls=0,
            first_divergence=None,
            alignment=[],
            recovery=[],
            moved=[],
            gate=_PENDING,
            thresholds=[],  # given: a default factory costs an `inspect.signature` per call
            findings=[],
        )
        return evaluate_gate(report, options.gate).passed


_PENDING = GateResult(passed=True)
"""The gate of a report until `evaluate_gate` has read the rest of it (then replaced, or the
report dropped)."""


def _divergence(off_route: int, b_side: Side, c_side: Side) -> float:
    """The share of both sides' steps off the common route (= 1 - 2·pairs / sizes)."""
    sizes = len(b_side.steps) + len(c_side.steps)
    return off_route / sizes if sizes else 0.0


def _compare(
    baseline: AgentTrace,
    candidate: AgentTrace,
    options: CompareOptions,
    candidate_side: Callable[[], PortableSide | None] | None = None,
) -> DiffReport:
    """The report; `candidate_side`: see `compare_adopting` (never with folding)."""
    given = None
    if options.fold_framework_steps:
        given = baseline, candidate
        baseline, candidate = fold_framework_steps(baseline), fold_framework_steps(candidate)
    normalizer = Normalizer(options.ignore)
    signer = Signer(normalizer, strict=options.strict_tool_signatures)
    b_side = prepare(baseline, signer)  # first: the candidate's keys are interned after it
    portable = None if candidate_side is None else candidate_side()
    c_side = (
        prepare(candidate, signer)
        if portable is None or portable.size != len(candidate.steps)  # none, or of another
        else adopted_side(candidate, portable, signer, options.prices)
    )
    return _report(baseline, candidate, b_side, c_side, normalizer, options, given=given)


def _report(
    baseline: AgentTrace,
    candidate: AgentTrace,
    b_side: Side,
    c_side: Side,
    normalizer: Normalizer,
    options: CompareOptions,
    *,
    findings: bool = True,
    given: tuple[AgentTrace, AgentTrace] | None = None,
) -> DiffReport:
    """The report of two prepared sides.

    `given`: the runs as given when the sides are of folded copies (`moved` then gives the
    places in the runs as given, and each summary how many steps folding removed).
    """
    pairs = _align(b_side, c_side)
    moved = reorders(pairs, b_side, c_side)
    entries, noted = _entries(pairs, moved, b_side, c_side, normalizer, options)
    ops = list(map(_OP, entries))
    divergence = _divergence(ops.count(Op.INSERT) + ops.count(Op.DELETE), b_side, c_side)
    b_sum, _ = memoized_totals(baseline, b_side, options.prices)
    c_sum, c_attempts = memoized_totals(candidate, c_side, options.prices)
    if given is not None:
        b_sum = with_folded(b_sum, given[0], baseline)
        c_sum = with_folded(c_sum, given[1], candidate)
    places = _places(given, (baseline, candidate), (b_side, c_side)) if moved and given else None
    # every part is validated (summaries) or built from validated steps (alignment)
    report = DiffReport.assemble(
        baseline,
        candidate,
        baseline=b_sum,
        candidate=c_sum,
        divergence=divergence,
        content_changes=len(noted.content_rows),
        changed_calls=ops.count(Op.CHANGE),
        first_divergence=next((e for e in entries if e.op not in ON_PATH), None),
        first_change=next((e for e in entries if e.op in _DIFFERS), None),
        alignment=entries,
        loops=_loops(b_side, c_side) if options.detect_loops else [],
        recovery=recoveries(pairs, ops, c_side, c_attempts),
        moved=_moved(pairs, moved, places),
        deltas=deltas(b_sum, c_sum),
        gate=_PENDING,
        thresholds=applied_thresholds(options),
        findings=[],
    )
    if findings:  # first: the gate's words read whether content counted from them
        report.findings = report_findings(report, noted, compare_content=options.compare_content)
    report.gate = evaluate_gate(report, options.gate)
    return report


def _moved(
    pairs: list[Pair], moved: set[int], places: tuple[_Place, _Place] | None = None
) -> list[Moved]:
    """Where each run ran the steps of each moved pair (rows and positions 1-based).

    `places` maps a side's execution position to the step's place in the run as given (the
    sides are of folded copies); without it the positions are the places.
    """
    b_place, c_place = places or (_SAME, _SAME)
    out = []
    for i in sorted(moved):
        b, c = pairs[i]
        out.append(new_moved(i + 1, b_place(b or 0) + 1, c_place(c or 0) + 1))
    return out


_Place = Callable[[int], int]
_SAME: _Place = int  # a position is its own place


def _places(
    given: tuple[AgentTrace, AgentTrace],
    compared: tuple[AgentTrace, AgentTrace],
    sides: tuple[Side, Side],
) -> tuple[_Place, _Place]:
    """For each side compared as a folded copy: execution position → place in the run given.

    See `order.places_in`.
    """
    b_place, c_place = (
        _SAME if copy is run else places_in(run, side)
        for run, copy, side in zip(given, compared, sides, strict=True)
    )
    return b_place, c_place


def _align(b_side: Side, c_side: Side) -> list[Pair]:
    """The alignment over each side's canonical order, as execution positions."""
    b_exact, b_base, b_depth = _canonical(b_side)
    c_exact, c_base, c_depth = _canonical(c_side)
    return align(
        [
            (_with_depth(b_exact, b_depth), _with_depth(c_exact, c_depth)),
            (_with_depth(b_base, b_depth), _with_depth(c_base, c_depth)),
            (b_base, c_base),
        ],
        lambda: (b_exact, c_exact),
        (b_side.canon, c_side.canon),
    )


def _canonical(side: Side) -> tuple[list[int], list[int], list[int]]:
    """The side's exact keys, base keys and depths in its canonical order.

    Each list is put in canonical order once, and the tiers are made of them (a tier's
    keys computed in execution order and then put in canonical order took one pass more per
    tier and side).
    """
    if side.canon is None:
        return side.exact, side.base, side.depth
    at = side.canon
    exact, base, depth = side.exact, side.base, side.depth
    return (
        list(map(exact.__getitem__, at)),
        list(map(base.__getitem__, at)),
        list(map(depth.__getitem__, at)),
    )


def _with_depth(keys: list[int], depth: list[int]) -> list[int]:
    """Each key and its step's depth as one int (depths are capped at `MAX_DEPTH`).

    A comprehension: CPython 3.11 specializes its int multiply and add, ~30% faster here
    than `map(add, map(mul, ...))` on 1,000 keys.
    """
    return [key * _DEPTHS + d for key, d in zip(keys, depth, strict=True)]


_DEPTHS = MAX_DEPTH + 1


def _entries(
    pairs: list[Pair],
    moved: set[int],
    b_side: Side,
    c_side: Side,
    normalizer: Normalizer,
    options: CompareOptions,
) -> tuple[list[Aligned], Noted]:
    """The alignment (one entry per pair of the edit script, in its order), and what it noted.

    It notes the rows whose listed changes include content and the steps inserted and deleted
    as it makes the entries: the report counts the content rows, and the findings list them
    and read those steps' own tokens without another pass over every entry or step.
    """
    b_refs, c_refs, b_calls, c_calls = b_side.refs, c_side.refs, b_side.call, c_side.call
    b_steps, c_steps, entry, fields = b_side.steps, c_side.steps, new_aligned, step_fields
    compare_content = options.compare_content
    models = b_side.names_models or c_side.names_models  # else paired steps share their model
    out = []
    noted = Noted(content_rows=[], inserted=[], deleted=[])
    content, inserted, deleted = noted.content_rows, noted.inserted, noted.deleted
    for i, (b, c) in enumerate(pairs):
        if c is None:
            out.append(entry(Op.DELETE, b_refs[b or 0], None, [], 0))
            deleted.append(b_steps[b or 0])
        elif b is None:
            out.append(entry(Op.INSERT, None, c_refs[c], [], 0))
            inserted.append(c_steps[c])
        else:
            call = b_calls.get(b)
            same_call = call is not None and call == c_calls.get(c)
            b_ref, c_ref = b_refs[b], c_refs[c]
            b_held, c_held = fields(b_steps[b]), fields(c_steps[c])
            if (
                b_ref.status is c_ref.status
                and b_held["output_payload"] == c_held["output_payload"]
                and (same_call or b_held["input_payload"] == c_held["input_payload"])
                and (call is not None or not models or same_model(b_held, c_held))
            ):  # nothing differs (most pairs): skip the field walk
                op = Op.REORDER if i in moved else Op.MATCH
                out.append(entry(op, b_ref, c_ref, [], 0))
                continue
            changes = step_changes(
                b_held, c_held, normalizer, same_arguments=same_call, models=models
            )
            of_content = list(map(_KIND, changes)).count("content")
            if of_content:
                content.append(i + 1)
            if changes and (compare_content or of_content < len(changes)):
                op = Op.CHANGE  # some change is not of content (or content counts)
            else:
                op = Op.REORDER if i in moved else Op.MATCH
            out.append(entry(op, b_ref, c_ref, changes, changes.more))
    return out, noted


_DIFFERS = frozenset((Op.CHANGE, Op.INSERT, Op.DELETE))
_OP = attrgetter("op")
_KIND = attrgetter("kind")


def _loops(b_side: Side, c_side: Side) -> list[LoopFinding]:
    return label_loops(side_loops(c_side), side_loops(b_side))
