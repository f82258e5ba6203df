"""`agentdiff record MODULE:FUNCTION`: N runs into a folder, errors recorded, OTel captured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff import StepStatus, load_trace
from agentdiff.cli.app import app

AGENT = """
import asyncio
from agentdiff.record import current_run, traced

CALLS = []

@traced
def get_weather(city):
    CALLS.append(city)
    return {"city": city, "temp_c": 18}

def run(task):
    get_weather(task["city"])
    if task.get("fail") and len(CALLS) % 2 == 0:
        raise RuntimeError("weather service down")
    return f"sunny in {task['city']}"

async def run_async(task):
    await asyncio.sleep(0)
    get_weather(task["city"])
    return "async ok"

def no_args():
    get_weather("Rome")
    return None

NOT_CALLABLE = 3
"""

OTEL_AGENT = """
import json
from opentelemetry import trace

tracer = trace.get_tracer("otel-agent")

def run(task):
    attrs = {"openinference.span.kind": "TOOL", "tool.name": "get_weather",
             "input.value": json.dumps({"city": task["city"]})}
    with tracer.start_as_current_span("get_weather", attributes=attrs):
        pass
    if task.get("fail"):
        raise ValueError("bad city")
    return "ok"
"""


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # the agent's folder first, then the path this test run imports agentdiff from (if set)
    given = filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))
    path = os.pathsep.join([str(tmp_path), *map(os.path.abspath, given)])
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "agentdiff", "record", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def agent_dir(tmp_path):
    (tmp_path / "weather_agent.py").write_text(AGENT)
    (tmp_path / "otel_agent.py").write_text(OTEL_AGENT)
    return tmp_path


def test_n_runs_become_numbered_trace_files_and_errors_are_runs(agent_dir):
    (agent_dir / "task.json").write_text(json.dumps({"city": "Paris", "fail": True}))
    done = cli(agent_dir, "weather_agent:run", "--input", "@task.json", "--runs", "4", "-o", "out")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (agent_dir / "out").iterdir()) == [
        "1.json",
        "2.json",
        "3.json",
        "4.json",
    ]
    assert "recorded 4 runs into out, 2 errored" in done.stderr
    assert "out/2.json: 2 steps (agentdiff.record; error: RuntimeError: weather service down)" in (
        done.stderr
    )
    assert "4/4" in done.stderr  # the progress bar
    ok, failed = load_trace(agent_dir / "out" / "1.json"), load_trace(agent_dir / "out" / "2.json")
    assert ok.task_input == {"city": "Paris", "fail": True}
    assert ok.final_output == {"value": "sunny in Paris"}
    assert [s.name for s in ok.steps] == ["get_weather"]
    assert failed.final_output is None
    assert failed.steps[-1].status is StepStatus.ERROR
    assert failed.steps[-1].error_message == "RuntimeError: weather service down"
    assert failed.metadata["run"] == 2


def test_async_callable_and_no_input(agent_dir):
    done = cli(agent_dir, "weather_agent:run_async", "--input", '{"city": "Oslo"}', "--no-otel")
    assert done.returncode == 0, done.stderr
    trace = load_trace(agent_dir / "runs" / "1.json")
    assert trace.final_output == {"value": "async ok"}
    assert trace.agent_name == "run_async"
    done = cli(agent_dir, "weather_agent:no_args", "-o", "plain", "--name", "weather")
    assert done.returncode == 0, done.stderr
    trace = load_trace(agent_dir / "plain" / "1.json")
    assert (trace.agent_name, trace.task_input, trace.final_output) == ("weather", {}, None)
    assert "1/1" not in done.stderr  # no progress bar for one run


def test_an_opentelemetry_instrumented_callable_is_captured_as_otlp(agent_dir):
    pytest.importorskip("opentelemetry.sdk")
    done = cli(agent_dir, "otel_agent:run", "--input", '{"city": "Paris"}', "--runs", "2")
    assert done.returncode == 0, done.stderr
    assert "runs/1.json: 2 steps (OpenTelemetry spans)" in done.stderr
    first = load_trace(agent_dir / "runs" / "1.json")
    second = load_trace(agent_dir / "runs" / "2.json")
    assert first.metadata["source_format"] == "openinference"
    assert [s.name for s in first.steps] == ["run", "get_weather"]
    assert first.steps[1].input_payload == {"city": "Paris"}
    assert first.trace_id != second.trace_id
    done = cli(agent_dir, "otel_agent:run", "--input", '{"city": "X", "fail": true}', "-o", "bad")
    assert done.returncode == 0, done.stderr
    failed = load_trace(agent_dir / "bad" / "1.json")
    assert failed.steps[0].status is StepStatus.ERROR
    assert "bad city" in (failed.steps[0].error_message or "")


@pytest.mark.parametrize(
    ("target", "extra", "message"),
    [
        ("weather_agent", [], "expected MODULE:FUNCTION"),
        ("no_such_module:run", [], "cannot import no_such_module"),
        ("weather_agent:missing", [], "has no attribute 'missing'"),
        ("weather_agent:NOT_CALLABLE", [], "is not callable"),
        ("weather_agent:run", ["--input", "{bad"], "--input is not valid JSON"),
        ("weather_agent:run", ["--input", "@nope.json"], "nope.json: cannot read --input"),
    ],
)
def test_bad_targets_and_inputs_are_one_line_errors(agent_dir, monkeypatch, target, extra, message):
    monkeypatch.chdir(agent_dir)
    monkeypatch.syspath_prepend(str(agent_dir))
    result = CliRunner().invoke(app, ["record", target, *extra, "--no-otel"])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_module_that_crashes_on_import_is_reported(tmp_path, monkeypatch):
    (tmp_path / "broken_agent.py").write_text("raise RuntimeError('no API key')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = CliRunner().invoke(app, ["record", "broken_agent:run", "--no-otel"])
    assert result.exit_code == 2
    assert "importing broken_agent raised RuntimeError: no API key" in result.output


def test_a_file_path_target(tmp_path, monkeypatch):
    script = tmp_path / "agents" / "my_agent.py"
    script.parent.mkdir()
    script.write_text(textwrap.dedent(AGENT))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        app, ["record", "agents/my_agent.py:run", "-i", '{"city": "Lima"}', "--no-otel"]
    )
    assert result.exit_code == 0, result.output
    assert load_trace(tmp_path / "runs" / "1.json").final_output == {"value": "sunny in Lima"}


SECRET = "sk-proj-AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHH1234"  # noqa: S105 - a fake key to redact


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import sys\nsys.exit(3)\n", "importing exits_agent raised SystemExit: 3"),
        ("import sys\nsys.exit()\n", "importing exits_agent raised SystemExit"),
        (
            f"import sys\nsys.exit('\\x1b[31mRED {SECRET} \\u202e')\n",
            "importing exits_agent raised SystemExit: \\x1b[31mRED",
        ),
        (
            "class Stop(BaseException):\n    pass\nraise Stop('stop')\n",
            "importing exits_agent raised Stop: stop",
        ),
    ],
)
def test_a_module_that_exits_on_import_is_a_one_line_exit_2(tmp_path, source, message):
    (tmp_path / "exits_agent.py").write_text(source)
    done = cli(tmp_path, "exits_agent:run", "--no-otel")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {message}"), done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert "\x1b" not in done.stderr and "\u202e" not in done.stderr
    assert "AAAABBBB" not in done.stderr
    assert not (tmp_path / "runs").exists()


BASE_EXCEPTIONS = f"""
import asyncio

