"""The same suite on Dask: a LocalCluster, and a `dask scheduler` + `dask worker` started here.

Both must write the byte-identical `suite.json` (and tables) the serial run writes. Services
listen on 127.0.0.1 with ephemeral ports and are stopped by the tests.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from agentdiff.errors import ConfigError
from agentdiff.suite import RunSet, SuiteOptions, run_suite

distributed = pytest.importorskip("distributed")
from agentdiff.suite.cluster import DaskBackend, local_cluster  # noqa: E402

NO_DASHBOARD = ("--dashboard-address", "127.0.0.1:0")
"""An ephemeral dashboard port: the default 8787 may be taken by a concurrent test run."""
TABLE_FILES = ("suite.json", "runs.jsonl", "pairs.jsonl", "steps.jsonl")


@pytest.fixture(scope="module")
def serial(fixture_sets, tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    run_suite(*fixture_sets, SuiteOptions(backend="in-process", results=str(out)))
    return out


def _same(a: Path, b: Path) -> None:
    for name in TABLE_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def _hold_port_8787() -> socket.socket:
    """Take the scheduler's default HTTP port, as another cluster on the machine may have."""
    holder = socket.socket()
    with contextlib.suppress(OSError):  # someone else holds it: the same situation
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    return holder


def test_local_cluster_matches_serial(fixture_sets, serial, tmp_path):
    # warnings are errors here: the cluster must not fall back from a busy port 8787 with one
    with (
        _hold_port_8787(),
        local_cluster(2) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert len(client.scheduler_info()["workers"]) == 2
        options = SuiteOptions(
            backend=DaskBackend(client), batch_seconds=0.01, results=str(tmp_path)
        )
        done = run_suite(*fixture_sets, options)
    assert done.timings["backend"] == "dask" and done.timings["batches"] > 2
    _same(serial, tmp_path)


def _start(args: list[str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            args, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _address(log: Path, deadline: float) -> str:
    while time.monotonic() < deadline:
        text = log.read_bytes().decode(errors="replace")
        found = re.search(r"Scheduler at:\s+(tcp://127\.0\.0\.1:\d+)", text)
        if found:
            return found.group(1)
        time.sleep(0.1)
    pytest.fail(f"the dask scheduler did not start: {log.read_bytes()[-2000:]!r}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """`dask scheduler` and one `dask worker` (2 processes) run from another folder."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    dask = str(Path(sys.executable).with_name("dask"))
    log = elsewhere / "scheduler.log"
    sched = _start(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", *NO_DASHBOARD], elsewhere, log
    )
    workers = None
    try:
        address = _address(log, time.monotonic() + 60)
        workers = _start(
            [
                dask,
                "worker",
                address,
                "--nworkers",
                "2",
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                *NO_DASHBOARD,
            ],
            elsewhere,
            elsewhere / "worker.log",
        )
        with distributed.Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        if workers is not None:
            _stop(workers)
        _stop(sched)


def test_cli_started_scheduler_matches_serial(fixture_suite, serial, scheduler, tmp_path):
    from typer.testing import CliRunner

    from agentdiff.cli.app import app

    base, cand = fixture_suite
    args = ["suite", str(base), str(cand), "--layout", "files", "--scheduler", scheduler]
    result = CliRunner().invoke(app, [*args, "--results", str(tmp_path), "-f", "json"])
    assert result.exit_code == 1, result.output  # the suite has regressions
    assert orjson.loads((tmp_path / "timings.json").read_bytes())["backend"] == "dask"
    _same(serial, tmp_path)


def test_memory_filesystem_inputs(fixture_suite, serial, tmp_path):
    fsspec = pytest.importorskip("fsspec")
    fs = fsspec.filesystem("memory")
    base, cand = fixture_suite
    for side in (base, cand):
        for path in side.rglob("*.json*"):
            fs.pipe(f"/suite/{side.name}/{path.relative_to(side).as_posix()}", path.read_bytes())
    sets = (
        RunSet.from_dir("memory://suite/baseline", layout="files"),
        RunSet.from_dir("memory://suite/candidate", layout="files"),
    )
    assert sets[0].root == "memory:///suite/baseline"
    done = run_suite(*sets, SuiteOptions(backend="in-process", results=str(tmp_path)))
    expected = (serial / "suite.json").read_text()
    # the same rows (an error names its file relative to the root); only roots and labels differ
    mine, theirs = orjson.loads(done.to_json()), orjson.loads(expected)
    for key in ("baseline", "candidate", "name"):
        mine.pop(key), theirs.pop(key)
    assert mine == theirs
    broken = done.scenario("extra/broken").errors[0].message
    assert broken.startswith("extra/broken.json: invalid JSON")


def test_a_scheduler_that_is_no_address_exits_2(fixture_suite):
    from typer.testing import CliRunner

    from agentdiff.cli.app import app

    base, cand = fixture_suite
    for address in ("notaurl", "localhost", "inproc://x"):
        args = ["suite", str(base), str(cand), "--scheduler", address]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, result.output
        said = " ".join(result.output.split())  # unwrapped
        assert f"--scheduler: '{address}' is not a Dask scheduler address" in said
        assert "tcp://HOST:PORT" in said
        assert "cannot reach" not in said  # nothing was contacted
        assert "running there" not in said


def test_a_local_cluster_starts_no_more_workers_than_batches(monkeypatch):
    from agentdiff.suite import cluster as cluster_module

    sizes: list[int] = []

    def counted(workers: int):
        made = local_cluster(workers)
        sizes.append(len(made.workers))
        return made

    monkeypatch.setattr(cluster_module, "local_cluster", counted)
    assert sorted(DaskBackend(workers=8).map(abs, [-1, 2])) == [1, 2]
    assert sizes == [2]  # as the process pool: `-j 8` over 2 batches starts 2


def test_a_scheduler_that_is_no_address_starts_no_event_loop():
    """A client that fails to construct leaves its event loop thread running, and a later
    `LocalCluster` in the same process could then not start its own (seen in the full suite)."""
    import threading

    before = {thread.name for thread in threading.enumerate()}
    with pytest.raises(ConfigError, match="'notaurl' is not a Dask scheduler address") as info:
        list(DaskBackend("notaurl").map(abs, [1]))
    assert "cannot reach" not in str(info.value)
    assert info.value.source is None  # no flag: the library was given it
    assert {thread.name for thread in threading.enumerate()} - before == set()
