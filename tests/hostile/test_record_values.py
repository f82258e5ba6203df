"""`agentdiff.record`: whatever Python values an agent hands it, the run file loads again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentdiff import load_trace
from agentdiff.limits import MAX_DEPTH
from agentdiff.record import current_run, record_run, traced
from agentdiff.record.step import CUT

from .helpers import agent_module, cli, nested, refused


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _nested_list(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


@traced
def lookup(query: Any) -> Any:
    return query


def test_values_no_trace_file_holds_are_recorded_as_ones_it_does(tmp_path):
    path = tmp_path / "run.json"
    with record_run("agent", task_input={"q": "bad \ud800 text", "\udfff": 1}, path=path) as run:
        lookup({"big": 10**30, "huge": 10**400, "small": -(2**63) - 1})
        lookup(nested(500))  # past what pydantic's serializer recurses into
        lookup(_nested_list(MAX_DEPTH + 10))  # past the loader's limit, within orjson's
        lookup(json.dumps(nested(300)))  # JSON text, parsed into a payload
        run.final_output = {"answer": "x\ud83d"}
    trace = load_trace(path)  # the file loads: none of it broke the write or the reader
    assert trace.task_input == {"q": "bad \\ud800 text", "\\udfff": 1}
    assert trace.final_output == {"answer": "x\\ud83d"}
    numbers = trace.steps[0].output_payload
    assert numbers == {"big": 1e30, "huge": "[an integer of 1329 bits]", "small": -(2.0**63) - 1}
    deep = [s.input_payload for s in trace.steps[1:3]] + [s.output_payload for s in trace.steps[1:]]
    for value in deep:
        assert _depth(value) == MAX_DEPTH
        assert CUT in json.dumps(value)


@pytest.mark.parametrize("levels", [MAX_DEPTH - 1, MAX_DEPTH])
def test_data_within_the_limit_is_kept_whole(tmp_path, levels):
    path = tmp_path / "run.json"
    with record_run("agent", path=path) as run, run.step("tool_call", "d", nested(levels)) as step:
        step.output = _nested_list(levels - 1)  # wrapped as {"value": [...]}
    step_ = load_trace(path).steps[0]
    assert step_.input_payload == nested(levels)
    assert step_.output_payload == {"value": _nested_list(levels - 1)}


AGENT = """
from agentdiff.record import current_run

def deep(task=None):
    value = 1
    for _ in range(300):
        value = {"a": value}
    return value

def exits(task=None):
    import sys
    sys.exit(3)

def misuse(task=None):
    with current_run().step("tool_call", "lookup") as step:
        step.status = "finished"
    return 1
"""


@pytest.fixture
def agent(tmp_path, monkeypatch):
    return agent_module(tmp_path, monkeypatch, "values_agent", AGENT)


def test_record_writes_a_deep_result_as_a_file_that_loads(agent: Path):
    done = cli("record", "values_agent:deep", "--no-otel", "-o", "runs")
    assert done.code == 0, done.stderr
    assert _depth(load_trace(agent / "runs" / "1.json").final_output) == MAX_DEPTH


def test_a_recording_the_agent_broke_is_an_input_error(agent: Path):
    done = cli("record", "values_agent:misuse", "--no-otel", "-o", "runs")
    refused(done, "run 1 could not be recorded", "'finished' is not a valid StepStatus")
    assert current_run() is None


def test_an_agent_that_exits_is_an_errored_run_not_the_end_of_the_command(agent: Path):
    done = cli("record", "values_agent:exits", "--no-otel", "-o", "runs", "--runs", "2")
    assert done.code == 0, done.stderr
    assert "recorded 2 runs into runs, 2 errored" in done.stderr
    for number in (1, 2):
        trace = load_trace(agent / "runs" / f"{number}.json")
        assert trace.metadata["error"] == "SystemExit: 3"
