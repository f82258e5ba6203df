"""Writing: never over an input, only regular files replaced, /dev/null and `-` work, baselines
keep their format family, and no temp file is ever left behind."""

from __future__ import annotations

import functools
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest

from agentdiff import load_trace

from .helpers import SPEC, cli, refused, spec, write


@pytest.fixture
def pair(tmp_path):
    base = tmp_path / "baseline.json"
    shutil.copy(SPEC, base)
    document = spec()
    document["steps"][1]["input_payload"]["lat"] = 41.0
    return base, write(tmp_path / "candidate.json", document)


def _no_temp_files(folder: Path) -> None:
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("which", [0, 1])
def test_output_over_an_input_is_refused(pair, which):
    before = [p.read_bytes() for p in pair]
    refused(cli("compare", *pair, "-o", pair[which]), "is an input of this command")
    link = pair[0].parent / "link.json"
    link.symlink_to(pair[which])
    refused(cli("compare", *pair, "-f", "json", "-o", f"json={link}"), "is an input")
    assert [p.read_bytes() for p in pair] == before
    _no_temp_files(pair[0].parent)


def test_convert_over_its_own_input_is_refused(pair):
    before = pair[0].read_bytes()
    refused(cli("convert", pair[0], "-o", pair[0]), "is an input of this command")
    relative = Path(os.path.relpath(pair[0]))
    refused(cli("convert", pair[0], "-o", relative), "is an input")
    assert pair[0].read_bytes() == before


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "out.fifo")
    return folder / "out.fifo"


@pytest.mark.parametrize(
    ("make", "word"),
    [
        (lambda folder: folder, "is a directory"),
        (_fifo, "is a FIFO"),
        (lambda _: Path("/dev/zero"), "is a character device"),
    ],
    ids=["directory", "fifo", "device"],
)
def test_only_regular_files_are_replaced(pair, make, word):
    target = make(pair[0].parent)
    refused(cli("compare", *pair, "-o", target), word, "/dev/null")
    refused(cli("convert", pair[0], "-o", target), word)
    assert target.exists()
    assert not target.is_file()


def test_dev_null_and_stdout_work_without_replacing_anything(pair):
    assert cli("compare", *pair, "-o", "/dev/null").code in (0, 1)
    assert cli("convert", pair[0], "-o", "/dev/null").code == 0
    assert Path("/dev/null").is_char_device()
    shown = cli("convert", pair[0], "-o", "-")
    assert orjson.loads(shown.stdout)["trace_id"] == "run-101"


def test_several_formats_from_one_run(pair, tmp_path):
    outcome = cli(
        "compare", *pair, "-o", f"json={tmp_path / 'r.json'}", "-o", f"markdown={tmp_path / 'r.md'}"
    )
    assert outcome.code in (0, 1)
    assert outcome.stdout.count("\n") == 1  # the one-line verdict, naming both files
    assert "r.json" in outcome.stdout and "r.md" in outcome.stdout
    assert orjson.loads((tmp_path / "r.json").read_bytes())["report_version"]
    assert (tmp_path / "r.md").read_text().startswith("## ")
    refused(cli("compare", *pair, "-o", "a.json", "-o", "json=a.json"), "given as an output twice")


def test_update_baseline_follows_a_symlink(pair, tmp_path):
    real = tmp_path / "store" / "real.json"
    real.parent.mkdir()
    shutil.copy(pair[0], real)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert cli("compare", link, pair[1], "--update-baseline", "--force").code in (0, 1)
    assert link.is_symlink()
    assert load_trace(real).steps[1].input_payload["lat"] == 41.0
    _no_temp_files(tmp_path)
    _no_temp_files(real.parent)


def test_update_baseline_refuses_a_read_only_file(pair):
    pair[0].chmod(0o444)
    before = pair[0].read_bytes()
    refused(cli("compare", *pair, "--update-baseline", "--force"), "is read-only")
    assert pair[0].read_bytes() == before


