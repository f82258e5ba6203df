"""Planning a suite: match scenarios, apply overrides, size batches, pick the backend.

Work is estimated from input bytes (about 60 ns per byte loaded and compared, measured on
50- and 200-step pairs; 20 KB per run when the size is unknown). Batches hold consecutive
scenarios in key order (joining results in batch order keeps key order) and are sized
*guided*: each about the work still to hand out over four per worker, between 0.05 and 0.25 s.
Early batches are large, so a task's overhead (about 1.6 ms on Dask, less in the pool) stays
small; the last ones are small, so no worker finishes a long batch while the others idle.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fnmatch import fnmatchcase
from typing import TypeVar

from agentdiff.gate import GateThresholds
from agentdiff.stats_options import StatsOptions
from agentdiff.suite.backends import Backend, InProcess, ProcessPool, cpu_count
from agentdiff.suite.options import SuiteOptions
from agentdiff.suite.refs import RunRef
from agentdiff.suite.runset import RunSet
from agentdiff.suite.task import Batch, ScenarioJob, TaskContext

__all__ = ["choose_backend", "estimate_seconds", "make_batches", "plan_jobs"]

SECONDS_PER_BYTE = 60e-9
UNKNOWN_RUN_BYTES = 20_000
IN_PROCESS_BELOW_S = 0.5
"""Suites estimated under this run in-process (a pool costs ~0.1 s to start)."""
_BATCH_MIN_S, _BATCH_MAX_S = 0.05, 0.25


def plan_jobs(baseline: RunSet, candidate: RunSet, options: SuiteOptions) -> list[ScenarioJob]:
    """One job per scenario on either side (filtered by `only`), in key order."""
    keys = sorted(set(baseline.runs) | set(candidate.runs))
    if options.only:
        keys = [k for k in keys if any(fnmatchcase(k, glob) for glob in options.only)]
    return [
        _job(key, baseline.runs.get(key, ()), candidate.runs.get(key, ()), options) for key in keys
    ]


def _job(
    key: str, base: tuple[RunRef, ...], cand: tuple[RunRef, ...], options: SuiteOptions
) -> ScenarioJob:
    """A scenario's job with the `[[scenario]]` overrides matching its key (later ones win).

    An override is a manifest value, so a flag or an environment variable that set the same
    setting wins over it (flag > env > manifest per scenario > manifest > file > default).
    """
    gate: dict[str, object] = {}
    stats: dict[str, object] = {}
    sources: dict[str, str] = {}
    for override in options.overrides:
        if fnmatchcase(key, override.match):
            gate.update(override.settings)
            stats.update(override.stats)
            sources.update(dict.fromkeys(override.settings, override.source))
    gate = {k: v for k, v in gate.items() if not _given_outside(k, options.sources)}
    stats = {k: v for k, v in stats.items() if not _given_outside(k, options.sources)}
    return ScenarioJob(
        scenario=key,
        baseline=base,
        candidate=cand,
        gate=_with(options.compare.gate, gate) if gate else None,
        stats=_with(options.stats, stats) if stats else None,
        overrides=tuple(sorted({**gate, **stats}.items())),
        sources=tuple(sorted((k, sources[k]) for k in gate)),
    )


_Model = TypeVar("_Model", GateThresholds, StatsOptions)


def _with(base: _Model, changed: dict[str, object]) -> _Model:
    return type(base).model_validate({**base.model_dump(), **changed})


def _given_outside(setting: str, sources: Mapping[str, str]) -> bool:
    """Whether a flag or an environment variable set `setting` (see `agentdiff.config`)."""
    return sources.get(setting, "").startswith(("flag ", "env "))


def _job_seconds(job: ScenarioJob) -> float:
    size = sum(
        UNKNOWN_RUN_BYTES if ref.size is None else ref.size for ref in job.baseline + job.candidate
    )
    return size * SECONDS_PER_BYTE


def estimate_seconds(jobs: list[ScenarioJob]) -> float:
    """Estimated single-core seconds to load and compare everything in `jobs`."""
    return sum(map(_job_seconds, jobs))


def choose_backend(options: SuiteOptions, estimate: float) -> Backend:
    """The backend `options` ask for (`local`: in-process when small, else a process pool)."""
    backend = options.backend
    jobs = None if options.jobs == "auto" else options.jobs
    if not isinstance(backend, str):
        return backend  # type: ignore[no-any-return]
    if backend == "dask":
        from agentdiff.suite.cluster import DaskBackend  # noqa: PLC0415 - optional extra

        return DaskBackend(options.scheduler, workers=jobs)
    if backend == "in-process" or jobs == 1:
        return InProcess()
    if backend == "local" and (estimate < IN_PROCESS_BELOW_S or (jobs or cpu_count()) == 1):
        return InProcess()
    return ProcessPool(jobs)


def make_batches(
    jobs: list[ScenarioJob], context: TaskContext, workers: int, batch_seconds: float | None
) -> Iterator[Batch]:
    """Consecutive jobs grouped into batches of `batch_seconds` of work, else sized guided."""
    left = estimate_seconds(jobs)
    index, current, work = 0, [], 0.0
    target = batch_seconds or _guided(left, workers)
    for job in jobs:
        current.append(job)
        work += _job_seconds(job)
        if work >= target:
            yield Batch(index, tuple(current), context)
            left -= work
            index, current, work = index + 1, [], 0.0
            target = batch_seconds or _guided(left, workers)
    if current:
        yield Batch(index, tuple(current), context)


def _guided(left: float, workers: int) -> float:
    """The next batch's work: a share of what is left, within the batch bounds."""
    return min(_BATCH_MAX_S, max(_BATCH_MIN_S, left / max(1, 4 * workers)))
