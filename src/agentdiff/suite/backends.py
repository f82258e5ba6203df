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
from collections.abc import Callable, Iterable, Iterator, Sized
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from multiprocessing.process import BaseProcess
from typing import Protocol, TypeVar

from agentdiff.errors import ConfigError

__all__ = ["Backend", "InProcess", "ProcessPool", "cpu_count", "workers_needed"]

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


def workers_needed(workers: int, first: Sized) -> int:
    """How many of `workers` to start for the `first` batches: no more than they need.

    `-j 400` over 3 batches starts 3 (every backend that starts its own workers asks this).
    """
    return max(1, min(workers, len(first)))


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
        """Results as each batch finishes.

        No more processes than the first batches need (`-j 400` over 3 batches starts 3). When
        the system refuses a process (a pids limit: `fork` fails with EAGAIN), the ones started
        are stopped and it is a `ConfigError` naming `--jobs`: the pool's own shutdown would
        wait forever for workers that never get their stop signal.
        """
        method = "fork" if threading.active_count() == 1 else "forkserver"
        context = multiprocessing.get_context(method)
        todo = iter(batches)
        first = list(islice(todo, 2 * self.workers))
        workers = workers_needed(self.workers, first)
        before = set(multiprocessing.active_children())
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=gc.freeze)
        pending: set[Future[R]] = set()

        def submit(batch: T) -> Future[R]:
            try:
                return pool.submit(task, batch)
            except OSError as exc:  # the fork (or the fork server) failed: EAGAIN, ENOMEM
                _stop_started(before)
                msg = f"cannot start {workers} worker processes: {exc.strerror or exc}"
                raise ConfigError(msg, hint="lower --jobs (or the suite's jobs setting)") from None

        try:
            pending = {submit(batch) for batch in first}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
                    nxt = next(todo, None)
                    if nxt is not None:
                        pending.add(submit(nxt))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _stop_started(before: set[BaseProcess]) -> None:
    """Stop the processes started since `before` (a pool's workers, waiting for work)."""
    started = set(multiprocessing.active_children()) - before
    for process in started:
        process.terminate()
    for process in started:
        process.join()
