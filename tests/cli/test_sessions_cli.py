"""`agentdiff sessions` and `claude:<id>` / `codex:<id>` references, with HOME isolated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from tests.realdata import REAL

runner = CliRunner()


def _claude_id(side: str) -> str:
    facts = json.loads((REAL / "claude_code" / "loop" / f"{side}.facts.json").read_text())
    return str(facts["session_id"])


def _codex_name(side: str) -> str:
    facts = json.loads((REAL / "codex" / "loop" / f"{side}.facts.json").read_text())
    return str(facts["rollout"])


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME with the loop pair of each agent laid out as the CLIs lay them out."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    project = tmp_path / ".claude" / "projects" / "-home-user-project"
    rollouts = tmp_path / ".codex" / "sessions" / "2026" / "12" / "01"
    project.mkdir(parents=True)
    rollouts.mkdir(parents=True)
    for side in ("baseline", "candidate"):
        source = REAL / "claude_code" / "loop" / f"{side}.session.jsonl"
        shutil.copy(source, project / f"{_claude_id(side)}.jsonl")
        shutil.copytree(source.with_suffix(""), project / _claude_id(side))
        shutil.copy(REAL / "codex" / "loop" / f"{side}.rollout.jsonl", rollouts / _codex_name(side))
    return tmp_path


def test_sessions_lists_both_agents_with_totals(homes: Path) -> None:
    result = runner.invoke(app, ["sessions", "--format", "json"])
    assert result.exit_code == 0, result.output
    found = {row["reference"]: row for row in json.loads(result.output)}
    assert f"claude:{_claude_id('candidate')}" in found
    row = found[f"claude:{_claude_id('candidate')}"]
    facts = json.loads((REAL / "claude_code" / "loop" / "candidate.facts.json").read_text())
    assert row["total_tokens"] == facts["total_tokens"]
    assert row["project"] == "/home/user/project"
    assert sum(r["agent"] == "codex" for r in found.values()) == 2


def test_sessions_honours_the_config_dir_variables(
    homes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(homes / "elsewhere"))
    monkeypatch.setenv("CODEX_HOME", str(homes / ".codex"))
    result = runner.invoke(app, ["sessions", "--format", "json"])
    assert {row["agent"] for row in json.loads(result.output)} == {"codex"}


def test_sessions_in_a_folder_and_the_table(homes: Path) -> None:
    result = runner.invoke(app, ["sessions", str(homes / ".claude"), "--limit", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.count("claude:") == 1
    assert "codex:" not in result.output


def test_compare_two_sessions_by_reference(homes: Path) -> None:
    base, cand = _claude_id("baseline")[:8], _claude_id("candidate")
    result = runner.invoke(app, ["compare", f"claude:{base}", f"claude:{cand}", "-f", "json"])
    assert result.exit_code == 1  # the candidate's failing command repeated four times
    report = json.loads(result.output)
    assert report["loops"][0]["names"] == ["Bash"]
    assert report["candidate"]["llm_calls"] == 10  # sub-agent turns read from subagents/


def test_codex_reference_and_unknown_or_ambiguous_ones(homes: Path) -> None:
    ok = runner.invoke(app, ["inspect", "codex:" + _codex_name("candidate")[-42:-6], "-f", "json"])
    assert ok.exit_code == 0, ok.output
    missing = runner.invoke(app, ["inspect", "claude:nope"])
    assert missing.exit_code == 2
    assert "no claude session 'nope'" in missing.output
    ambiguous = runner.invoke(app, ["inspect", "codex:"])
    assert ambiguous.exit_code == 2


def test_a_session_reference_is_never_a_baseline_to_overwrite(homes: Path) -> None:
    ref = f"claude:{_claude_id('baseline')}"
    result = runner.invoke(app, ["compare", ref, ref, "--update-baseline"])
    assert result.exit_code == 2
    assert "not a session reference" in result.output


def test_a_plain_argument_is_a_path(
    homes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["inspect", "claude"])
    assert result.exit_code == 2
    assert "file not found" in result.output


@pytest.mark.parametrize(
    ("name", "words"), [("missing", "folder not found"), ("notes.txt", "is not a folder")]
)
def test_a_directory_that_is_no_folder_is_an_error_not_an_empty_list(
    tmp_path: Path, name: str, words: str
) -> None:
    (tmp_path / "notes.txt").write_text("x")
    result = runner.invoke(app, ["sessions", str(tmp_path / name)])
    assert result.exit_code == 2, result.output
    assert f"{tmp_path / name}: {words}" in result.stderr
    assert "no sessions found" not in result.output
