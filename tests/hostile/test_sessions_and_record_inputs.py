"""Coding-agent sessions, `approve` and `record` under hostile input (a reviewer's cases): `-o`
onto a sub-agent transcript the command reads, the user's redaction in `approve`, malformed
Codex tool output, undecodable session file names in JSON, and `--runs` past any real need."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from tests.realdata import REAL

from .helpers import cli, refused, spec

LOOP = REAL / "claude_code" / "loop"
CODEX = REAL / "codex" / "identical" / "baseline.rollout.jsonl"


def _session(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of a real Claude Code session with one sub-agent transcript."""
    shutil.copy(LOOP / "baseline.session.jsonl", tmp_path / "b.session.jsonl")
    shutil.copytree(LOOP / "baseline.session", tmp_path / "b.session")
    (agent,) = (tmp_path / "b.session" / "subagents").glob("agent-*.jsonl")
    return tmp_path / "b.session.jsonl", agent


@pytest.mark.parametrize("command", ["convert", "compare", "compare-update"])
def test_output_never_replaces_a_sub_agent_transcript_read_with_the_session(
    tmp_path: Path, command: str
) -> None:
    session, agent = _session(tmp_path)
    before = agent.read_bytes()
    if command == "convert":
        outcome = cli("convert", session, "-o", agent)
    elif command == "compare":
        outcome = cli("compare", session, session, "-o", agent)
    else:
        base = tmp_path / "base.json"
        base.symlink_to(agent)  # --update-baseline writes where the link points
        outcome = cli("compare", base, session, "--update-baseline")
    refused(outcome, "is an input of this command")
    assert agent.read_bytes() == before


def test_approve_shows_the_candidate_with_the_users_redaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run(name: str, ref: str, key: str) -> Path:
        document = spec()
        document["trace_id"] = name
        document["steps"][1]["input_payload"] = {"internal_ref": ref, "key": key}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document))
        return path

    base, cand = run("b", "old", "none"), run("c", "s3cr3t-v4lue", "acme-0123456789abcdef")
    (tmp_path / "agentdiff.toml").write_text(
        '[report]\nredact_patterns = ["acme-[0-9a-f]{16}"]\nredact_keys = ["internal_ref"]\n'
    )
    monkeypatch.chdir(tmp_path)
    outcome = cli("approve", cand, "--baseline", base, "--force")
    assert outcome.code == 0, outcome.stderr
    assert "internal_ref" in outcome.stdout
    assert "s3cr3t-v4lue" not in outcome.stdout
    assert "0123456789abcdef" not in outcome.stdout
    assert "[redacted:" in outcome.stdout


def _codex(tmp_path: Path, output: str) -> Path:
    lines = [json.loads(line) for line in CODEX.read_text().splitlines() if line.strip()]
    for line in lines:
        payload = line.get("payload") or {}
        if payload.get("type") == "function_call_output":
            payload["output"] = output
    path = tmp_path / "rollout-2026-12-01T05-13-42-11111111-2222-3333-4444-555555555555.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


@pytest.mark.parametrize(
    "output",
    [
        json.dumps({"output": "ok", "metadata": "x"}),
        json.dumps({"output": "ok", "metadata": [1]}),
        json.dumps({"output": "ok", "metadata": {"exit_code": 10**40}}),
        "Process exited with code " + "9" * 4301 + "\nOutput:\nok",
    ],
)
def test_odd_codex_tool_output_loads(tmp_path: Path, output: str) -> None:
    path = _codex(tmp_path, output)
    outcome = cli("inspect", path)
    assert outcome.code == 0, outcome.stderr


def _undecodable_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Claude Code session under ~/.claude whose folder and file names are no valid UTF-8."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    folder = tmp_path / ".claude" / "projects" / "q\udcfe"  # the bytes q\xfe, as os.fsdecode
    folder.mkdir(parents=True)
    shutil.copy(
        REAL / "claude_code" / "identical" / "baseline.session.jsonl", folder / "s\udcff.jsonl"
    )


def test_sessions_json_shows_an_undecodable_file_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _undecodable_session(tmp_path, monkeypatch)
    outcome = cli("sessions", "-f", "json")
    assert outcome.code == 0, outcome.stderr
    (row,) = orjson.loads(outcome.stdout)
    assert row["path"].endswith("q\\xfe/s\\xff.jsonl")
    assert row["session_id"] == "s\\xff"


def test_record_refuses_more_runs_than_it_allows(tmp_path: Path) -> None:
    outcome = cli("record", "mod:fn", "-o", tmp_path / "out", "--runs", "1000000000")
    assert outcome.code == 2
    assert "10000" in outcome.stderr
    assert not (tmp_path / "out").exists()


def test_sessions_terminal_shows_an_undecodable_file_name_as_json_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _undecodable_session(tmp_path, monkeypatch)
    outcome = cli("sessions")
    assert outcome.code == 0, outcome.stderr
    assert "claude:s\\xff" in outcome.stdout
    assert "udcff" not in outcome.stdout
