"""A suite's verdict never depends on the environment of the process that runs a batch.

Input limits (`AGENTDIFF_MAX_STEPS`, `AGENTDIFF_MAX_INPUT_SIZE`) are resolved once in the
client and travel with the task: a worker on an attached cluster, started with another
environment, judges the runs as the client would.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

import orjson
import pytest

from agentdiff.suite import RunSet, SuiteOptions, run_suite

T = TypeVar("T")
R = TypeVar("R")
LIMITS = ("AGENTDIFF_MAX_STEPS", "AGENTDIFF_MAX_INPUT_SIZE")


class _Elsewhere:
    """Runs each batch as a worker started without the client's limits would (pickled, as sent)."""

    name = "elsewhere"
    workers = 1

    def map(self, task: Callable[[T], R], batches: Iterable[T]) -> Iterator[R]:
        for batch in batches:
            sent = pickle.loads(pickle.dumps(batch))  # noqa: S301 - our own bytes, as a cluster sends them
            saved = {name: os.environ.pop(name) for name in LIMITS if name in os.environ}
            try:
                yield task(sent)
            finally:
                os.environ.update(saved)


def _verdicts(sets: tuple[RunSet, RunSet], backend: object) -> list[tuple[str, str, str]]:
    report = run_suite(*sets, SuiteOptions(backend=backend))
    rows = [orjson.loads(row) for row in report.scenarios.blobs]
    return [(r["scenario"], r["verdict"], orjson.dumps(r["errors"]).decode()) for r in rows]


def test_a_worker_without_the_clients_limits_gives_the_clients_verdicts(
    fixture_sets: tuple[RunSet, RunSet], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTDIFF_MAX_STEPS", "3")
    here = _verdicts(fixture_sets, "in-process")
    elsewhere = _verdicts(fixture_sets, _Elsewhere())
    assert any(verdict == "error" and "steps" in errors for _, verdict, errors in here)
    assert elsewhere == here
