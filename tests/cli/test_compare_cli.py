"""`agentdiff compare`: exit codes 0/1/2, gate flags, config errors, formats, baseline updates."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff import files as cli_output
from agentdiff.cli.app import app
from agentdiff.cli.errors import state
from agentdiff.config import SETTINGS
from agentdiff.loader import load_trace

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "langfuse"
runner = CliRunner()


def pair(scenario: str) -> tuple[str, str]:
    return str(REAL / scenario / "baseline.json"), str(REAL / scenario / "candidate.json")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(state, "debug", False)  # other tests run `--debug`, which sticks


def invoke(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(app, ["compare", *args], env=env)


def test_exit_0_when_no_regression():
    result = invoke(*pair("identical"))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("PASSED  No loops. No cost spike. Trajectory within budget.")
    assert "\x1b[" not in result.stdout


def test_exit_1_on_regression():
    result = invoke(*pair("loop"))
    assert result.exit_code == 1
    assert "Blocked by: tool loop get_weather ×4" in result.stdout


def test_exit_2_on_bad_input(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    result = invoke(pair("loop")[0], str(bad))
    assert result.exit_code == 2
    assert "invalid JSON" in result.stderr


@pytest.mark.parametrize("value", ["lots", "2"])
def test_exit_2_on_a_bad_flag_value(value):
    """One line: the range, the value and the flag (out of range it was pydantic's words)."""
    result = invoke(*pair("identical"), "--max-divergence", value)
    assert result.exit_code == 2
    said = "flag --max-divergence: max_divergence must be a number from 0 to 1, or 'off', got"
    assert result.stderr.splitlines()[0] == f"error: {said} {value!r}"


def test_exit_2_on_a_misspelt_config_key(tmp_path):
    (tmp_path / "agentdiff.toml").write_text("[gate]\nmax_divergnce = 0.3\n")
    result = invoke(*pair("identical"))
    assert result.exit_code == 2
    assert "max_divergnce" in result.stderr
    assert "agentdiff.toml" in result.stderr


def test_flags_relax_the_gate():
    relaxed = invoke(
        *pair("loop"),
        "--allow-loops",
        "--max-cost-increase",
        "off",
        "--max-token-increase",
        "300",
    )
    assert relaxed.exit_code == 0, relaxed.output
    assert "warning: tool loop get_weather ×4" in relaxed.stdout


def test_env_and_file_feed_the_gate(tmp_path):
    (tmp_path / "agentdiff.toml").write_text(
        "[gate]\nallow_loops = true\nmax_cost_increase = 'off'\n"
    )
    env = {"AGENTDIFF_MAX_TOKEN_INCREASE": "300"}
    assert invoke(*pair("loop"), env=env).exit_code == 0
    assert invoke(*pair("loop"), "--max-token-increase", "10", env=env).exit_code == 1
    assert invoke(*pair("loop"), "--no-allow-loops", env=env).exit_code == 1


def test_tool_repeat_cap_flag():
    result = invoke(*pair("identical"), "--max-tool-repeats", "0")
    assert result.exit_code == 2  # the cap is at least 1
    assert "max_tool_repeats" in result.stderr
    assert (
        invoke(
            *pair("detour"),
            "--max-tool-repeats",
            "1",
            "--max-cost-increase",
            "off",
            "--max-token-increase",
            "off",
        ).exit_code
        == 0
    )
    looping = invoke(
        *pair("loop"),
        "--allow-loops",
        "--max-tool-repeats",
        "2",
        "--max-cost-increase",
        "off",
        "--max-token-increase",
        "off",
    )
    assert looping.exit_code == 1
    assert "tool get_weather called 4 times (limit 2)" in looping.stdout


@pytest.mark.parametrize("fmt", ["json", "markdown", "html", "junit", "terminal"])
def test_every_format_writes_to_a_file(tmp_path, fmt):
    out = tmp_path / f"report.{fmt}"
    result = invoke(*pair("loop"), "--format", fmt, "-o", str(out))
    assert result.exit_code == 1
    assert result.stdout.count("\n") == 1  # only the one-line verdict
    assert result.stdout.startswith("FAILED  Blocked by:")
    assert out.read_text()


def test_junit_reports_an_input_error_as_error(tmp_path):
    out = tmp_path / "junit.xml"
    result = invoke(pair("loop")[0], str(tmp_path / "missing.json"), "-f", "junit", "-o", str(out))
    assert result.exit_code == 2
    root = ET.fromstring(out.read_text())  # noqa: S314 - our own output
    assert root.get("errors") == "1"
    assert "file not found" in root.find(".//error").get("message")


def test_junit_reports_an_input_error_in_its_report_shape(tmp_path):
    """Its input error has the root element and XML declaration of its report, as parsed."""
    report, error = tmp_path / "report.xml", tmp_path / "error.xml"
    assert invoke(*pair("loop"), "-f", "junit", "-o", str(report)).exit_code == 1
    missing = str(tmp_path / "missing.json")
    assert invoke(pair("loop")[0], missing, "-f", "junit", "-o", str(error)).exit_code == 2
    shapes = []
    for path in (report, error):
        text = path.read_text()
        shapes.append((text.splitlines()[0], ET.fromstring(text).tag))  # noqa: S314 - ours
    assert shapes[0] == shapes[1] == ('<?xml version="1.0" encoding="UTF-8"?>', "testsuites")


def copy_pair(tmp_path: Path, scenario: str) -> tuple[Path, Path]:
    base, cand = (Path(p) for p in pair(scenario))
    shutil.copy(base, tmp_path / "baseline.json")
    return tmp_path / "baseline.json", cand


def essence(path: Path) -> dict:
    """The trace as written, less what a baseline write adds (provenance; generic format)."""
    trace = load_trace(path).model_dump(mode="json")
    trace["metadata"].pop("provenance", None)
    trace["metadata"].pop("source_format")
    return trace


def test_update_baseline_writes_the_candidate_as_canonical_json(tmp_path):
    base, cand = copy_pair(tmp_path, "reworded")
    result = invoke(str(base), str(cand), "--update-baseline")
    assert result.exit_code == 0
    assert essence(base) == essence(cand)
    assert base.read_text().startswith('{\n  "schema_version"')  # canonical JSON
    assert load_trace(base).steps == load_trace(cand).steps
    provenance = load_trace(base).metadata["provenance"]
    assert provenance["via"] == "agentdiff compare --update-baseline"
    assert provenance["candidate"] == str(cand)
    assert "baseline approved:" in result.stderr
    assert list(tmp_path.glob(".baseline.json.*")) == []


def test_update_baseline_refuses_when_the_gate_failed_unless_forced(tmp_path):
    base, cand = copy_pair(tmp_path, "loop")
    before = base.read_bytes()
    refused = invoke(str(base), str(cand), "--update-baseline")
    assert refused.exit_code == 1
    assert "not approved: the gate failed: tool loop get_weather ×4" in refused.stderr
    assert "not approved: new tool loop get_weather ×4" in refused.stderr
    assert base.read_bytes() == before
    forced = invoke(str(base), str(cand), "--update-baseline", "--force")
    assert forced.exit_code == 1  # the gate still failed; the baseline was accepted anyway
    assert "overridden by --force: the gate failed" in forced.stderr
    assert essence(base) == essence(cand)
    assert base.read_text().startswith('{\n  "schema_version"')  # canonical JSON


def test_update_baseline_never_when_the_candidate_fails_to_load(tmp_path):
    base, _ = copy_pair(tmp_path, "loop")
    before = base.read_bytes()
    bad = tmp_path / "candidate.json"
    bad.write_text('{"half": ')
    result = invoke(str(base), str(bad), "--update-baseline", "--force")
    assert result.exit_code == 2
    assert base.read_bytes() == before


def test_a_failure_mid_write_leaves_the_old_baseline_intact(tmp_path, monkeypatch):
    base, cand = copy_pair(tmp_path, "reworded")
    before = base.read_bytes()
    real_fdopen = cli_output.os.fdopen

    class Exploding:
        def __init__(self, handle, *args, **kwargs):
            self.file = real_fdopen(handle, *args, **kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, text):
            self.file.write(text[: len(text) // 2])
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli_output.os, "fdopen", Exploding)
    result = invoke(str(base), str(cand), "--update-baseline")
    assert result.exit_code == 2
    assert "No space left on device" in result.stderr
    assert base.read_bytes() == before
    assert list(tmp_path.glob(".baseline.json.*")) == []


def test_atomic_write_keeps_permissions(tmp_path):
    from agentdiff.files import write_atomically

    fresh = tmp_path / "new.json"
    write_atomically(fresh, "{}")
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~_umask()
    kept = tmp_path / "kept.json"
    kept.write_text("old")
    kept.chmod(0o640)
    write_atomically(kept, "new")
    assert (kept.read_text(), kept.stat().st_mode & 0o777) == ("new", 0o640)


def _umask():
    import os

    current = os.umask(0)
    os.umask(current)
    return current


OTEL = Path(__file__).parents[1] / "fixtures" / "real" / "openinference" / "loop"


def _both_runs_in_one_file(tmp_path: Path) -> tuple[Path, str, str]:
    """One span-JSON file holding the baseline and the candidate run (two trace ids)."""
    base = orjson.loads((OTEL / "baseline.spans.json").read_bytes())
    cand = orjson.loads((OTEL / "candidate.spans.json").read_bytes())
    both = tmp_path / "both.json"
    both.write_bytes(orjson.dumps(base + cand))
    return (
        both,
        load_trace(OTEL / "baseline.spans.json").trace_id,
        load_trace(OTEL / "candidate.spans.json").trace_id,
    )


def test_trace_ids_pick_each_side_from_a_file_with_several(tmp_path):
    both, base_id, cand_id = _both_runs_in_one_file(tmp_path)
    refused = invoke(str(both), str(both))
    assert refused.exit_code == 2
    assert "--trace-id" in refused.stderr
    result = invoke(
        str(both),
        str(both),
        "--baseline-trace-id",
        base_id,
        "--candidate-trace-id",
        cand_id,
        "--format",
        "json",
    )
    assert result.exit_code == 1, result.output
    report = orjson.loads(result.stdout)
    assert (report["baseline"]["trace_id"], report["candidate"]["trace_id"]) == (base_id, cand_id)
    assert report["loops"]
    same = invoke(str(both), str(both), "--trace-id", base_id, "--format", "json")
    assert same.exit_code == 0, same.output
    assert orjson.loads(same.stdout)["candidate"]["trace_id"] == base_id


def test_output_file_still_prints_the_verdict(tmp_path):
    out = tmp_path / "reports" / "nested" / "report.html"
    result = invoke(*pair("loop"), "--format", "html", "-o", str(out))
    assert result.exit_code == 1
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("FAILED  Blocked by: tool loop get_weather ×4")
    assert lines[0].endswith(f"(report: {out})")


def test_output_into_a_folder_that_cannot_exist_says_why(tmp_path):
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    result = invoke(*pair("loop"), "-o", str(blocker / "sub" / "report.txt"))
    assert result.exit_code == 2
    assert f"cannot create the folder {blocker / 'sub'}: {blocker} exists and is not a folder" in (
        result.stderr
    )
    assert blocker.read_text() == "a file, not a folder"


def test_thresholds_name_where_each_came_from(tmp_path):
    (tmp_path / "agentdiff.toml").write_text("[gate]\nmax_latency_increase = 80\n")
    result = invoke(
        *pair("identical"),
        "--max-divergence",
        "0.3",
        "--format",
        "json",
        env={"AGENTDIFF_MAX_COST_INCREASE": "40"},
    )
    assert result.exit_code == 0, result.output
    sources = {
        t["setting"]: (t["value"], t["source"]) for t in orjson.loads(result.stdout)["thresholds"]
    }
    assert sources["max_divergence"] == (0.3, "flag --max-divergence")
    assert sources["max_cost_increase"] == (40.0, "env AGENTDIFF_MAX_COST_INCREASE")
    assert sources["max_latency_increase"] == (80.0, f"{tmp_path / 'agentdiff.toml'} [gate]")
    assert sources["max_token_increase"] == (25.0, "default")
    text = invoke(*pair("identical"), "--max-divergence", "0.3").stdout
    assert "thresholds: max_divergence 0.3 (flag --max-divergence)" in text
