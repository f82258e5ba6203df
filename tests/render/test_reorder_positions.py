"""A reordered row shows where each run ran its step (issue 11 §2: "each side is reported in
the order it actually ran").

Rows follow the candidate's execution order, so the baseline column of a `reorder` row is not
the order the baseline ran. The report's `moved` gives both steps' places in their own run's
execution order, and every renderer shows them through the view model ("fetch (ran #4)").
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentdiff import compare
from agentdiff.models.report import Op
from agentdiff.render import render
from agentdiff.render.view import report_view
from tests.diff.builders import step, trace


def _fan_out(args: list[int], prefix: str):
    """One model message issuing fetch(n) for each n: listed in the order they ran."""
    steps = [step(0, "llm_call", "model", prefix=prefix)]
    for i, n in enumerate(args, start=1):
        steps.append(step(i, "tool_call", "fetch", 0, prefix=prefix, input_payload={"n": n}))
    return trace(steps, trace_id=prefix)


def test_a_reordered_call_carries_where_each_run_ran_it():
    report = compare(_fan_out([1, 2, 3], "b"), _fan_out([3, 1, 2], "c"))
    (moved,) = report.moved
    entry = report.alignment[moved.row - 1]
    assert entry.op is Op.REORDER
    assert (entry.baseline.step_id, entry.candidate.step_id) == ("b3", "c1")
    assert (moved.baseline_position, moved.candidate_position) == (4, 2)  # the model ran first
    assert report.to_dict()["moved"] == [
        {"row": moved.row, "baseline_position": 4, "candidate_position": 2}
    ]


@settings(max_examples=200, deadline=None)
@given(st.permutations(list(range(1, 6))), st.permutations(list(range(1, 6))))
def test_every_moved_row_names_each_steps_own_place(base, cand):
    report = compare(_fan_out(base, "b"), _fan_out(cand, "c"))
    b_at = {f"b{i}": i + 1 for i in range(len(base) + 1)}  # listed in execution order
    c_at = {f"c{i}": i + 1 for i in range(len(cand) + 1)}
    moved = {m.row: m for m in report.moved}
    for row, entry in enumerate(report.alignment, start=1):
        if entry.op is Op.REORDER:
            assert moved[row].baseline_position == b_at[entry.baseline.step_id]
            assert moved[row].candidate_position == c_at[entry.candidate.step_id]
    for m in report.moved:
        assert report.alignment[m.row - 1].op in (Op.REORDER, Op.CHANGE)
    rows = [report_view(report).rows[m.row - 1] for m in report.moved]  # no folds: short
    assert all(r.baseline.ran and r.candidate.ran for r in rows)


def test_the_view_model_labels_each_side_with_its_place():
    view = report_view(compare(_fan_out([1, 2, 3], "b"), _fan_out([3, 1, 2], "c")))
    reordered = [r for r in view.rows if r.op == "reorder"]
    assert [(r.baseline.label, r.candidate.label) for r in reordered] == [
        ("fetch (ran #4)", "fetch (ran #2)")
    ]
    assert all(r.baseline.ran is None for r in view.rows if r.op == "match")
    assert "ran #n" in view.legend


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
def test_every_renderer_shows_where_each_run_ran_a_reordered_step(fmt):
    report = compare(_fan_out([1, 2, 3], "b"), _fan_out([3, 1, 2], "c"))
    shown = render(report, fmt, width=200, color=False).replace("#\u200b", "#")  # markdown
    assert "fetch (ran #4)" in shown and "fetch (ran #2)" in shown
