"""`no_gc_pauses` pauses the cyclic collector for its block and restores the caller's setting."""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator

import pytest

from agentdiff.gcpause import no_gc_pauses


@pytest.fixture(autouse=True)
def _restore() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_the_block_runs_paused_and_the_collector_comes_back() -> None:
    gc.enable()
    with no_gc_pauses():
        assert not gc.isenabled()
        with no_gc_pauses():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer pause alone
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with no_gc_pauses():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_an_error_in_the_block_still_restores_the_collector() -> None:
    gc.enable()
    with pytest.raises(KeyError), no_gc_pauses():
        raise KeyError("x")
    assert gc.isenabled()


class _SlowReads:
    """`gc` whose `isenabled()` in thread B waits (up to 2 s) until thread A's block is over:
    the thread switch between reading the setting and disabling the collector, made certain."""

    def __init__(self, a_out: threading.Event) -> None:
        self.a_out = a_out

    def isenabled(self) -> bool:
        found = gc.isenabled()
        if threading.current_thread().name == "B":
            self.a_out.wait(2)
        return found

    def disable(self) -> None:
        gc.disable()

    def enable(self) -> None:
        gc.enable()


def test_blocks_in_two_threads_never_leave_the_collector_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """B read "disabled" while A's block ran, A ended and re-enabled, B disabled: for good."""
    gc.enable()
    a_in, a_out = threading.Event(), threading.Event()
    monkeypatch.setattr("agentdiff.gcpause.gc", _SlowReads(a_out))

    def a() -> None:
        with no_gc_pauses():
            a_in.set()
            time.sleep(0.2)  # B is reading the setting meanwhile
        a_out.set()

    def b() -> None:
        a_in.wait(2)
        with no_gc_pauses():
            pass

    threads = [threading.Thread(target=a, name="A"), threading.Thread(target=b, name="B")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert gc.isenabled()
