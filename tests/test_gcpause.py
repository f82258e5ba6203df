"""`no_gc_pauses` pauses the cyclic collector for its block and restores the caller's setting."""

from __future__ import annotations

import gc
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
