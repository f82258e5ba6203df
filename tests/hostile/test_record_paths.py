"""`agentdiff record`: its --input file is read as a trace is; its outputs are checked first."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agentdiff.record import record_run

from .helpers import agent_module, cli, refused

AGENT = """
from pathlib import Path

def run(task=None):
    Path("called").touch()
    return {"ok": True}
"""


@pytest.fixture
def agent(tmp_path, monkeypatch):
    return agent_module(tmp_path, monkeypatch, "marker_agent", AGENT)


def _record(*args: str | Path):
    return cli("record", "marker_agent:run", "--no-otel", *args)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (os.mkfifo, ("task.json", "FIFO", "not a regular file")),
        (lambda p: p.symlink_to("/dev/zero"), ("task.json", "character device")),
        (lambda p: p.write_bytes(b'{"city": "\xff"}'), ("task.json", "not valid JSON")),
    ],
    ids=["fifo", "dev-zero", "bad-utf8"],
)
def test_an_input_file_that_is_no_json_file_is_refused_unread(agent, make, words):
    make(agent / "task.json")
    started = time.monotonic()
    refused(_record("--input", "@task.json"), *words)
    assert time.monotonic() - started < 10  # neither blocks on the FIFO nor reads /dev/zero
    assert not (agent / "called").exists()


def _fifo(folder: Path) -> None:
    os.mkfifo(folder / "2.json")


def _read_only(folder: Path) -> None:
    (folder / "2.json").write_text("{}")
    (folder / "2.json").chmod(0o444)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (_fifo, ("2.json", "FIFO")),
        (_read_only, ("2.json", "read-only")),
        (lambda folder: (folder / "2.json").mkdir(), ("2.json", "directory")),
    ],
    ids=["fifo", "read-only", "directory"],
)
def test_a_run_file_that_cannot_be_replaced_is_refused_before_any_run(agent, make, words):
    folder = agent / "runs"
    folder.mkdir()
    make(folder)
    before = os.lstat(folder / "2.json")
    refused(_record("--runs", "3", "-o", folder), *words)
    assert not (agent / "called").exists()
    assert not (folder / "1.json").exists()
    after = os.lstat(folder / "2.json")
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_the_input_file_is_never_written_over(agent):
    folder = agent / "runs"
    folder.mkdir()
    (folder / "1.json").write_text('{"city": "Paris"}')
    refused(_record("--input", "@runs/1.json", "-o", "runs"), "1.json", "input of this command")
    assert (folder / "1.json").read_text() == '{"city": "Paris"}'
    assert not (agent / "called").exists()


def test_an_output_folder_that_is_a_file_is_an_input_error(agent):
    (agent / "runs").write_text("notes")
    refused(_record("-o", "runs"), "runs exists and is not a folder")
    assert (agent / "runs").read_text() == "notes"


def test_record_run_never_replaces_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "run.json")
    with pytest.raises(OSError, match="FIFO"), record_run("a", path=tmp_path / "run.json"):
        pass
    assert (tmp_path / "run.json").is_fifo()
