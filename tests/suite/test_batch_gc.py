"""A batch runs with the cyclic collector paused and gives the caller's setting back."""

from __future__ import annotations

import gc

import pytest

from agentdiff.suite import SuiteOptions, run_suite, task


@pytest.mark.parametrize("enabled", [True, False])
def test_batches_pause_the_collector_and_restore_it(monkeypatch, fixture_sets, enabled) -> None:
    seen: list[bool] = []
    real = task._scenario

    def spying(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(task, "_scenario", spying)
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
    from agentdiff.suite import run as run_module

    seen: list[bool] = []
    real = run_module._judge_statistics

    def spying(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(run_module, "_judge_statistics", spying)
    assert gc.isenabled()
    run_suite(*fixture_sets, SuiteOptions(backend="in-process", only=("langfuse/*",)))
    assert seen == [False]
    assert gc.isenabled()
