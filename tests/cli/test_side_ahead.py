"""`agentdiff compare` prepares a large candidate in a child process (`cli.side_ahead`).

Run in a fresh interpreter each (a process that forks must hold no other thread), with the size
threshold lowered so that real captured pairs take the path: the report is byte for byte the
one a single process writes, the child's side was the one used, a child that fails or a bad
input changes nothing the user sees, and no child outlives the command.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from agentdiff.cli import side_ahead
from agentdiff.diff.options import CompareOptions
from agentdiff.errors import ConfigError
from tests.realdata import REAL

DETOUR = REAL / "openinference" / "detour"
PAIR = (DETOUR / "baseline.otlp.json", DETOUR / "candidate.otlp.json")

_PROBE = """
import os, sys
from agentdiff.cli import side_ahead
from agentdiff.cli.app import build_app

side_ahead.MIN_BYTES = 0
side_ahead._idle_core = lambda: True  # however busy the machine running the tests is
{patch}
used = []
real_side = side_ahead.SideAhead.side

def side(self):
    found = real_side(self)
    used.append(found is not None)
    return found

side_ahead.SideAhead.side = side
try:
    build_app(["compare"])(sys.argv[1:])
except SystemExit as done:
    code = done.code
try:
    os.waitpid(-1, os.WNOHANG)
    children = "some"
except ChildProcessError:
    children = "none"
from agentdiff import reading
held = len(reading._READING)  # bytes held for a load that never took them
print(f"code={{code}} used={{used}} children={{children}} held={{held}}")
"""
_FAILING_CHILD = """
import agentdiff.cli.side_ahead as module
def failing(trace, options):
    raise RuntimeError("the child fails")
module.portable_side = failing
"""


def _compare(tmp_path: Path, *args: str, patch: str = "", single: bool = False):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTDIFF_")}
    if single:
        env["AGENTDIFF_SINGLE_PROCESS"] = "1"
    probe = textwrap.dedent(_PROBE).format(patch=patch)
    command = [sys.executable, "-c", probe, "compare", *args]
    return subprocess.run(
        command, capture_output=True, text=True, check=False, cwd=tmp_path, env=env
    )


def _last(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout.strip().splitlines()[-1]


def test_the_report_is_the_one_a_single_process_writes(tmp_path: Path) -> None:
    for name, single in (("forked.json", False), ("single.json", True)):
        done = _compare(tmp_path, *map(str, PAIR), "-f", "json", "-o", name, single=single)
        assert done.stderr == ""
        expected = "used=[True]" if not single else "used=[]"
        assert f"code=1 {expected} children=none held=0" == _last(done)  # the gate fails (a detour)
    assert (tmp_path / "forked.json").read_bytes() == (tmp_path / "single.json").read_bytes()


def test_a_child_that_fails_changes_nothing(tmp_path: Path) -> None:
    failed = _compare(tmp_path, *map(str, PAIR), "-f", "json", "-o", "a.json", patch=_FAILING_CHILD)
    assert failed.stderr == ""  # the child says nothing
    assert _last(failed) == "code=1 used=[False] children=none held=0"
    single = _compare(tmp_path, *map(str, PAIR), "-f", "json", "-o", "b.json", single=True)
    assert _last(single).startswith("code=1")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


@pytest.mark.parametrize("bad", ["baseline", "candidate"])
def test_bad_input_is_reported_as_without_a_child(tmp_path: Path, bad: str) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"resourceSpans": [', encoding="utf-8")
    args = [str(broken), str(PAIR[1])] if bad == "baseline" else [str(PAIR[0]), str(broken)]
    forked, single = _compare(tmp_path, *args), _compare(tmp_path, *args, single=True)
    assert forked.stderr == single.stderr
    assert forked.stderr.startswith(f"error: {broken}")
    # a child was started (the candidate's bytes were read); the baseline's error ends it
    assert _last(forked) == "code=2 used=[] children=none held=0"
    assert _started(tmp_path, *args)


def _started(tmp_path: Path, *args: str) -> bool:
    """Whether `agentdiff compare ARGS` started a child (with the threshold lowered)."""
    watch = """
import agentdiff.cli.side_ahead as module
real = module.side_ahead
def watched(*args, **kwargs):
    found = real(*args, **kwargs)
    print("started" if found is not None else "not started", flush=True)
    return found
module.side_ahead = watched
import agentdiff.cli.compare as command
command.side_ahead = watched
"""
    return "started" in _compare(tmp_path, *args, patch=watch).stdout.splitlines()


def test_a_process_that_cannot_be_started_leaves_the_work_here(tmp_path: Path) -> None:
    no_fork = """
import errno
def refused():
    raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
os.fork = refused
"""
    check = (
        no_fork
        + """
from agentdiff import reading
import atexit
"""
    )
    done = _compare(tmp_path, *map(str, PAIR), "-f", "json", "-o", "a.json", patch=check)
    assert done.stderr == ""
    assert _last(done) == "code=1 used=[] children=none held=0"
    _compare(tmp_path, *map(str, PAIR), "-f", "json", "-o", "b.json", single=True)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_the_child_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    orphaned = """
import signal, time
import agentdiff.cli.side_ahead as module
def slow(trace, options):
    time.sleep(60)
module.portable_side = slow
real_init = module.SideAhead.__init__
def started(self, pid, pipe):
    print(f"child={pid}", flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
module.SideAhead.__init__ = started
"""
    done = _compare(tmp_path, *map(str, PAIR), "-f", "json", "-o", "a.json", patch=orphaned)
    child = int(done.stdout.split("child=")[1].split()[0])
    assert done.returncode == -9
    for _ in range(100):
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_only_a_large_candidate_in_one_file_is_prepared_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTDIFF_SINGLE_PROCESS", raising=False)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * side_ahead.MIN_BYTES)
    worth = side_ahead._worth_a_child
    options = CompareOptions()
    monkeypatch.setattr(side_ahead.threading, "active_count", lambda: 1)  # pytest runs threads
    monkeypatch.setattr(side_ahead, "_idle_core", lambda: True)
    assert worth(big, options)
    assert not worth(PAIR[1], options)  # small
    assert not worth(big, CompareOptions(fold_framework_steps=True))
    lines = tmp_path / "big.jsonl"
    lines.write_bytes(big.read_bytes())
    assert not worth(lines, options)
    assert not worth(tmp_path / "missing.json", options)
    for off in ("1", "true", "YES", "on"):
        monkeypatch.setenv("AGENTDIFF_SINGLE_PROCESS", off)
        assert not worth(big, options)
    for on in ("0", "false", "no", "off", " "):
        monkeypatch.setenv("AGENTDIFF_SINGLE_PROCESS", on)
        assert worth(big, options)
    monkeypatch.setenv("AGENTDIFF_SINGLE_PROCESS", "maybe")
    with pytest.raises(ConfigError, match="AGENTDIFF_SINGLE_PROCESS"):
        worth(big, options)
    monkeypatch.setenv("AGENTDIFF_SINGLE_PROCESS", "0")
    monkeypatch.setattr(side_ahead, "_idle_core", lambda: False)
    assert not worth(big, options)  # every core busy: a child would only compete
    monkeypatch.setattr(side_ahead, "_idle_core", lambda: True)
    monkeypatch.setattr(side_ahead.threading, "active_count", lambda: 2)
    assert not worth(big, options)  # a thread running: no fork


def test_one_file_on_both_sides_is_prepared_here(tmp_path: Path) -> None:
    done = _compare(tmp_path, str(PAIR[1]), str(PAIR[1]), "-f", "json", "-o", "same.json")
    assert _last(done) == "code=0 used=[] children=none held=0"
