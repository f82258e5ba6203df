"""Row elision: long unchanged runs collapse; a cut tail says so and never hides silently."""

from agentdiff import compare
from agentdiff.render import render
from agentdiff.render.rows import rows
from agentdiff.render.view import report_view
from tests.diff.builders import tools
from tests.realdata import RealSource


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


def test_side_counts_name_model_turns_when_a_run_has_no_llm_call_steps():
    """A real LangGraph run calls the model three times, each a routing or response turn: the
    header said '0 LLM calls'; it counts the model turns, as the facts do."""
    source = RealSource("langgraph")
    base, cand = (source.load("messages", "parallel", side) for side in ("baseline", "candidate"))
    report = compare(base, cand)
    turns = source.facts("parallel", "baseline")["llm_calls"]
    assert (report.baseline.llm_calls, report.baseline.model_turns) == (0, turns)
    header = f"6 steps · 3 tool calls · {turns} model turns · 0 errors"
    for fmt in ("terminal", "html"):  # the markdown report shows no side counts
        shown = " ".join(render(report, fmt, width=400).split())
        assert header in shown, fmt
        assert "0 LLM calls" not in shown, fmt
    plain = compare(tools(("a", {})), tools(("a", {}), prefix="c"))
    assert [side.counts for side in report_view(plain).sides] == [
        "3 steps · 1 tool call · 1 LLM call · 0 errors"
    ] * 2


def test_deltas_count_model_calls_once_as_the_side_lines_do():
    """The Deltas table of that LangGraph pair read 'LLM calls 0 → 0' beside the turns: a run
    that called the model three times. It shows the model turns alone there (from the facts
    of the live run), and a run whose turns are `llm_call` steps shows its LLM calls alone."""
    source = RealSource("langgraph")
    base, cand = (source.load("messages", "detour", side) for side in ("baseline", "candidate"))
    turns = [source.facts("detour", side)["llm_calls"] for side in ("baseline", "candidate")]
    view = report_view(compare(base, cand))
    labels = [row[0] for row in view.deltas]
    assert "LLM calls" not in labels
    assert next(row for row in view.deltas if row[0] == "model turns")[1:3] == tuple(
        f"{n:,}" for n in turns
    )
    for fmt in ("terminal", "markdown", "html"):
        shown = render(compare(base, cand), fmt, width=400)
        assert "LLM calls" not in shown, fmt
        assert "model turns" in shown, fmt
    plain = report_view(compare(tools(("a", {})), tools(("a", {}), ("b", {}), prefix="c")))
    assert [row[0] for row in plain.deltas].count("LLM calls") == 1
    assert "model turns" not in [row[0] for row in plain.deltas]
