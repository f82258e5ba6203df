"""`DaskBackend`: the suite's tasks on a Dask cluster (`pip install 'agentdiff[dask]'`).

`DaskBackend()` starts a `LocalCluster` of worker processes with one thread each (`workers`
of them, default: the CPUs this process may use, and no more than there are batches, as the
process pool) and closes it when the map is done;
`DaskBackend("tcp://host:8786")` attaches to a running scheduler and leaves it running;
`DaskBackend(client)` uses a `distributed.Client` you already have. Tasks are the same pure
function the other backends run, submitted with `client.map(..., pure=False)` and collected
with `as_completed`; workers read their inputs where they live (paths, or fsspec URLs) and
write their table parts directly, so only small rows come back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from typing import Any, TypeVar

from agentdiff.errors import ConfigError
from agentdiff.suite.backends import cpu_count, workers_needed

__all__ = ["DaskBackend", "check_scheduler", "local_cluster"]

T = TypeVar("T")
R = TypeVar("R")


def _distributed() -> Any:
    try:
        import distributed  # noqa: PLC0415 - optional dependency
    except ImportError:
        msg = "the dask backend needs dask.distributed"
        raise ConfigError(msg, hint="pip install 'agentdiff[dask]'") from None
    return distributed


def local_cluster(workers: int) -> Any:
    """A `LocalCluster` of `workers` processes, one thread each, on 127.0.0.1.

    The scheduler's HTTP server takes an ephemeral port: with no address it would try 8787 and
    only warn and move when another cluster holds it.
    """
    return _distributed().LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=40,
    )


def check_scheduler(address: str, *, source: str | None = None) -> None:
    """Refuses `address` when it is no scheduler address (nothing is contacted).

    `source`: where it was given (`--scheduler`), named by the error.
    """
    try:
        _distributed().comm.get_address_host_port(address)
    except ValueError as exc:
        msg = f"{address!r} is not a Dask scheduler address (expected tcp://HOST:PORT): {exc}"
        raise ConfigError(msg, hint="e.g. tcp://127.0.0.1:8786", source=source) from None


class DaskBackend:
    """Runs batches on Dask: a fresh `LocalCluster`, a scheduler address, or a given client."""

    name = "dask"

    def __init__(self, scheduler: str | Any | None = None, *, workers: int | None = None) -> None:
        _distributed()
        self._scheduler = scheduler
        self.workers = workers or cpu_count()

    def map(self, task: Callable[[T], R], batches: Iterable[T]) -> Iterator[R]:
        """Results as each batch finishes on the cluster."""
        distributed = _distributed()
        listed = list(batches)
        with ExitStack() as stack:
            client = self._client(distributed, stack, workers_needed(self.workers, listed))
            futures = client.map(task, listed, pure=False)
            try:
                for future in distributed.as_completed(futures):
                    yield future.result()
            finally:
                client.cancel(futures)

    def _client(self, distributed: Any, stack: ExitStack, workers: int) -> Any:
        """The client to submit to; a `LocalCluster` of `workers` when no scheduler is given."""
        if isinstance(self._scheduler, distributed.Client):
            return self._scheduler
        if isinstance(self._scheduler, str):
            # not an address at all: refused before a client starts its event loop thread,
            # which a client that fails to construct leaves running
            check_scheduler(self._scheduler)
            try:
                return stack.enter_context(distributed.Client(self._scheduler, timeout="10s"))
            except OSError as exc:  # refused, unreachable, timed out (TimeoutError)
                msg = f"cannot reach the Dask scheduler at {self._scheduler}: {exc}"
                raise ConfigError(msg, hint="is `dask scheduler` running there?") from None
        cluster = stack.enter_context(local_cluster(workers))
        return stack.enter_context(distributed.Client(cluster))
