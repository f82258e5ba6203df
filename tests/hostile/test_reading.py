"""Reading: only regular files, bytes capped, gzip inflated as a stream with the same cap."""

from __future__ import annotations

import gzip
import json
import os
import time
from pathlib import Path

import pytest

from agentdiff import load_trace
from agentdiff.errors import ConfigError, TraceFormatError
from agentdiff.limits import Limits, parse_size
from agentdiff.loader import read_document
from agentdiff.reading import read_input
from tests.realdata import REAL

from .helpers import SPEC, cli, nested, refused, spec, write


def _fifo(tmp_path: Path) -> Path:
    target = tmp_path / "pipe.json"
    os.mkfifo(target)
    return target


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (_fifo, ("pipe.json", "FIFO", "not a regular file")),
        (lambda _: Path("/dev/zero"), ("/dev/zero", "character device")),
        (lambda _: Path("/dev/null"), ("/dev/null", "character device")),
        (lambda tmp: tmp, ("is a directory", "agentdiff suite", "compare-runs")),
        (lambda tmp: tmp / "missing.json", ("missing.json", "file not found")),
    ],
    ids=["fifo", "dev-zero", "dev-null", "directory", "missing"],
)
@pytest.mark.parametrize("command", ["compare", "inspect", "convert"])
def test_only_regular_files_are_read(tmp_path, make, words, command):
    target = make(tmp_path)
    args = [SPEC, target] if command == "compare" else [target]
    started = time.monotonic()
    refused(cli(command, *args), *words)
    assert time.monotonic() - started < 10  # a FIFO with no writer never blocks


def _bomb(path: Path, inflated: int, *, lines: bool = False) -> Path:
    chunk = (b'{"a": 1}\n' * 1000) if lines else b" " * 8192
    with gzip.open(path, "wb", compresslevel=9) as out:
        for _ in range(inflated // len(chunk)):
            out.write(chunk)
    return path


@pytest.mark.parametrize("name", ["bomb.json.gz", "bomb.json", "bomb.jsonl.gz"])
def test_gzip_bomb_stops_at_the_limit(tmp_path, name):
    bomb = _bomb(tmp_path / name, 64 * 1024**2, lines="jsonl" in name)
    assert bomb.stat().st_size < 1024**2
    started = time.monotonic()
    outcome = cli("inspect", bomb, "--max-input-size", "1MiB")
    refused(outcome, name, "inflates past the limit", "1,048,576 bytes", "--max-input-size")
    assert time.monotonic() - started < 5


def test_the_limit_comes_from_the_environment_too(tmp_path):
    bomb = _bomb(tmp_path / "bomb.gz", 8 * 1024**2)
    refused(cli("inspect", bomb, env={"AGENTDIFF_MAX_INPUT_SIZE": "100k"}), "100,000 bytes")
    with pytest.raises(TraceFormatError, match="inflates past the limit"):
        load_trace(bomb, limits=Limits(max_input_size=65536))


def test_a_plain_file_over_the_limit_is_refused_before_reading(tmp_path):
    big = write(tmp_path / "big.json", spec())
    refused(cli("convert", big, "--max-input-size", "100"), "big.json", "past the input limit")


def test_a_file_within_the_limit_loads(tmp_path):
    packed = tmp_path / "run.json.gz"
    packed.write_bytes(gzip.compress(SPEC.read_bytes()))
    assert cli("inspect", packed, "--max-input-size", "64k").code == 0


@pytest.mark.parametrize("value", ["lots", "-1", "0", "1e400", "12QB"])
def test_a_bad_limit_is_a_config_error_naming_the_flag(value):
    refused(cli("inspect", SPEC, "--max-input-size", value), "--max-input-size", repr(value))
    refused(cli("inspect", SPEC, env={"AGENTDIFF_MAX_STEPS": value}), "AGENTDIFF_MAX_STEPS")
    with pytest.raises(ConfigError):
        Limits.resolve(value)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("1024", 1024),
        ("2GiB", 2 * 1024**3),
        ("500MB", 500 * 10**6),
        ("64k", 64_000),
        ("1.5KiB", 1536),
    ],
)
def test_sizes_parse(text, size):
    assert parse_size(text) == size


def test_too_many_steps_is_refused(tmp_path):
    document = spec()
    refused(cli("inspect", write(tmp_path / "t.json", document), "--max-steps", "1"), "2 steps")
    lines = tmp_path / "spans.jsonl"
    lines.write_text('{"a": 1}\n' * 5)
    with pytest.raises(TraceFormatError, match="more than 3 JSON lines"):
        read_document(lines, Limits(max_steps=3))


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"\xef\xbb\xbf", ("file is empty",)),
        (b"\n\n  \n", ("file is empty",)),
        (b'{"trace_id": "x", "name": "\xff"}', ("not UTF-8", "offset 27")),
        (b"[" * 2000 + b"]" * 2000, ("invalid JSON",)),
        (b"\x1f\x8b\x08\x00" + b"\x00" * 20, ("not a valid gzip file",)),
    ],
)
def test_broken_bytes_are_one_clean_line(tmp_path, content, words):
    target = tmp_path / "broken.json"
    target.write_bytes(content)
    refused(cli("inspect", target), "broken.json", *words)


