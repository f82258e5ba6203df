"""The adapter contract, checked on every shape of every fixture manifest.

Each `tests/fixtures/real/<source>/manifest.json` names its shapes and the adapter that reads
them; a new format adds one manifest and is checked here with no new test code:

- auto-detection picks the manifest's adapter and gives the same trace as forcing it;
- the adapter claims no document of another adapter (real fixtures and, when present, the
  shared reference set);
- the tool calls match the facts recorded inside the live run (names, arguments, outcomes), and
  the only failed steps are the tool calls that failed;
- the model turns match the live run's LLM calls;
- the identical pair of runs diffs to 0;
- a garbled (truncated) file is a one-line error naming the file, exit 2, auto-detected or forced.

Source-specific behaviour (tokens, tree shape, timing, names) stays in each adapter's tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.realdata import (
    SCENARIOS,
    SIDES,
    RealSource,
    check_tool_outcomes,
    document_id,
    other_documents,
    real_sources,
    tool_steps,
)
from typer.testing import CliRunner

from agentdiff import compare
from agentdiff.adapters.registry import get_adapter
from agentdiff.cli.app import app
from agentdiff.loader import load_trace, read_document
from agentdiff.models.report import ON_PATH
from agentdiff.models.trace import StepStatus

SOURCES = real_sources()
SHAPES = [(source, shape) for source in SOURCES for shape in source.shapes]
CASES = [
    (source, shape, scenario, side)
    for source, shape in SHAPES
    for scenario in SCENARIOS
    for side in SIDES
]
ADAPTERS = sorted({source.manifest["shapes"][shape]["adapter"] for source, shape in SHAPES})
runner = CliRunner()


def _adapter(source: RealSource, shape: str) -> str:
    name: str = source.manifest["shapes"][shape]["adapter"]
    return name


def _case_id(case: tuple[Any, ...]) -> str:
    return "-".join(c.name if isinstance(c, RealSource) else str(c) for c in case)


def test_every_manifest_shape_has_every_scenario() -> None:
    assert {s.name for s in SOURCES} >= {"crewai", "langfuse", "langsmith", "openai_agents"}
    missing = [_case_id(c) for c in CASES if not c[0].path(*c[1:]).exists()]
    assert missing == []


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_auto_detect_equals_forced(case: tuple[RealSource, str, str, str]) -> None:
    source, shape, scenario, side = case
    adapter = _adapter(source, shape)
    auto = source.load(shape, scenario, side)
    forced = load_trace(source.path(shape, scenario, side), adapter_name=adapter)
    assert auto.metadata is not None
    assert auto.metadata["source_format"] == adapter
    assert auto.model_dump() == forced.model_dump()


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_claims_no_other_sources_files(adapter: str) -> None:
    others = other_documents(adapter)
    assert others, "nothing to check against"
    detect = get_adapter(adapter).detect
    assert [document_id(p) for p in others if detect(read_document(p))] == []


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_tool_calls_match_the_live_run(case: tuple[RealSource, str, str, str]) -> None:
    source, shape, scenario, side = case
    calls = source.facts(scenario, side)["tool_calls"]
    trace = source.load(shape, scenario, side)
    tools = tool_steps(trace)
    expected = [f"{c['agent']}/{c['name']}" if c.get("agent") else c["name"] for c in calls]
    assert [s.name for s in tools] == expected
    assert [s.input_payload for s in tools] == [c["arguments"] for c in calls]
    check_tool_outcomes(tools, calls)
    assert all(s.output_payload for s, c in zip(tools, calls, strict=True) if c["error"] is None)
    failed = [s for s in trace.steps if s.status is StepStatus.ERROR]
    assert failed == [s for s, c in zip(tools, calls, strict=True) if c["error"]]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_model_turns_match_the_live_run(case: tuple[RealSource, str, str, str]) -> None:
    """Every call to the model is a model turn, whatever step type the source maps it to."""
    source, shape, scenario, side = case
    facts = source.facts(scenario, side)
    trace = source.load(shape, scenario, side)
    assert compare(trace, trace).baseline.model_turns == facts["llm_calls"]


@pytest.mark.parametrize("shape_of", SHAPES, ids=_case_id)
def test_identical_pair_diffs_to_zero(shape_of: tuple[RealSource, str]) -> None:
    source, shape = shape_of
    report = compare(*(source.load(shape, "identical", side) for side in SIDES))
    assert report.divergence == 0.0
    assert report.first_divergence is None
    assert {e.op for e in report.alignment} <= ON_PATH
    assert report.loops == []


@pytest.mark.parametrize("shape_of", SHAPES, ids=_case_id)
@pytest.mark.parametrize("forced", [False, True], ids=["detected", "forced"])
def test_garbled_file_is_exit_2_naming_it(
    shape_of: tuple[RealSource, str], forced: bool, tmp_path: Path
) -> None:
    source, shape = shape_of
    text = source.path(shape, "detour", "candidate").read_text(encoding="utf-8")
    broken = tmp_path / f"garbled.{shape}.json"
    broken.write_text(text[: len(text) // 2], encoding="utf-8")
    args = ["convert", str(broken)] + (["--adapter", _adapter(source, shape)] if forced else [])
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("error: ")
    assert str(broken) in lines[0]
    assert not any(line.startswith("Traceback") for line in lines)
    assert result.stdout == ""
