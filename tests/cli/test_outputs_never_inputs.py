"""`-o` of `compare-runs`, `routes` and `suite` never replaces a file the command reads.

The files read are those inside the folders given (each run file, and a Claude Code session's
sub-agent transcripts, also a gzip session's), by any name: a symlink or a hard link to one is the file.
Each is refused before any work (exit 2, one line naming the path given) and left byte for byte;
a new file is written as before, also inside a run folder (it is no input of this command).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest

from tests.hostile.helpers import cli, refused, run_folder
from tests.realdata import REAL, copy_session

COMMANDS = ("compare-runs", "routes", "suite")
SESSION = REAL / "claude_code" / "detour"


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Path, Path]:
    """Two folders of three runs each."""
    return (
        run_folder(tmp_path / "base", 3, "b", "s", "lookup"),
        run_folder(tmp_path / "cand", 3, "c", "s", "lookup"),
    )


def _refused_unchanged(
    command: str, given: tuple[str | Path, ...], output: Path, run: Path, fmt: str = ""
) -> None:
    """`command GIVEN... -f json -o [fmt=]output` is refused naming `output`; `run` is kept."""
    before = run.read_bytes()
    outcome = cli(command, *given, "-f", "json", "-o", f"{fmt}={output}" if fmt else output)
    refused(outcome, str(output), "is an input of this command")
    assert run.read_bytes() == before


@pytest.mark.parametrize("command", COMMANDS)
def test_a_run_inside_a_folder_given_is_never_replaced(
    command: str, sides: tuple[Path, Path]
) -> None:
    for run in (sides[0] / "run1.json", sides[1] / "run0.json"):
        _refused_unchanged(command, sides, run, run)
        _refused_unchanged(command, sides, run, run, fmt="markdown")


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("link", [os.symlink, os.link], ids=["symlink", "hard link"])
def test_a_link_to_a_run_is_the_run(
    command: str, link: object, sides: tuple[Path, Path], tmp_path: Path
) -> None:
    run = sides[1] / "run2.json"
    output = tmp_path / "elsewhere" / "report.json"
    output.parent.mkdir()
    link(run, output)  # type: ignore[operator]
    _refused_unchanged(command, sides, output, run)


@pytest.mark.parametrize("command", COMMANDS)
def test_the_check_comes_before_any_run_is_read(command: str, sides: tuple[Path, Path]) -> None:
    (sides[0] / "zz_broken.json").write_text("{")  # reading it first would be another error
    _refused_unchanged(command, sides, sides[1] / "run1.json", sides[1] / "run1.json")


def _sessions(root: Path) -> tuple[Path, Path]:
    """A folder per side holding one Claude Code session and its sub-agent transcript."""
    for side in ("baseline", "candidate"):
        folder = root / side
        folder.mkdir()
        shutil.copyfile(SESSION / f"{side}.session.jsonl", folder / "detour.session.jsonl")
        shutil.copytree(SESSION / f"{side}.session", folder / "detour.session")
    return root / "baseline", root / "candidate"


@pytest.mark.parametrize("command", ["compare-runs", "routes"])
def test_a_sub_agent_transcript_beside_a_session_is_never_replaced(
    command: str, tmp_path: Path
) -> None:
    sides = _sessions(tmp_path)
    (transcript,) = (sides[1] / "detour.session" / "subagents").glob("agent-*.jsonl")
    _refused_unchanged(command, sides, transcript, transcript)


@pytest.mark.parametrize("command", [*COMMANDS, "compare"])
@pytest.mark.parametrize("gz_parts", [False, True], ids=["plain", "gzip"])
def test_a_sub_agent_transcript_of_a_gzip_session_is_never_replaced(
    command: str, gz_parts: bool, tmp_path: Path
) -> None:
    """`<s>.jsonl.gz` reads `<s>/subagents/agent-*.jsonl[.gz]`: given by folder or by file."""
    given = tuple(
        copy_session(
            SESSION / f"{side}.session.jsonl",
            tmp_path / side / "detour",
            gz=True,
            gz_parts=gz_parts,
        )
        for side in ("baseline", "candidate")
    )
    (transcript,) = (tmp_path / "candidate" / "detour" / "subagents").glob("agent-*")
    folders = tuple(file.parent for file in given)
    _refused_unchanged(command, given if command == "compare" else folders, transcript, transcript)


def test_a_sub_agent_transcript_a_suite_reads_is_never_replaced(tmp_path: Path) -> None:
    """A JSON Lines manifest names only the session files; their transcripts are read too."""
    _sessions(tmp_path)
    rows = [
        {"scenario": "detour", "side": side, "path": f"{side}/detour.session.jsonl"}
        for side in ("baseline", "candidate")
    ]
    manifest = tmp_path / "suite.jsonl"
    manifest.write_bytes(b"\n".join(orjson.dumps(row) for row in rows))
    (transcript,) = (tmp_path / "candidate" / "detour.session" / "subagents").glob("agent-*")
    _refused_unchanged("suite", ("--manifest", manifest), transcript, transcript)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_new_report_is_written_also_inside_a_run_folder(
    command: str, sides: tuple[Path, Path], tmp_path: Path
) -> None:
    for output in (tmp_path / "out" / "report.json", sides[0] / "report.json"):
        outcome = cli(command, *sides, "-f", "json", "-o", output)
        assert outcome.code in (0, 1), outcome.stderr
        assert orjson.loads(output.read_bytes())["report_version"]
        output.unlink()  # the next command would read it as a run
