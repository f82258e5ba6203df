"""`compare()`: baseline and candidate in, one `DiffReport` out."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

from agentdiff.diff.align import Pair, align
from agentdiff.diff.changes import step_changes
from agentdiff.diff.loops import Loop, find_loops, label_loops
from agentdiff.diff.metrics import deltas, summarize
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.options import CompareOptions
from agentdiff.diff.order import Linear, linearize
from agentdiff.diff.recovery import recoveries
from agentdiff.diff.signatures import Keys, Signer
from agentdiff.gate import evaluate_gate
from agentdiff.models.report import Aligned, Change, DiffReport, LoopFinding, Op, StepRef
from agentdiff.models.trace import AgentTrace, StepType, TraceStep

__all__ = ["compare"]

_ON_PATH = (Op.MATCH, Op.REORDER)


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
    knob lives in `options` (whose values win when it is given).
    """
    if options is None:
        options = CompareOptions(
            detect_loops=detect_loops, strict_tool_signatures=strict_tool_signatures
        )
    with _no_gc_pauses():
        return _compare(baseline, candidate, options)


@contextmanager
def _no_gc_pauses() -> Iterator[None]:
    """Pause the cyclic garbage collector; restore the caller's setting afterwards.

    The engine allocates hundreds of thousands of acyclic records; collecting mid-way only
    rescans them (a third of the time on 100k-step traces).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _compare(baseline: AgentTrace, candidate: AgentTrace, options: CompareOptions) -> DiffReport:
    normalizer = Normalizer(options.ignore)
    signer = Signer(normalizer, strict=options.strict_tool_signatures)

    def group_key(step: TraceStep) -> Hashable:
        call = signer.call_key(step) if step.step_type is StepType.TOOL_CALL else ""
        return (repr(signer.base(step)), call)

    b_lin, c_lin = linearize(baseline, group_key), linearize(candidate, group_key)
    b_keys, c_keys = signer.keys(b_lin.steps), signer.keys(c_lin.steps)
    pairs = align(b_keys.exact, c_keys.exact, b_keys.base, c_keys.base)
    entries = [_entry(p, b_lin, c_lin, normalizer, options) for p in pairs]
    ops = [e.op for e in entries]
    sizes = len(b_lin.steps) + len(c_lin.steps)
    divergence = 1.0 - 2.0 * sum(op in _ON_PATH for op in ops) / sizes if sizes else 0.0
    b_sum, c_sum = summarize(baseline, options.prices), summarize(candidate, options.prices)
    loops = _loops(b_lin, b_keys, c_lin, c_keys) if options.detect_loops else []
    found_deltas = deltas(b_sum, c_sum)
    gate = evaluate_gate(
        divergence=divergence,
        loops=loops,
        deltas=found_deltas,
        tool_counts=Counter(c_lin.steps[i].name for i in c_keys.call),
        thresholds=options.gate,
    )
    report = DiffReport(
        baseline=b_sum,
        candidate=c_sum,
        divergence=divergence,
        content_changes=sum(any(c.kind == "content" for c in e.changes) for e in entries),
        first_divergence=next((e for e in entries if e.op not in _ON_PATH), None),
        alignment=entries,
        loops=loops,
        recovery=recoveries(pairs, ops, c_lin.steps),
        deltas=found_deltas,
        gate=gate,
    )
    return report.attach_traces(baseline, candidate)


def _entry(
    pair: Pair, b_lin: Linear, c_lin: Linear, normalizer: Normalizer, options: CompareOptions
) -> Aligned:
    if pair.candidate is None:
        base = b_lin.steps[pair.baseline or 0]
        return Aligned.trusted(op=Op.DELETE, baseline=StepRef.of(base), candidate=None, changes=[])
    cand = c_lin.steps[pair.candidate]
    if pair.baseline is None:
        return Aligned.trusted(op=Op.INSERT, baseline=None, candidate=StepRef.of(cand), changes=[])
    base = b_lin.steps[pair.baseline]
    changes = step_changes(base, cand, normalizer)
    return Aligned.trusted(
        op=_op(changes, base, cand, b_lin, c_lin, options),
        baseline=StepRef.of(base),
        candidate=StepRef.of(cand),
        changes=changes,
    )


def _op(
    changes: list[Change],
    base: TraceStep,
    cand: TraceStep,
    b_lin: Linear,
    c_lin: Linear,
    options: CompareOptions,
) -> Op:
    if any(c.kind != "content" or options.compare_content for c in changes):
        return Op.CHANGE
    b_rank, c_rank = b_lin.rank.get(base.step_id), c_lin.rank.get(cand.step_id)
    if b_rank is not None and c_rank is not None and b_rank != c_rank:
        return Op.REORDER
    return Op.MATCH


def _loops(b_lin: Linear, b_keys: Keys, c_lin: Linear, c_keys: Keys) -> list[LoopFinding]:
    def found(lin: Linear, keys: Keys) -> list[Loop]:
        indexes = sorted(keys.call)
        return find_loops([lin.steps[i] for i in indexes], [keys.call[i] for i in indexes])

    return label_loops(found(c_lin, c_keys), found(b_lin, b_keys))
