"""Shared by the hostile-input tests: run the CLI in-process and insist on a clean outcome."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from tests.realdata import REAL

SPEC = Path(__file__).parents[1] / "data" / "spec_example.json"
runner = CliRunner()


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


def cli(*args: str | Path, env: dict[str, str] | None = None) -> Outcome:
    """Run `agentdiff ARGS`; never a traceback, never exit 3."""
    result = runner.invoke(app, [str(a) for a in args], env=env)
    outcome = Outcome(result.exit_code, result.stdout, result.stderr)
    assert outcome.code != 3, outcome.stderr
    assert "Traceback" not in outcome.stdout + outcome.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return outcome


def refused(outcome: Outcome, *words: str) -> None:
    """Exit 2 with one `error:` line on stderr (plus an optional hint) holding every word."""
    assert outcome.code == 2, (outcome.code, outcome.stderr)
    lines = outcome.stderr.splitlines()
    assert lines[0].startswith("error: "), lines
    assert all(line.startswith(("error: ", "hint: ")) for line in lines), lines
    for word in words:
        assert word in outcome.stderr, (word, outcome.stderr)


def spec() -> dict[str, Any]:
    """A fresh copy of the two-step canonical example trace."""
    return copy.deepcopy(orjson.loads(SPEC.read_bytes()))


def write(path: Path, document: Any) -> Path:
    """`document` as JSON (the standard library's writer: it keeps integers of any size)."""
    path.write_text(json.dumps(document))
    return path


def run_folder(folder: Path, runs: int, trace_id: str, scenario: str, step_name: str) -> Path:
    """`runs` copies of `spec()` in `folder`: trace ids `run<i><trace_id>`, one `scenario`
    metadata value, the second step named `step_name` (hostile text for the runs reports)."""
    folder.mkdir()
    for i in range(runs):
        document = spec()
        document["trace_id"] = f"run{i}{trace_id}"
        document.setdefault("metadata", {})["scenario"] = scenario
        document["steps"][1]["name"] = step_name
        write(folder / f"run{i}.json", document)
    return folder


def nested(levels: int) -> dict[str, Any]:
    """`{"a": {"a": ... {"a": 1}}}`, `levels` dicts deep."""
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def claude_home(
    home: Path, monkeypatch: pytest.MonkeyPatch, name: str, cwd: Callable[[str], str]
) -> Path:
    """`HOME` set to `home`, holding one Claude Code session (`name` in its folder and file
    names) whose `cwd` is rewritten by `cwd`: what `agentdiff sessions` lists."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    project = home / ".claude" / "projects" / f"proj{name}"
    project.mkdir(parents=True)
    source = REAL / "claude_code" / "identical" / "baseline.session.jsonl"
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if "cwd" in record:
            record["cwd"] = cwd(record["cwd"])
        lines.append(json.dumps(record))
    (project / f"sess{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return home


def agent_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str) -> Path:
    """`source` written as module `name` in `tmp_path`, importable, `tmp_path` the working
    folder (an agent for `agentdiff record name:…`); returns `tmp_path`."""
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path
