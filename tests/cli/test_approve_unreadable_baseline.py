"""`approve` over a baseline file that holds no readable trace: refused, `--force` replaces it.

A corrupted baseline (cut JSON, a document no adapter reads, a broken gzip) left no way out but
deleting it by hand: `--force` refused it too. Without `--force` it is an error naming the file
and saying `--force` replaces it; with `--force` the candidate is written over it in its format
family, and the provenance says the old file was unreadable. Something that is no regular file
stays refused.
"""

from __future__ import annotations

import gzip
import json
import os
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentdiff.baselines import VIA_PYTEST, save_baseline
from agentdiff.cli.app import app
from agentdiff.cli.errors import state
from agentdiff.config import SETTINGS
from agentdiff.loader import load_trace

REAL = Path(__file__).parents[1] / "fixtures" / "real"
CANDIDATE = REAL / "openai_agents" / "detour" / "candidate.json"
runner = CliRunner()

GARBAGE = {
    "cut.json": b'{"trace_id": "t", "steps": [',
    "other.json": b'{"hello": "world"}',
    "empty.json": b"",
    "lines.jsonl": b"not json at all\n",
    "broken.json.gz": gzip.compress(b'{"trace_id": "t", "steps": [')[:-12],
    "plain.jsonl.gz": b"neither gzip nor json",
}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(state, "debug", False)


def approve(baseline: Path, *more: str):
    return runner.invoke(app, ["approve", str(CANDIDATE), "--baseline", str(baseline), *more])


def written(path: Path) -> dict:
    """The document the baseline file holds (gzip by its magic bytes, JSON Lines one line)."""
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()
    return json.loads(text)


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_an_unreadable_baseline_is_refused_naming_the_file_and_force(tmp_path, name):
    baseline = tmp_path / name
    baseline.write_bytes(GARBAGE[name])
    result = approve(baseline)
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"error: {baseline}: is no readable baseline (")
    assert "--force replaces it with the candidate" in first
    assert baseline.read_bytes() == GARBAGE[name]


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_force_writes_the_candidate_over_an_unreadable_baseline(tmp_path, name):
    baseline = tmp_path / name
    baseline.write_bytes(GARBAGE[name])
    result = approve(baseline, "--force", "--reason", "the old file was corrupted")
    assert result.exit_code == 0, result.output
    assert f"overridden by --force: {baseline} is no readable baseline (" in result.output
    assert f"baseline approved: {baseline}" in result.output
    raw = baseline.read_bytes()
    assert (raw[:2] == b"\x1f\x8b") is name.endswith(".gz")  # its format family is kept
    if ".jsonl" in name:
        text = gzip.decompress(raw) if name.endswith(".gz") else raw
        assert text.count(b"\n") == 1
    record = written(baseline)["metadata"]["provenance"]
    assert record["reason"] == "the old file was corrupted"
    assert set(record["previous"]) == {"unreadable"}  # no approval invented for it
    assert record["previous"]["unreadable"]
    assert load_trace(baseline).steps == load_trace(CANDIDATE).steps
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".{name}")]  # no temp file


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_compare_update_baseline_names_the_approve_command_that_replaces_it(tmp_path, name):
    """`--update-baseline --force` cannot replace it; the one-line error says what does."""
    baseline = tmp_path / f"old {name}"  # a space: the paths are quoted as one shell word each
    baseline.write_bytes(GARBAGE[name])
    args = ["compare", str(baseline), str(CANDIDATE), "--update-baseline", "--force"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    command = f"agentdiff approve {shlex.quote(str(CANDIDATE))} --baseline {shlex.quote(str(baseline))} --force"
    assert first.startswith(f"error: {baseline}: ")
    assert first.endswith(f"; `{command}` replaces it")
    assert baseline.read_bytes() == GARBAGE[name]
    plain = runner.invoke(app, ["compare", str(baseline), str(CANDIDATE)])
    assert plain.exit_code == 2 and "agentdiff approve" not in plain.output  # only when updating
    replaced = runner.invoke(app, shlex.split(command)[1:])  # the command given does replace it
    assert replaced.exit_code == 0, replaced.output
    assert load_trace(baseline).steps == load_trace(CANDIDATE).steps


def test_save_baseline_over_an_unreadable_file_says_so_in_the_provenance(tmp_path):
    baseline = tmp_path / "weather.json"
    baseline.write_text("{ cut")
    record = save_baseline(baseline, load_trace(CANDIDATE), via=VIA_PYTEST)
    assert record.previous is not None
    assert record.previous["unreadable"].startswith("invalid JSON")
    assert load_trace(baseline).trace_id == load_trace(CANDIDATE).trace_id


def test_force_never_replaces_a_folder(tmp_path):
    folder = tmp_path / "baseline.json"
    folder.mkdir()
    result = approve(folder, "--force")
    assert result.exit_code == 2
    assert "is a directory, not a regular file" in result.output
    assert folder.is_dir()
    assert not list(folder.iterdir())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_force_never_replaces_a_fifo(tmp_path):
    fifo = tmp_path / "baseline.json"
    os.mkfifo(fifo)
    result = approve(fifo, "--force")
    assert result.exit_code == 2
    assert "is a FIFO (named pipe), not a regular file" in result.output
    assert fifo.is_fifo()


def test_force_through_a_symlink_replaces_the_unreadable_file_it_names(tmp_path):
    target = tmp_path / "store" / "real.json"
    target.parent.mkdir()
    target.write_text("garbage")
    link = tmp_path / "baseline.json"
    link.symlink_to(target)
    result = approve(link, "--force")
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert load_trace(target).trace_id == load_trace(CANDIDATE).trace_id
