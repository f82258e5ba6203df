"""A batch runs with the cyclic collector paused and gives the caller's setting back."""

from __future__ import annotations

import gc

import pytest

from agentdiff.suite import SuiteOptions, run_suite, task
from agentdiff.suite import run as run_module


def _collector_states(monkeypatch, module, name: str) -> list[bool]:
    """Whether the collector was enabled at each call of `module.name` (filled as it runs)."""
    seen: list[bool] = []
    real = getattr(module, name)

    def spying(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spying)
    return seen


@pytest.mark.parametrize("enabled", [True, False])
def test_batches_pause_the_collector_and_restore_it(monkeypatch, fixture_sets, enabled) -> None:
    seen = _collector_states(monkeypatch, task, "_scenario")
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        base, cand = fixture_sets
        report = run_suite(base, cand, SuiteOptions(backend="in-process", only=("langfuse/*",)))
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
    assert seen
    assert not any(seen)
    assert report.counts.scenarios == len(seen)


def test_run_suite_pauses_the_collector_in_the_main_process(monkeypatch, fixture_sets) -> None:
    seen = _collector_states(monkeypatch, run_module, "_judge_statistics")
    assert gc.isenabled()
    run_suite(*fixture_sets, SuiteOptions(backend="in-process", only=("langfuse/*",)))
    assert seen == [False]
    assert gc.isenabled()
