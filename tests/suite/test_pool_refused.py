"""A process the system refuses (a pids limit: `fork` fails with EAGAIN) is a clean error naming
`--jobs`, with no worker left behind: the pool's shutdown waited forever for the workers it had
started (a reviewer ran `suite -j 100` under `prlimit --nproc=40`: exit-3 message, then a hang)."""

from __future__ import annotations

import multiprocessing
import threading
from multiprocessing.process import BaseProcess

import pytest

from agentdiff.errors import ConfigError
from agentdiff.suite.backends import ProcessPool
from agentdiff.suite.options import SuiteOptions
from agentdiff.suite.run import run_suite


@pytest.fixture
def forks_refused_after_two(monkeypatch: pytest.MonkeyPatch) -> None:
    """Process starts fail as `fork` does under a pids limit (whichever start method runs)."""
    real, made = BaseProcess.start, []

    def start(process: BaseProcess) -> None:
        if len(made) >= 2:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        made.append(1)
        real(process)

    monkeypatch.setattr(BaseProcess, "start", start)


@pytest.mark.usefixtures("forks_refused_after_two")
@pytest.mark.parametrize("threaded", [False, True])  # fork; a fork server (a thread runs)
def test_a_refused_worker_stops_the_pool_and_names_jobs(threaded: bool) -> None:
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    if threaded:
        other.start()
    before = set(multiprocessing.active_children())
    try:
        with pytest.raises(ConfigError, match="cannot start 6 worker processes") as raised:
            list(ProcessPool(6).map(abs, range(-20, 0)))  # a builtin: any worker imports it
    finally:
        stop.set()
    assert "--jobs" in (raised.value.hint or "")
    assert set(multiprocessing.active_children()) == before  # none left waiting


def test_no_more_workers_than_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    real, made = BaseProcess.start, []

    def start(process: BaseProcess) -> None:
        made.append(1)
        real(process)

    monkeypatch.setattr(BaseProcess, "start", start)
    before = set(multiprocessing.active_children())
    assert sorted(ProcessPool(50).map(abs, [-1, -2, -3])) == [1, 2, 3]
    assert len(made) == 3  # `-j 50` over 3 batches: 3 processes, not 50
    assert set(multiprocessing.active_children()) == before


@pytest.mark.usefixtures("forks_refused_after_two")
def test_a_suite_whose_pool_is_refused_is_an_input_error(fixture_sets) -> None:
    options = SuiteOptions(backend="pool", jobs=8, batch_seconds=0.001)
    with pytest.raises(ConfigError, match="cannot start"):
        run_suite(*fixture_sets, options)
