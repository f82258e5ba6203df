"""`approve` over a baseline file that holds no readable trace: refused, `--force` replaces it.

A corrupted baseline (cut JSON, a document no adapter reads, a broken gzip) left no way out but
deleting it by hand: `--force` refused it too. Without `--force` it is an error naming the file
and saying `--force` replaces it; with `--force` the candidate is written over it in its format
family, and the provenance says the old file was unreadable. Something that is no regular file
stays refused.

"Unreadable" is only content that is no trace. A baseline past a limit (`--max-steps`,
`--max-input-size`, their variables, the nesting limit) is a trace the limits in force do not
admit: it stays its own error, never replaced by `--force`, and no command advises replacing it.
The baseline is read with the `--adapter` given to `approve`, so a file only that adapter reads
is compared, not taken for a corrupt one.
"""

from __future__ import annotations

import gzip
import json
import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from agentdiff.adapters import registry
from agentdiff.adapters.base import BaseAdapter
from agentdiff.baselines import VIA_PYTEST, save_baseline
from agentdiff.cli.app import app
from agentdiff.errors import TraceFormatError, TraceValidationError
from agentdiff.loader import load_trace
from agentdiff.models.trace import AgentTrace
from tests.baseline_env import isolate

REAL = Path(__file__).parents[1] / "fixtures" / "real"
CANDIDATE = REAL / "openai_agents" / "detour" / "candidate.json"  # 13 steps, 25,371 bytes
BIG = Path(__file__).parents[2] / "examples" / "loop" / "candidate.json"  # 17 steps, 39,027 bytes
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
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate(monkeypatch, tmp_path)


def approve(baseline: Path, *more: str, candidate: Path = CANDIDATE) -> Result:
    return runner.invoke(app, ["approve", str(candidate), "--baseline", str(baseline), *more])


def written(path: Path) -> dict[str, Any]:
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


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for _ in range(levels):
        value = {"a": value}
    return value


def _nested_baseline(path: Path) -> None:
    """The candidate's trace with one payload nested 210 levels (the limit is 200)."""
    data = load_trace(CANDIDATE).model_dump(mode="json")
    data["steps"][0]["input_payload"] = _deep(210)
    path.write_bytes(json.dumps(data).encode())


PAST_A_LIMIT = {
    "--max-steps": (["--max-steps", "15"], {}, "has 17 steps, past the limit of 15"),
    "AGENTDIFF_MAX_STEPS": ([], {"AGENTDIFF_MAX_STEPS": "15"}, "has 17 steps, past the limit"),
    "--max-input-size": (
        ["--max-input-size", "30000"],
        {},
        "is 39,027 bytes, past the input limit of 30,000 bytes",
    ),
    "AGENTDIFF_MAX_INPUT_SIZE": (
        [],
        {"AGENTDIFF_MAX_INPUT_SIZE": "30000"},
        "past the input limit of 30,000 bytes",
    ),
    "nesting": ([], {}, "nests deeper than 200 levels"),
}
"""How the baseline passes a limit the candidate is within: flags, variables, its message."""


def _past_a_limit(path: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Write a valid baseline past the limit of `case` at `path`; the flags that set it."""
    flags, env, _ = PAST_A_LIMIT[case]
    if case == "nesting":
        _nested_baseline(path)
    else:
        path.write_bytes(BIG.read_bytes())
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return flags


@pytest.mark.parametrize("case", sorted(PAST_A_LIMIT))
@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_a_baseline_past_a_limit_is_never_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, force: bool
) -> None:
    """A trace too big for the limits is no corrupt file: exit 2 with the limit's error."""
    baseline = tmp_path / "baseline.json"
    flags = _past_a_limit(baseline, case, monkeypatch)
    before = baseline.read_bytes()
    result = approve(baseline, *flags, *(["--force"] if force else []))
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"error: {baseline}: "), result.output
    assert PAST_A_LIMIT[case][2] in first
    assert "readable" not in result.output
    assert "--force" not in result.output  # neither "--force replaces it" nor "overridden by"
    assert "baseline approved" not in result.output
    assert baseline.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name != "gitconfig"] == ["baseline.json"]


