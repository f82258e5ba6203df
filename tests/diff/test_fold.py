"""`fold_framework_steps`: LangChain plumbing folded into its parent, on real captures."""

from __future__ import annotations

from typer.testing import CliRunner

from agentdiff import compare
from agentdiff.cli.app import app
from agentdiff.diff.fold import fold_framework_steps, is_framework_step
from agentdiff.diff.options import CompareOptions
from agentdiff.models.trace import StepType
from tests.realdata import RealSource, tool_steps

LANGSMITH, OI, LANGFUSE = (
    RealSource("langsmith"),
    RealSource("openinference"),
    RealSource("langfuse"),
)
runner = CliRunner()


def test_plumbing_is_folded_and_everything_else_kept() -> None:
    for source, shape in ((LANGSMITH, "nested"), (OI, "spans")):
        trace = source.load(shape, "detour", "candidate")
        folded = fold_framework_steps(trace)
        names = {s.name for s in folded.steps}
        assert not names & {"RunnableSequence", "Prompt", "should_continue"}
        assert {"agent", "tools", "call_model"} <= names  # graph nodes stay
        assert [(s.name, s.input_payload) for s in tool_steps(folded)] == [
            (s.name, s.input_payload) for s in tool_steps(trace)
        ]
        assert [s.step_index for s in folded.steps] == list(range(len(folded.steps)))
        ids = {s.step_id for s in folded.steps}
        assert all(s.parent_id is None or s.parent_id in ids for s in folded.steps)
        dropped = len(trace.steps) - len(folded.steps)
        assert dropped == sum(map(is_framework_step, trace.steps)) == 12
        assert (folded.metadata or {})["folded_framework_steps"] == dropped


def test_other_sources_are_left_alone() -> None:
    trace = LANGFUSE.load("json", "detour", "candidate")
    assert fold_framework_steps(trace) is trace


def test_off_by_default_and_on_by_option_or_flag() -> None:
    base, cand = (LANGSMITH.load("nested", "detour", side) for side in ("baseline", "candidate"))
    plain = compare(base, cand)
    folded = compare(base, cand, options=CompareOptions(fold_framework_steps=True))
    assert plain.candidate.steps == len(cand.steps)
    assert folded.candidate.steps < plain.candidate.steps
    assert folded.candidate.tool_calls == plain.candidate.tool_calls
    assert folded.candidate.model_turns == plain.candidate.model_turns
    paths = [str(LANGSMITH.path("nested", "detour", side)) for side in ("baseline", "candidate")]
    result = runner.invoke(app, ["compare", *paths, "--fold-framework-steps", "-f", "json"])
    assert '"steps": 19' in result.stdout
    tree = runner.invoke(app, ["inspect", paths[1], "--fold-framework-steps"])
    assert "RunnableSequence" not in tree.stdout
    assert StepType.TOOL_CALL.value in tree.stdout
