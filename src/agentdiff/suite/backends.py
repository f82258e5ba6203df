"""Execution backends: one call, `map(task, batches) -> iterator of results` (streaming, unordered).

A backend runs a pure module-level function over batches and yields each result as soon as it
is done, in any order; the suite orders rows by scenario key afterwards, so results never depend
on the backend. Built-ins: `InProcess` (small suites), `ProcessPool` (the default; the stdlib,
`os.cpu_count()` processes) and, with `agentdiff[dask]`, `DaskBackend`
(`agentdiff.suite.cluster`). Closing the iterator early (`--fail-fast`) cancels what has not run.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Protocol, TypeVar

__all__ = ["Backend", "InProcess", "ProcessPool", "cpu_count"]

T = TypeVar("T")
R = TypeVar("R")


class Backend(Protocol):
    """Runs `task` over `batches`; yields results as they finish (any order)."""

    name: str
    workers: int

    def map(self, task: Callable[[T], R], batches: Iterable[T]) -> Iterator[R]:
        """Results of `task(batch)` for every batch, streamed in completion order."""
        ...  # pragma: no cover - protocol


def cpu_count() -> int:
    """The CPUs this process may use (affinity-aware), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class InProcess:
    """Runs every batch in this process, one after another."""

    name = "in-process"
    workers = 1

    def map(self, task: Callable[[T], R], batches: Iterable[T]) -> Iterator[R]:
        """Results in batch order (which is one valid completion order)."""
        for batch in batches:
            yield task(batch)


class ProcessPool:
    """A `ProcessPoolExecutor` of `jobs` processes (default: the CPUs this process may use).

    Processes are forked while this process runs a single thread (cheap: they inherit the
    imported library), else started from a fork server. Each worker first freezes what it
    inherited (`gc.freeze`): its collections then never scan (nor copy, page by page) the
    parent's objects. At most two batches per worker are in flight, so a huge suite never
    queues all its batches at once.
    """

    name = "process-pool"

    def __init__(self, jobs: int | None = None) -> None:
        self.workers = jobs or cpu_count()

    def map(self, task: Callable[[T], R], batches: Iterable[T]) -> Iterator[R]:
        """Results as each batch finishes."""
        method = "fork" if threading.active_count() == 1 else "forkserver"
        context = multiprocessing.get_context(method)
        pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=gc.freeze)
        pending: set[Future[R]] = set()
        todo = iter(batches)
        try:
            for batch in todo:
                pending.add(pool.submit(task, batch))
                if len(pending) >= 2 * self.workers:
                    break
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
                    nxt = next(todo, None)
                    if nxt is not None:
                        pending.add(pool.submit(task, nxt))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