@pytest.mark.parametrize("case", sorted(PAST_A_LIMIT))
def test_compare_update_baseline_past_a_limit_advises_no_approve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    baseline = tmp_path / "baseline.json"
    flags = _past_a_limit(baseline, case, monkeypatch)
    before = baseline.read_bytes()
    args = ["compare", str(baseline), str(CANDIDATE), "--update-baseline", "--force", *flags]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    first = result.output.splitlines()[0]
    assert first.startswith(f"error: {baseline}: "), result.output
    assert PAST_A_LIMIT[case][2] in first
    assert "agentdiff approve" not in result.output
    assert "replaces it" not in result.output
    assert baseline.read_bytes() == before


def test_save_baseline_refuses_to_replace_a_file_past_a_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pytest plugin's write: the limit's error, never `previous: {"unreadable": ...}`."""
    baseline = tmp_path / "weather.json"
    baseline.write_bytes(BIG.read_bytes())
    monkeypatch.setenv("AGENTDIFF_MAX_STEPS", "15")
    with pytest.raises(TraceValidationError, match="has 17 steps, past the limit of 15") as caught:
        save_baseline(baseline, load_trace(CANDIDATE), via=VIA_PYTEST)
    from agentdiff.errors import LimitError  # here: the old code fails the test, not its import

    assert isinstance(caught.value, LimitError)
    assert baseline.read_bytes() == BIG.read_bytes()


class _Wrapped(BaseAdapter):
    """`{"wrapped": <canonical AgentTrace>}`: read when forced, never detected."""

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        if not isinstance(data, dict) or "wrapped" not in data:
            raise TraceFormatError('expected {"wrapped": <trace>}')
        return AgentTrace.model_validate(data["wrapped"])


@pytest.fixture
def wrapped_adapter(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(registry, "_REGISTRY", registry._Registry())
    registry.register_adapter("wrapped")(_Wrapped)
    return "wrapped"


def test_a_baseline_only_the_forced_adapter_reads_is_compared(
    tmp_path: Path, wrapped_adapter: str
) -> None:
    """`approve -a X` reads the baseline with X too: compared, its approval kept as `previous`."""
    first = tmp_path / "first.json"
    approval = save_baseline(first, load_trace(CANDIDATE), via=VIA_PYTEST)
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"wrapped": written(first)}))
    candidate = tmp_path / "candidate.json"
    candidate.write_text(json.dumps({"wrapped": load_trace(CANDIDATE).model_dump(mode="json")}))
    before = baseline.read_bytes()
    assert approve(baseline, candidate=CANDIDATE).exit_code == 2  # detection reads no trace
    assert baseline.read_bytes() == before

    result = approve(baseline, "-a", wrapped_adapter, "--reason", "second", candidate=candidate)
    assert result.exit_code == 0, result.output
    assert "readable" not in result.output
    assert "overridden" not in result.output
    assert "PASS" in result.output  # the comparison's report
    record = written(baseline)["metadata"]["provenance"]
    assert record["reason"] == "second"
    kept = {"approved_at", "approved_by", "commit"}
    assert record["previous"] == approval.model_dump(mode="json", include=kept)

    # approve wrote canonical JSON: `-a wrapped` cannot read it, detection does; compared again
    again = approve(baseline, "-a", wrapped_adapter, "--reason", "third", candidate=candidate)
    assert again.exit_code == 0, again.output
    assert "readable" not in again.output
    assert (
        written(baseline)["metadata"]["provenance"]["previous"]["approved_at"]
        == (record["approved_at"])
    )


def test_the_approve_command_compare_names_reads_the_candidate_as_compare_did(
    tmp_path: Path, wrapped_adapter: str
) -> None:
    """Its adapter, trace id and limits given go into the command, so the command works."""
    baseline = tmp_path / "baseline.json"
    baseline.write_bytes(GARBAGE["cut.json"])
    candidate = tmp_path / "candidate.json"
    trace = load_trace(CANDIDATE)
    candidate.write_text(json.dumps({"wrapped": trace.model_dump(mode="json")}))
    args = [
        *("compare", str(baseline), str(candidate), "--update-baseline"),
        *("--candidate-adapter", wrapped_adapter, "--trace-id", trace.trace_id),
        *("--max-steps", "50"),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    flags = f"--adapter {wrapped_adapter} --trace-id {shlex.quote(trace.trace_id)} --max-steps 50"
    command = f"agentdiff approve {candidate} --baseline {baseline} {flags} --force"
    assert result.output.splitlines()[0].endswith(f"; `{command}` replaces it"), result.output
    replaced = runner.invoke(app, shlex.split(command)[1:])
    assert replaced.exit_code == 0, replaced.output
    assert load_trace(baseline).steps == trace.steps