class Stop(BaseException):
    pass

async def cancelled():
    raise asyncio.CancelledError()

def stops():
    raise Stop("\\x1b[31m{SECRET}")
"""


@pytest.mark.parametrize(
    ("target", "error"),
    [("cancelled", "CancelledError"), ("stops", "Stop: \\x1b[31msk-")],
)
def test_a_base_exception_from_the_agent_is_an_errored_run(tmp_path, target, error):
    (tmp_path / "base_agent.py").write_text(BASE_EXCEPTIONS)
    done = cli(tmp_path, f"base_agent:{target}", "--no-otel", "-n", "2")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "\x1b" not in done.stderr and "AAAABBBB" not in done.stderr
    assert "recorded 2 runs into runs, 2 errored" in done.stderr
    assert f"error: {error}" in done.stderr
    for number in (1, 2):
        trace = load_trace(tmp_path / "runs" / f"{number}.json")
        assert trace.steps[-1].status is StepStatus.ERROR


def test_an_earlier_recording_is_replaced_or_with_no_replace_refused(agent_dir):
    done = cli(agent_dir, "weather_agent:no_args", "-n", "3", "-o", "out", "--no-otel")
    assert done.returncode == 0, done.stderr
    (agent_dir / "out" / "notes.txt").write_text("mine")
    earlier = {p.name: p.read_bytes() for p in (agent_dir / "out").iterdir()}
    again = ("weather_agent:run", "-i", '{"city": "Oslo"}', "-n", "2", "-o", "out", "--no-otel")
    done = cli(agent_dir, *again, "--no-replace")
    assert done.returncode == 2, done.stderr
    assert "out: already holds 3 run files (1.json … 3.json) of a recording" in done.stderr
    assert "--no-replace" in done.stderr
    assert {p.name: p.read_bytes() for p in (agent_dir / "out").iterdir()} == earlier
    done = cli(agent_dir, *again)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (agent_dir / "out").iterdir()) == [
        "1.json",
        "2.json",
        "notes.txt",
    ]
    assert {load_trace(agent_dir / "out" / f"{n}.json").agent_name for n in (1, 2)} == {"run"}


def test_replace_never_removes_the_input(agent_dir):
    assert cli(agent_dir, "weather_agent:no_args", "-n", "3", "-o", "out").returncode == 0
    (agent_dir / "out" / "3.json").write_text('{"city": "Oslo"}')
    done = cli(agent_dir, "weather_agent:run", "-i", "@out/3.json", "-o", "out")
    assert done.returncode == 2, done.stderr
    assert "out/3.json: is an input of this command" in done.stderr
    assert sorted(p.name for p in (agent_dir / "out").iterdir()) == ["1.json", "2.json", "3.json"]
