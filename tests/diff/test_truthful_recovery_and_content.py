"""Labels a reader can check against the two runs: where an error left the run, and whether
content changes counted (a fresh reader's review found both falsifiable)."""

from agentdiff import compare
from agentdiff.diff.options import CompareOptions
from agentdiff.render import render
from tests.diff.builders import step, tools, trace


def _sentences(report) -> str:
    return " ".join(render(report, "terminal", width=400).split())


def test_an_error_on_the_path_that_ends_the_run_did_not_recover():
    """[llm, fetch ok] vs [llm, fetch error]: the run ended on the failed call."""
    base = trace([step(0, "llm_call", "gpt"), step(1, "tool_call", "fetch", 0)])
    cand = trace(
        [
            step(0, "llm_call", "gpt", prefix="c"),
            step(1, "tool_call", "fetch", 0, prefix="c", status="error", error_message="boom"),
        ],
        trace_id="c",
    )
    report = compare(base, cand)
    (rec,) = report.recovery
    assert (rec.outcome, rec.recovered, rec.steps_to_recover) == ("gave_up", False, None)
    assert 'error in fetch (row 2): gave up; the run ended there: "boom"' in _sentences(report)


def test_an_error_on_the_path_then_a_detour_counts_the_detour():
    """The failed fetch pairs with the baseline's fetch; its two retries (each after a model
    turn) are off the path until the final answer: 4 steps, not 'on the baseline path'."""
    base = tools(("fetch", {"u": 1}))
    cand = tools(*[("fetch", {"u": 1}, "error")] * 3, prefix="c")
    report = compare(base, cand)
    first = report.recovery[0]
    assert first.error_step_id == "c1"
    rows = {e.candidate.step_id: n for n, e in enumerate(report.alignment, 1) if e.candidate}
    assert report.alignment[rows["c1"] - 1].op.value == "change"  # on the path
    off_path = [e for e in report.alignment[rows["c1"] :] if e.op.value == "insert"]
    assert (first.recovered, first.steps_to_recover) == (True, len(off_path)) == (True, 4)
    assert "(row 2): retried → still failing; back on the baseline path after 4 steps off it" in (
        _sentences(report)
    )


def test_an_error_on_the_path_whose_next_step_is_on_it_stayed_on_it():
    base = tools(("fetch", {"u": 1}), ("other", {}))
    cand = tools(("fetch", {"u": 1}, "error"), ("other", {}), prefix="c")
    report = compare(base, cand)
    (rec,) = report.recovery
    assert (rec.outcome, rec.recovered, rec.steps_to_recover) == ("gave_up", True, 0)
    assert "gave up; stayed on the baseline path" in _sentences(report)


def test_content_beside_an_argument_change_is_not_called_counted():
    """The call changed an argument and its output: the output did not count (the option is
    off), so neither sentence says it did."""
    base = trace([step(0, "tool_call", "get", input_payload={"n": 1}, output_payload={"v": "one"})])
    cand = trace(
        [
            step(
                0, "tool_call", "get", prefix="c", input_payload={"n": 2}, output_payload={"v": "2"}
            )
        ],
        trace_id="c",
    )
    said = _sentences(compare(base, cand))
    assert "1 call changed arguments at row 1 (get)" in said
    assert "content changed in 1 step (LLM text or tool output, row 1) — not counted" in said
    assert "counted content" not in said
    counted = _sentences(compare(base, cand, options=CompareOptions(compare_content=True)))
    assert "1 call changed (arguments, counted content) at row 1 (get)" in counted
    assert "content changed in 1 step (LLM text or tool output, row 1) — counted" in counted


def test_a_status_change_does_not_credit_an_option_that_was_off():
    base = trace([step(0, "tool_call", "fetch", output_payload={"ok": True})])
    cand = trace(
        [
            step(
                0,
                "tool_call",
                "fetch",
                prefix="c",
                status="error",
                error_message="Connection refused",
                output_payload={"error": "Connection refused"},
            )
        ],
        trace_id="c",
    )
    said = _sentences(compare(base, cand))
    assert "--compare-content)" not in said
    assert "1 call changed (status) at row 1 (fetch)" in said
    assert "content changed in 1 step (LLM text or tool output, row 1) — not counted" in said


def test_an_inserted_error_whose_next_step_is_on_the_path_was_one_step_off_it():
    """[fetch ok] vs [fetch error, fetch ok] (a flat trace): the failed call alone was off the
    path (the next step pairs with the baseline's fetch) — "after 1 step" read as a step after
    it."""
    base = trace([step(0, "tool_call", "fetch")])
    cand = trace(
        [
            step(0, "tool_call", "fetch", prefix="c", status="error", error_message="boom"),
            step(1, "tool_call", "fetch", prefix="c"),
        ],
        trace_id="c",
    )
    report = compare(base, cand)
    (rec,) = report.recovery
    assert (rec.outcome, rec.steps_to_recover) == ("retried_succeeded", 1)
    assert [e.op.value for e in report.alignment] == ["insert", "match"]
    assert "back on the baseline path after 1 step off it" in _sentences(report)