@pytest.mark.parametrize("name", ["base.jsonl", "base.ndjson.gz", "base.json.gz", "gz-by-magic"])
def test_update_baseline_keeps_the_format_family(pair, tmp_path, name):
    target = tmp_path / name
    data = orjson.dumps(orjson.loads(SPEC.read_bytes())) + b"\n"
    gzipped = name.endswith(".gz") or name == "gz-by-magic"
    target.write_bytes(gzip.compress(data) if gzipped else data)
    assert cli("compare", target, pair[1], "--update-baseline", "--force").code in (0, 1)
    written = target.read_bytes()
    assert (written[:2] == b"\x1f\x8b") == gzipped
    text = gzip.decompress(written) if gzipped else written
    if "jsonl" in name or "ndjson" in name:
        assert text.count(b"\n") == 1
    assert load_trace(target).steps[1].input_payload["lat"] == 41.0


def test_a_non_utf8_output_name_leaves_no_temp_file(pair, tmp_path):
    odd = os.fsdecode(b"out-\xff\x1b[31m.json")
    outcome = cli("convert", pair[0], "-o", tmp_path / odd)
    assert outcome.code == 0
    assert (tmp_path / odd).exists()
    _no_temp_files(tmp_path)
    (tmp_path / "taken").write_text("a file where a folder would go")
    outcome = cli("convert", pair[0], "-o", tmp_path / "taken" / odd)
    refused(outcome, "cannot create the folder", "\\udcff", "\\x1b")
    assert "\x1b" not in outcome.stderr


# -- as a user whose permissions are enforced (root would bypass them) -----------------------


def _as_user(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "agentdiff", *map(str, args)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop to an unprivileged user")
        drop = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        if not _can_import_as(tuple(drop)):
            pytest.skip(
                "the unprivileged user cannot read this checkout or its venv "
                "(a private folder, e.g. made by mktemp -d with mode 0700)"
            )
        command = [*drop, *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@functools.cache
def _can_import_as(drop: tuple[str, ...]) -> bool:
    probe = [*drop, sys.executable, "-c", "import agentdiff"]
    return subprocess.run(probe, capture_output=True, timeout=120, check=False).returncode == 0


@pytest.fixture
def open_folder():
    """A folder an unprivileged user may use (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="agentdiff-perm-"))
    folder.chmod(0o777)
    yield folder
    for path in folder.rglob("*"):
        path.chmod(0o777 if path.is_dir() else 0o666)
    shutil.rmtree(folder)


def _give(path: Path, mode: int) -> Path:
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    path.chmod(mode)
    return path


def _clean_refusal(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


def test_unprivileged_read_only_baseline_and_folder(open_folder):
    base = (
        _give(open_folder / "base.json", 0o644)
        if shutil.copy(SPEC, open_folder / "base.json")
        else None
    )
    assert base is not None
    cand = write(open_folder / "cand.json", spec())
    _give(cand, 0o644)
    _give(base, 0o444)
    _clean_refusal(_as_user("compare", base, cand, "--update-baseline"), "read-only")
    locked = open_folder / "locked"
    locked.mkdir()
    _give(locked, 0o555)
    result = _as_user("compare", base, cand, "-o", locked / "report.txt")
    _clean_refusal(result, "cannot write", "Permission denied")
    assert list(locked.iterdir()) == []


def test_unprivileged_baseline_in_a_locked_folder_is_left_intact(open_folder):
    locked = open_folder / "locked"
    locked.mkdir()
    base = locked / "base.json"
    shutil.copy(SPEC, base)
    _give(base, 0o666)
    cand = _give(write(open_folder / "cand.json", spec()), 0o644)
    _give(locked, 0o555)
    before = base.read_bytes()
    result = _as_user("compare", base, cand, "--update-baseline", "--force")
    _clean_refusal(result, "Permission denied")
    assert base.read_bytes() == before
    assert sorted(p.name for p in locked.iterdir()) == ["base.json"]


def test_unprivileged_unreadable_input(open_folder):
    secret = _give(write(open_folder / "secret.json", spec()), 0o000)
    _clean_refusal(_as_user("inspect", secret), "secret.json", "cannot read file")
