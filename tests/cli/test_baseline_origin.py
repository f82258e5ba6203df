"""An approved baseline is canonical JSON that still says which format its run was recorded in.

Approving a real OpenAI Agents SDK or OpenInference run wrote `source_format` "generic" (or
nothing), so `inspect` and every report showed the baseline as "generic" next to a candidate in
its true format. The written file keeps `metadata.source_format`, and canonical JSON that names a
format is read back as that format.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff.baselines import VIA_PYTEST, save_baseline
from agentdiff.cli.app import app
from agentdiff.errors import MultipleTracesError
from agentdiff.loader import load_trace, parse_trace_data
from tests.baseline_env import isolate

REAL = Path(__file__).parents[1] / "fixtures" / "real"
RUNS = {
    "openai_agents": REAL / "openai_agents" / "detour",
    "openinference": REAL / "openinference" / "detour",
}
FILES = {"openai_agents": "{}.json", "openinference": "{}.otlp_jsonl.jsonl"}
runner = CliRunner()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path)


def run(fmt: str, which: str) -> Path:
    return RUNS[fmt] / FILES[fmt].format(which)


def cli(*args: str):
    return runner.invoke(app, list(args))


def document(path: Path) -> dict:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


@pytest.mark.parametrize("fmt", sorted(RUNS))
@pytest.mark.parametrize("name", ["agent.json", "agent.jsonl.gz"])
def test_an_approved_baseline_keeps_the_format_its_run_was_recorded_in(tmp_path, fmt, name):
    baseline = tmp_path / "baselines" / name
    done = cli("approve", str(run(fmt, "baseline")), "--baseline", str(baseline))
    assert done.exit_code == 0, done.output
    data = document(baseline)
    assert data["schema_version"] and isinstance(data["steps"], list)  # canonical JSON
    assert data["metadata"]["source_format"] == fmt
    assert load_trace(baseline).metadata["source_format"] == fmt
    shown = cli("inspect", str(baseline), "--format", "json")
    assert json.loads(shown.stdout)["source_format"] == fmt
    report = cli("compare", str(baseline), str(run(fmt, "candidate")), "--format", "json")
    assert json.loads(report.stdout)["baseline"]["source_format"] == fmt


def test_replacing_a_baseline_keeps_the_candidates_format_in_every_report(tmp_path):
    baseline = tmp_path / "agent.json"
    cli("approve", str(run("openai_agents", "baseline")), "--baseline", str(baseline))
    forced = cli(
        "approve", str(run("openai_agents", "candidate")), "--baseline", str(baseline), "--force"
    )
    assert forced.exit_code == 0, forced.output
    assert document(baseline)["metadata"]["source_format"] == "openai_agents"
    shown = cli("compare", str(baseline), str(run("openai_agents", "candidate")))
    assert shown.output.count("openai_agents") == 2  # the baseline's row and the candidate's
    assert "generic" not in shown.output


def test_compare_update_baseline_and_the_library_keep_the_format_too(tmp_path):
    baseline = tmp_path / "agent.json"
    save_baseline(baseline, load_trace(run("openinference", "baseline")), via=VIA_PYTEST)
    assert load_trace(baseline).metadata["source_format"] == "openinference"
    candidate = run("openinference", "candidate")
    done = cli("compare", str(baseline), str(candidate), "--update-baseline", "--force")
    assert f"baseline approved: {baseline}" in done.output  # exit 1: the gate failed, as it says
    assert load_trace(baseline).metadata["source_format"] == "openinference"


def test_convert_output_reads_back_as_the_format_it_was_converted_from(tmp_path):
    out = tmp_path / "canonical.jsonl"
    assert cli("convert", str(run("openai_agents", "baseline")), "-o", str(out)).exit_code == 0
    assert load_trace(out).metadata["source_format"] == "openai_agents"


@pytest.mark.parametrize("named", [None, 5, "", "two words", "\x1b[31mred", "x" * 65])
def test_canonical_json_naming_no_format_name_reads_as_generic(named):
    data = json.loads(run("openai_agents", "baseline").read_text())
    trace = parse_trace_data(data)
    canonical = trace.model_dump(mode="json")
    canonical["metadata"]["source_format"] = named
    assert parse_trace_data(canonical).metadata["source_format"] == "generic"
    raw = json.dumps(canonical).encode()
    assert parse_trace_data(json.loads(raw)).metadata["source_format"] == "generic"


@pytest.mark.parametrize("name", ["agent.json", "agent.jsonl"])
def test_a_named_format_never_lets_a_wrong_trace_id_through(tmp_path, name):
    baseline = tmp_path / name
    cli("approve", str(run("openai_agents", "baseline")), "--baseline", str(baseline))
    trace = load_trace(baseline)
    assert load_trace(baseline, trace_id=trace.trace_id).trace_id == trace.trace_id
    with pytest.raises(MultipleTracesError, match="no trace 'nope' in this document"):
        load_trace(baseline, trace_id="nope")