def test_a_bad_byte_in_json_lines_names_the_line(tmp_path):
    target = tmp_path / "spans.jsonl"
    target.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n')
    with pytest.raises(TraceFormatError, match="line 2"):
        read_document(target)


def test_a_gzip_bomb_stops_early_under_the_default_limit(tmp_path):
    """At the default 2 GiB limit a bomb is stopped by its ratio, past 64 MiB, in little memory."""
    import tracemalloc

    from agentdiff.reading import BOMB_FLOOR

    bomb = _bomb(tmp_path / "bomb.json.gz", BOMB_FLOOR + 16 * 1024**2)
    assert bomb.stat().st_size < 1024**2
    tracemalloc.start()
    try:
        with pytest.raises(TraceFormatError, match=r"more than 500:1 \(a gzip bomb\?\)"):
            load_trace(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < BOMB_FLOOR + 32 * 1024**2  # the floor and a chunk, never the 2 GiB limit
    refused(cli("inspect", bomb), "bomb.json.gz", "gzip bomb", "gunzip")


def test_the_ratio_check_passes_genuine_traces(tmp_path, monkeypatch):
    """With the floor at zero every chunk is checked: real trace JSON stays far under 500:1."""
    from agentdiff import reading

    monkeypatch.setattr(reading, "BOMB_FLOOR", 0)
    packed = tmp_path / "run.json.gz"
    packed.write_bytes(gzip.compress(SPEC.read_bytes(), compresslevel=9))
    assert load_trace(packed).steps
    with pytest.raises(TraceFormatError, match="gzip bomb"):
        load_trace(_bomb(tmp_path / "small-bomb.gz", 4 * 1024**2))


def _session_with_subagent(tmp_path: Path) -> tuple[Path, Path]:
    """A real Claude Code session file and where its sub-agent transcript goes."""
    session = tmp_path / "s.jsonl"
    session.write_bytes(
        (REAL / "claude_code" / "identical" / "baseline.session.jsonl").read_bytes()
    )
    folder = tmp_path / "s" / "subagents"
    folder.mkdir(parents=True)
    return session, folder / "agent-1.jsonl"


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (os.mkfifo, ("agent-1.jsonl", "FIFO", "not a regular file")),
        (lambda p: p.write_bytes(b'{"broken\n'), ("agent-1.jsonl", "invalid JSON on line 1")),
        (lambda p: p.write_bytes(b'{"a": "\xff"}\n'), ("agent-1.jsonl", "not UTF-8", "line 1")),
        (lambda p: p.write_bytes(b"{}\n" * 400_000), ("agent-1.jsonl", "past the input limit")),
        (
            lambda p: p.write_bytes(gzip.compress(b"\n" * 4 * 1024**2)),
            ("agent-1.jsonl", "inflates past the limit"),
        ),
    ],
    ids=["fifo", "bad-json", "bad-utf8", "too-big", "gzip-past-limit"],
)
def test_a_sub_agent_transcript_is_read_like_any_trace_file(tmp_path, make, words):
    """A session's companions are read under the same checks and limits as the session."""
    session, companion = _session_with_subagent(tmp_path)
    make(companion)
    started = time.monotonic()
    refused(cli("inspect", session, "--max-input-size", "1MiB"), *words)
    assert time.monotonic() - started < 10  # a FIFO with no writer never blocks


def test_an_empty_sub_agent_transcript_adds_nothing(tmp_path):
    session, companion = _session_with_subagent(tmp_path)
    alone = load_trace(session)
    companion.write_bytes(b"\n\n")
    assert len(load_trace(session).steps) == len(alone.steps)


def _results_folder(tmp_path: Path, make) -> Path:
    folder = tmp_path / "results"
    folder.mkdir()
    make(folder / "suite.json")
    return folder


