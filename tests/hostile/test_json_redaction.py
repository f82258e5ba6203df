"""`--redact` works for every JSON report as for `compare --format json`: `compare-runs`,
`routes`, `suite` and `sessions` keep their data as is by default and redact one credential of
each kind when asked (in values and in keys, such as a scenario named after a token); the
suite's human-facing formats redact by default, as `compare`'s do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import claude_home, cli, run_folder
from .secrets import AWS_SECRET, BEARER, PATTERN_SECRETS

SHOWN = [*PATTERN_SECRETS.values(), BEARER, AWS_SECRET]
"""One credential of each kind that can reach these reports (they hold no payloads)."""
FRAGMENTS = [s.split("\n")[1] if "\n" in s else s[-12:] for s in SHOWN]


def _leaks(text: str) -> list[str]:
    return [fragment for fragment in FRAGMENTS if fragment in text]


def _runs(folder: Path, tool: str) -> Path:
    return run_folder(
        folder,
        3,
        trace_id=f"-{PATTERN_SECRETS['openai']}",
        scenario=f"scenario {PATTERN_SECRETS['github']}",
        step_name=f"{tool} {' '.join(SHOWN)}",
    )


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    return _runs(tmp_path / "base", "tool"), _runs(tmp_path / "cand", "other")


COMMANDS = {
    "compare-runs": ["compare-runs"],
    "routes": ["routes", "--scenario-key", "metadata.scenario"],
    "suite": ["suite"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_runs_json_keeps_data_unless_redact_is_asked_for(folders, command):
    args = [*COMMANDS[command], *folders, "--format", "json"]
    plain = cli(*args)
    assert plain.code in (0, 1), plain.stderr
    assert _leaks(plain.stdout) == FRAGMENTS  # every kind reaches the report
    redacted = cli(*args, "--redact")
    assert redacted.code == plain.code
    assert _leaks(redacted.stdout) == []
    assert "[redacted:" in redacted.stdout
    assert json.loads(redacted.stdout).keys() == json.loads(plain.stdout).keys()


@pytest.mark.parametrize("command", list(COMMANDS))
def test_runs_json_redacts_from_the_config_and_into_files(folders, command, tmp_path):
    target = tmp_path / "report.json"
    args = [*COMMANDS[command], *folders, "-o", f"json={target}"]
    outcome = cli(*args, env={"AGENTDIFF_REDACT": "true"})
    assert outcome.code in (0, 1), outcome.stderr
    assert _leaks(target.read_text()) == []
    assert "[redacted:" in target.read_text()


@pytest.fixture
def leaky_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME holding one Claude Code session whose `cwd` holds a credential of each kind."""
    return claude_home(tmp_path, monkeypatch, "", lambda cwd: f"{cwd} {' '.join(SHOWN)}")


def test_sessions_json_keeps_data_unless_redact_is_asked_for(leaky_home):
    plain = cli("sessions", "--format", "json")
    assert plain.code == 0, plain.stderr
    assert _leaks(plain.stdout) == FRAGMENTS
    redacted = cli("sessions", "--format", "json", "--redact")
    assert _leaks(redacted.stdout) == []
    assert "[redacted:" in json.loads(redacted.stdout)[0]["project"]


def test_sessions_table_redacts_unless_no_redact(leaky_home):
    wide = {"COLUMNS": "2000"}
    shown = cli("sessions", env=wide)
    assert shown.code == 0, shown.stderr
    assert _leaks(shown.stdout) == []
    assert "[redacted:" in shown.stdout
    assert _leaks(cli("sessions", "--no-redact", env=wide).stdout)


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html", "junit"])
def test_suite_human_reports_redact_unless_no_redact(folders, fmt):
    """The first divergence names a step whose name holds a credential of each kind."""
    args = ["suite", *folders, "--format", fmt, "--max-divergence", "0"]
    shown = cli(*args, env={"COLUMNS": "2000"})
    assert shown.code == 1, shown.stderr
    assert "first divergence" in shown.stdout
    assert _leaks(shown.stdout) == []
    assert "redacted:" in shown.stdout
    assert _leaks(cli(*args, "--no-redact", env={"COLUMNS": "2000"}).stdout)
