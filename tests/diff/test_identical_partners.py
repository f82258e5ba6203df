"""Among the maximal pairings, the most identical pairs (issue 11 §1).

Runs built from a baseline only by deleting and inserting calls: every pairing as long as the
longest common subsequence over base signatures (type + name), and among those the most pairs
of identical calls (type + name + normalized arguments + failed). The optimum is computed here
independently of the engine:

- in a **fan-out** (the calls one model message issued: concurrent, so a pair may cross
  another and reads as a reorder), calls of one tool pair in any order: the most identical
  pairs are the multiset intersection of the two sides' calls;
- in a **sequential** run pairs never cross: the optimum is a weighted LCS maximizing
  (pairs, identical pairs) lexicographically.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from agentdiff import compare
from agentdiff.diff import align as align_module
from agentdiff.models.report import DiffReport, Op

from .builders import step, trace

Call = tuple[str, int]
"""A tool call: its name and its one argument's value."""


@st.composite
def derived(draw, names: tuple[str, ...]) -> tuple[list[Call], list[Call]]:
    """A random run of calls and a run made from it by deleting and inserting calls."""
    call = st.tuples(st.sampled_from(names), st.integers(1, 3))
    base = draw(st.lists(call, max_size=12))
    kept = [
        c
        for c, keep in zip(
            base, draw(st.lists(st.booleans(), min_size=len(base), max_size=len(base))), strict=True
        )
        if keep
    ]
    for at, inserted in draw(st.lists(st.tuples(st.integers(0, 12), call), max_size=4)):
        kept.insert(min(at, len(kept)), inserted)
    return base, kept


def _fan_out(calls: list[Call], prefix: str):
    """One model message issuing `calls` (concurrent tool calls under one `llm_call`)."""
    steps = [step(0, "llm_call", "model", prefix=prefix)]
    for i, (name, q) in enumerate(calls, start=1):
        steps.append(step(i, "tool_call", name, 0, prefix=prefix, input_payload={"q": q}))
    return trace(steps, trace_id=prefix)


def _sequential(calls: list[Call], prefix: str):
    """`calls` one after the other (untimed roots of a flat trace: not one turn)."""
    steps = [
        step(i, "tool_call", name, prefix=prefix, input_payload={"q": q})
        for i, (name, q) in enumerate(calls)
    ]
    return trace(steps, trace_id=prefix)


def _pairs_and_identical(report: DiffReport) -> tuple[int, int]:
    """(pairs, pairs of identical calls) of the report, read off the traces' own steps."""
    b_steps = report.baseline_trace.step_map()
    c_steps = report.candidate_trace.step_map()
    pairs = identical = 0
    for e in report.alignment:
        if e.baseline is not None and e.candidate is not None:
            b, c = b_steps[e.baseline.step_id], c_steps[e.candidate.step_id]
            pairs += 1
            identical += (b.name, b.input_payload, b.status) == (c.name, c.input_payload, c.status)
    return pairs, identical


def _best_sequential(b: list[Call], c: list[Call]) -> tuple[int, int]:
    """Max (pairs, identical pairs) over common subsequences of names (weighted LCS)."""
    table = [[(0, 0)] * (len(c) + 1) for _ in range(len(b) + 1)]
    for i, x in enumerate(b):
        for j, y in enumerate(c):
            best = max(table[i][j + 1], table[i + 1][j])
            if x[0] == y[0]:
                pairs, same = table[i][j]
                best = max(best, (pairs + 1, same + (x == y)))
            table[i + 1][j + 1] = best
    return table[-1][-1]


@settings(max_examples=400, deadline=None)
@given(derived(("fetch",)))
def test_a_fan_out_pairs_every_identical_call(made):
    b, c = made
    pairs, identical = _pairs_and_identical(compare(_fan_out(b, "b"), _fan_out(c, "c")))
    assert pairs == 1 + min(len(b), len(c))  # the model turn + the base LCS of one tool's calls
    assert identical == 1 + sum((Counter(b) & Counter(c)).values())


@settings(max_examples=400, deadline=None)
@given(derived(("fetch", "search")))
def test_a_sequential_run_pairs_the_most_identical_calls(made):
    b, c = made
    got = _pairs_and_identical(compare(_sequential(b, "b"), _sequential(c, "c")))
    assert got == _best_sequential(b, c)


def test_an_identical_call_issued_first_is_no_changed_call():
    """`t(3)` kept, issued before `t(1)`: a reorder of identical calls, not `t(2) → t(3)`."""
    report = compare(
        _fan_out([("t", 1), ("t", 2), ("t", 3)], "b"), _fan_out([("t", 3), ("t", 1)], "c")
    )
    rows = [
        (e.op, e.baseline and e.baseline.step_id, e.candidate and e.candidate.step_id)
        for e in report.alignment
    ]
    assert [op for op, _, _ in rows].count(Op.CHANGE) == 0
    assert (Op.REORDER, "b3", "c1") in rows and (Op.DELETE, "b2", None) in rows
    assert _pairs_and_identical(report) == (3, 3)


def test_an_inserted_twin_of_a_changed_call_pairs_with_its_twin():
    """The candidate inserted `t(3)` and dropped a `t(2)`: no `t(2) → t(3)` change."""
    base = [("t", 2), ("t", 2), ("t", 2), ("t", 3), ("t", 2)]
    cand = [("t", 3), ("t", 2), ("t", 2), ("t", 2)]
    report = compare(_fan_out(base, "b"), _fan_out(cand, "c"))
    assert _pairs_and_identical(report) == (5, 5)
    assert [e.op for e in report.alignment].count(Op.CHANGE) == 0


def _calls(text: str) -> list[Call]:
    """`"f3 s1"` → `[("fetch", 3), ("search", 1)]`."""
    names = {"f": "fetch", "s": "search"}
    return [(names[word[0]], int(word[1:])) for word in text.split()]


COSTLY_ANCHOR = _calls("f3 f1 s3 f2 f2 f1 f2"), _calls("f3 f1 f2 s1 s1 f1 f2 f2")
"""A sequential pair whose identical `fetch(2)` anchor would cost the `search` pair."""


def test_a_sequential_run_whose_anchors_cost_a_pair_keeps_its_identical_calls():
    """Anchoring the identical `fetch(2)` would cost the `search` pair; the weighted LCS keeps
    the pair count and still pairs every identical call it can."""
    base, cand = COSTLY_ANCHOR
    report = compare(_sequential(base, "b"), _sequential(cand, "c"))
    assert _pairs_and_identical(report) == _best_sequential(base, cand) == (6, 4)


def test_a_stretch_of_a_big_box_is_re_aligned_by_the_weighted_lcs(monkeypatch):
    """Past `WEIGHTED_CELLS` only the stretches the plain pairing wins are re-aligned."""
    base, cand = COSTLY_ANCHOR
    monkeypatch.setattr(align_module, "WEIGHTED_CELLS", 30)
    assert len(base) * len(cand) > align_module.WEIGHTED_CELLS
    report = compare(_sequential(base, "b"), _sequential(cand, "c"))
    assert _pairs_and_identical(report) == (6, 4)