def _manifest(tmp_path: Path, make) -> Path:
    manifest = tmp_path / "suite.toml"
    make(manifest)
    return manifest


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (lambda tmp: ["results", "/dev/zero"], ("/dev/zero", "cannot read saved results")),
        (lambda tmp: ["results", _results_folder(tmp, os.mkfifo)], ("suite.json", "FIFO")),
        (
            lambda tmp: ["suite", "--manifest", "/dev/zero"],
            ("/dev/zero", "cannot read the manifest"),
        ),
        (lambda tmp: ["suite", "--manifest", _manifest(tmp, os.mkfifo)], ("suite.toml", "FIFO")),
        (
            lambda tmp: [
                "suite",
                "--manifest",
                _manifest(tmp, lambda p: p.write_text("x = " + "[" * 5000 + "]" * 5000)),
            ],
            ("suite.toml", "nested deeper than 200 levels"),
        ),
    ],
    ids=["results-dev-zero", "results-fifo", "manifest-dev-zero", "manifest-fifo", "manifest-deep"],
)
def test_saved_results_and_manifests_are_read_like_trace_files(tmp_path, args, words):
    """No device fills the memory, no FIFO hangs, no deep TOML is exit 3."""
    started = time.monotonic()
    refused(cli(*args(tmp_path)), *words)
    assert time.monotonic() - started < 10


def test_a_url_is_read_only_up_to_the_input_limit(monkeypatch):
    """A run behind an fsspec URL larger than the limit is refused, not read whole."""
    fsspec = pytest.importorskip("fsspec")
    from agentdiff.suite.load import open_url

    fsspec.filesystem("memory").pipe("/hostile/big.json", b" " * 300_000)
    monkeypatch.setenv("AGENTDIFF_MAX_INPUT_SIZE", "100k")
    with pytest.raises(TraceFormatError, match="big.json: is too large, past the input limit"):
        open_url("memory:///hostile/big.json")
    monkeypatch.delenv("AGENTDIFF_MAX_INPUT_SIZE")
    assert len(open_url("memory:///hostile/big.json")) == 300_000


@pytest.fixture
def results_with_pages(tmp_path: Path) -> Path:
    """A results folder of one regressed scenario, its pair report saved under `pairs/`."""
    for side, name in (("base", "lookup"), ("cand", "other")):
        document = spec()
        document["steps"][1]["name"] = name
        (tmp_path / side).mkdir()
        write(tmp_path / side / "s1.json", document)
    out = tmp_path / "out"
    args = ["suite", tmp_path / "base", tmp_path / "cand", "--results", out]
    outcome = cli(*args, "--max-divergence", "0", "-o", f"html={tmp_path / 'suite.html'}")
    assert outcome.code == 1, outcome.stderr
    assert (out / "pairs" / "index.json").is_file()
    return out


@pytest.mark.parametrize("name", ["../private.txt", "{tmp}/private.txt", "pairs/../../private.txt"])
def test_a_results_index_never_embeds_a_file_outside_its_pages(results_with_pages, name):
    """`results DIR -f html` embeds the pages `pairs/index.json` names: only files under pairs/."""
    tmp = results_with_pages.parent
    (tmp / "private.txt").write_text("PRIVATE-CONTENT")
    assert "srcdoc=" in cli("results", results_with_pages, "-f", "html").stdout
    index = results_with_pages / "pairs" / "index.json"
    index.write_text(json.dumps({"s1": name.format(tmp=tmp)}))
    outcome = cli("results", results_with_pages, "-f", "html")
    refused(outcome, "index.json", "is not in pairs/")
    assert "PRIVATE-CONTENT" not in outcome.stdout


@pytest.mark.parametrize("where", ["thresholds", "row"])
def test_a_saved_report_nested_too_deep_is_refused(results_with_pages, where):
    """A crafted suite.json nesting 300 levels is exit 2 naming the path, not a crash on output."""
    target = results_with_pages / "suite.json"
    document = json.loads(target.read_text())
    deep = nested(300)
    if where == "row":
        document["scenarios"][0]["overrides"] = {"x": deep}
    else:
        document["thresholds"] = [{"setting": "x", "value": deep, "source": "y"}]
    target.write_text(json.dumps(document))
    for fmt in ("terminal", "json"):
        refused(
            cli("results", results_with_pages, "-f", fmt), "suite.json", "nests deeper than 200"
        )


def test_a_folder_given_as_a_manifest_gets_no_hint_about_trace_folders(tmp_path):
    """The trace reader's hint for a folder ('to compare folders of runs use `agentdiff suite`')
    is for trace files: a manifest or an --input that is a folder is told what it is, no more."""
    (tmp_path / "runs").mkdir()
    outcome = cli("suite", tmp_path / "runs", tmp_path / "runs", "--manifest", tmp_path / "runs")
    assert outcome.code == 2
    assert "cannot read the manifest: is a directory" in outcome.stderr
    assert "agentdiff suite" not in outcome.stderr
    with pytest.raises(ConfigError) as raised:
        read_input(tmp_path / "runs", "--input")
    assert raised.value.hint is None
    with pytest.raises(ConfigError) as raised:
        read_input(tmp_path / "runs", "saved results", hint="pass a folder written by --results")
    assert raised.value.hint == "pass a folder written by --results"
