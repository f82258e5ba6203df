"""Totals that cover only some model turns say so, and a model's calls are never '0 LLM calls'
beside a run that called it — in `inspect` as in `compare` (a fresh reader's review)."""

import re

from typer.testing import CliRunner

from agentdiff import compare
from agentdiff.cli.app import app
from agentdiff.models.trace import AgentTrace
from agentdiff.render import render
from agentdiff.render.view import report_view
from tests.diff.builders import step, trace
from tests.realdata import RealSource

runner = CliRunner()


def _turns(tokens: list[int | None], prefix: str) -> AgentTrace:
    """One `llm_call` per entry, with that many tokens (None: it reports none)."""
    steps = [
        step(
            i,
            "llm_call",
            "gpt-4o-mini",
            prefix=prefix,
            tokens=None if n is None else {"prompt_tokens": n - 10, "completion_tokens": 10},
        )
        for i, n in enumerate(tokens)
    ]
    return trace(steps, trace_id=prefix)


def test_inspect_names_the_model_turns_of_a_run_without_llm_call_steps(tmp_path):
    """A real LangGraph run: the facts of the live run count 6 calls to the model."""
    source = RealSource("langgraph")
    path = source.path("messages", "loop", "candidate")
    calls = source.facts("loop", "candidate")["llm_calls"]
    shown = runner.invoke(app, ["inspect", str(path)]).stdout
    assert re.search(rf"model turns\s+{calls}\b", shown)
    assert "LLM calls" not in shown


def test_inspect_says_how_many_turns_a_partial_total_covers(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(_turns([None, 100], "c").model_dump_json())
    shown = runner.invoke(app, ["inspect", str(path)]).stdout
    assert re.search(r"tokens\s+100 \(1 of 2 model turns reports tokens\)", shown)
    assert re.search(r"cost\s+\$0\.\d+ \(estimated; 1 of 2 model turns priced\)", shown)
    complete = tmp_path / "complete.json"
    complete.write_text(_turns([100, 100], "b").model_dump_json())
    assert re.search(
        r"tokens\s+200\s*$", runner.invoke(app, ["inspect", str(complete)]).stdout, re.MULTILINE
    )


def test_deltas_mark_a_side_whose_totals_cover_some_turns_only():
    """200 → 100 is no halving when the candidate's second turn reported nothing."""
    report = compare(_turns([100, 100], "b"), _turns([None, 100], "c"))
    rows = {row[0]: row[1:3] for row in report_view(report).deltas}
    assert rows["total tokens"] == ("200", "100 (partial)")
    assert rows["prompt tokens"] == ("180", "90 (partial)")
    assert "partial" not in rows["cost"][0] and rows["cost"][1].endswith(" (partial)")
    assert rows["steps"] == ("2", "2")
    for fmt in ("terminal", "markdown", "html"):
        assert "100 (partial)" in render(report, fmt, width=400), fmt
    full = report_view(compare(_turns([100, 100], "b"), _turns([100, 100], "c")))
    assert not any("partial" in cell for row in full.deltas for cell in row)
