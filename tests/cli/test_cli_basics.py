import gzip
import json
import re
import subprocess
import sys

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.cli.schema import SchemaName, schema_json

runner = CliRunner()
SCHEMA_DIR = __import__("pathlib").Path(__file__).parents[2] / "schema"


def _bad_files(tmp_path, spec_example):
    spec = json.loads(spec_example.read_text())
    dup = json.loads(spec_example.read_text())
    dup["steps"][1]["step_id"] = "step-1"
    dup["steps"][1]["parent_id"] = None
    cyc = json.loads(spec_example.read_text())
    cyc["steps"][0]["parent_id"] = "step-2"
    files = {
        "missing": (None, "file not found"),
        "empty": (b"", "file is empty"),
        "invalid": (b"{nope", "invalid JSON"),
        "latin1": ("caf\xe9".encode("latin-1"), "not UTF-8"),
        "unknown": (b'{"who": "knows"}', "no adapter recognises this document"),
        "duplicate": (json.dumps(dup).encode(), "duplicate step_id 'step-1'"),
        "cycle": (json.dumps(cyc).encode(), "parent cycle between steps"),
    }
    assert spec
    for name, (content, message) in files.items():
        path = tmp_path / f"{name}.json"
        if content is not None:
            path.write_bytes(content)
        yield name, path, message


@pytest.mark.parametrize("command", ["inspect", "convert"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, spec_example, command):
    for name, path, message in _bad_files(tmp_path, spec_example):
        result = runner.invoke(app, [command, str(path)])
        assert result.exit_code == 2, (name, result.output)
        lines = result.stderr.strip().splitlines()
        assert lines[0].startswith("error: ") and str(path) in lines[0], name
        assert message in lines[0], (name, lines)
        assert len(lines) <= 2 and all(not line.startswith("Traceback") for line in lines)
        assert result.stdout == ""


def test_unknown_adapter_lists_the_available_ones(spec_example):
    result = runner.invoke(app, ["inspect", str(spec_example), "--adapter", "nope"])
    assert result.exit_code == 2
    assert "unknown adapter 'nope'; available: generic" in result.stderr
    assert "hint: run `agentdiff adapters`" in result.stderr


def test_debug_shows_the_traceback(tmp_path):
    result = runner.invoke(app, ["--debug", "inspect", str(tmp_path / "nope.json")])
    assert result.exit_code != 0
    assert result.exception is not None


def test_usage_error_is_exit_2():
    result = runner.invoke(app, ["inspect"])
    assert result.exit_code == 2


def test_convert_sets_source_format_and_prints_json(spec_example):
    result = runner.invoke(app, ["convert", str(spec_example)])
    assert result.exit_code == 0
    data = orjson.loads(result.stdout)
    assert data["metadata"]["source_format"] == "generic"
    assert [s["step_id"] for s in data["steps"]] == ["step-1", "step-2"]


@pytest.mark.parametrize(
    "name", ["out.json", "out.jsonl", "out.ndjson", "out.json.gz", "out.jsonl.gz"]
)
def test_convert_writes_a_file_every_command_reads_back(tmp_path, name):
    """A real SDK run converted to each name: read back, it compares identical to the original."""
    real = __import__("pathlib").Path(__file__).parents[1] / "fixtures" / "real"
    source = real / "openai_agents" / "detour" / "baseline.json"
    out = tmp_path / name
    assert runner.invoke(app, ["convert", str(source), "-o", str(out)]).exit_code == 0
    raw = out.read_bytes()
    assert (raw[:2] == b"\x1f\x8b") is name.endswith(".gz")
    text = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode()
    if ".jsonl" in name or ".ndjson" in name:
        assert text.count("\n") == 1
    done = runner.invoke(app, ["compare", str(source), str(out), "--format", "json"])
    assert done.exit_code == 0, done.output
    report = orjson.loads(done.stdout)
    assert report["divergence"] == 0.0
    assert {row["op"] for row in report["alignment"]} == {"match"}


def test_inspect_terminal_shows_tree_and_totals(spec_example):
    result = runner.invoke(app, ["inspect", str(spec_example)])
    assert result.exit_code == 0
    assert "geocode_city" in result.stdout and "generate_report" in result.stdout
    assert "230 tok" in result.stdout and "1,220 ms" in result.stdout


def test_inspect_json(spec_example):
    result = runner.invoke(app, ["inspect", str(spec_example), "--format", "json"])
    data = orjson.loads(result.stdout)
    assert data["source_format"] == "generic"
    assert data["steps"][1] == {
        "step_id": "step-2",
        "parent_id": "step-1",
        "step_index": 1,
        "step_type": "llm_call",
        "name": "generate_report",
        "status": "success",
        "latency_ms": 1100.0,
        "total_tokens": 230,
        "error_message": None,
    }


def test_inspect_and_compare_agree_on_totals(spec_example):
    shown = orjson.loads(
        runner.invoke(app, ["inspect", str(spec_example), "--format", "json"]).stdout
    )["totals"]
    args = ["compare", str(spec_example), str(spec_example), "--format", "json"]
    report = orjson.loads(runner.invoke(app, args).stdout)
    assert shown == report["candidate"] == report["baseline"]
    assert shown["total_tokens"] == 230
    text = runner.invoke(app, ["inspect", str(spec_example)]).stdout
    assert re.search(r"tokens\s+230\b", text)
    assert re.search(r"latency\s+1,220 ms", text)


def test_adapters_lists_builtins_with_aliases():
    result = runner.invoke(app, ["adapters"])
    assert result.exit_code == 0
    assert "generic" in result.stdout and "canonical" in result.stdout
    assert "built-in" in result.stdout


@pytest.mark.parametrize("which", list(SchemaName))
def test_committed_schemas_are_current(which):
    stem = {
        "trace": "agent_trace",
        "report": "diff_report",
        "suite": "suite_report",
        "runs": "runs_report",
    }[which.value]
    committed = SCHEMA_DIR / f"{stem}.schema.json"
    assert committed.read_text() == schema_json(which), "run `make schema` and commit"
    result = runner.invoke(app, ["schema", which.value])
    assert result.stdout == schema_json(which)


def test_python_dash_m_runs_the_cli(spec_example):
    done = subprocess.run(
        [sys.executable, "-m", "agentdiff", "inspect", str(spec_example), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert orjson.loads(done.stdout)["trace_id"] == "run-101"


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.stdout.startswith("agentdiff ")
