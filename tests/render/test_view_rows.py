"""Row elision: long unchanged runs collapse; a cut tail says so and never hides silently."""

from agentdiff import compare
from agentdiff.render.rows import rows
from tests.diff.builders import tools


def test_tail_cut_at_max_rows_is_marked_and_counts_what_it_hides():
    base = tools(*[("a", {"i": i}) for i in range(30)])
    cand = tools(*[("a", {"i": i + 1}) for i in range(30)], prefix="c")
    report = compare(base, cand)
    shown = rows(report, max_rows=10)
    assert len(shown) == 10
    last = shown[-1]
    assert last.entry is None
    assert last.cut
    assert last.number + last.skipped - 1 == len(report.alignment)
    assert "not shown" in last.elision


def test_unchanged_runs_collapse_with_a_count():
    base = tools(*[("a", {"i": i}) for i in range(30)])
    cand = tools(*[("a", {"i": i}) for i in range(29)], ("a", {"i": 99}), prefix="c")
    shown = rows(compare(base, cand), max_rows=10)
    elided = [r for r in shown if r.entry is None]
    assert elided
    assert not elided[0].cut
    assert elided[0].elision.endswith("unchanged steps …")
