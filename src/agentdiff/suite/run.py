"""`run_suite()`: two run sets in, one `SuiteReport` out.

Plan (match scenarios, overrides, batches) → map the pure task over the batches on the chosen
backend, streaming rows back → order rows by scenario key → with a results folder, join the
tables the tasks wrote and write `suite.json`, `timings.json` (and Parquet when the `results`
extra is installed) and the pair reports of the most severe regressions (`agentdiff.suite.pages`).
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from agentdiff.config import COMPARE_SETTINGS, SETTINGS
from agentdiff.diff import CompareOptions
from agentdiff.gcpause import no_gc_pauses
from agentdiff.limits import Limits
from agentdiff.redact import Redactor
from agentdiff.scenario.judge import judge
from agentdiff.scenario.report import ScenarioReport
from agentdiff.stats_options import StatsOptions
from agentdiff.suite.options import SuiteOptions
from agentdiff.suite.pages import deciding_pages
from agentdiff.suite.plan import choose_backend, estimate_seconds, make_batches, plan_jobs
from agentdiff.suite.report import RunSetInfo, SuiteReport, Threshold
from agentdiff.suite.rows import Rows
from agentdiff.suite.runset import RunSet
from agentdiff.suite.task import (
    BatchResult,
    RowOut,
    ScenarioJob,
    TaskContext,
    fails_fast,
    run_batch,
)

__all__ = ["Progress", "run_suite"]

Progress = Callable[[int, int], None]
"""Called with (scenarios done, scenarios in the suite) after every finished batch."""


def run_suite(
    baseline: RunSet,
    candidate: RunSet,
    options: SuiteOptions | None = None,
    *,
    progress: Progress | None = None,
) -> SuiteReport:
    """Judge every scenario of `candidate` against `baseline` (see `SuiteOptions`).

    The cyclic collector is paused throughout, as the CLI pauses it (rows, plans and reports
    hold no cycles; each batch frees its own cyclic garbage): a library caller gets the CLI's
    speed, and its setting is restored afterwards.
    """
    with no_gc_pauses():
        return _run_suite(baseline, candidate, options or SuiteOptions(), progress)


def _run_suite(
    baseline: RunSet, candidate: RunSet, options: SuiteOptions, progress: Progress | None
) -> SuiteReport:
    started = time.perf_counter()
    thresholds = _thresholds(options)
    jobs = plan_jobs(baseline, candidate, options)
    estimate = estimate_seconds(jobs)
    backend = choose_backend(options, estimate)
    context = TaskContext(
        baseline_root=_absolute(baseline.root),
        candidate_root=_absolute(candidate.root),
        options=_with_sources(options.compare, thresholds),
        allow_missing=options.allow_missing,
        results=options.results and _absolute(options.results),
        stats=options.stats,
        fail_fast=options.fail_fast,
        decisive_p=options.stats.fdr / max(1, len(jobs)),
        limits=Limits.resolve(),  # here, in the client: never a worker's own environment
    )
    batches = make_batches(jobs, context, backend.workers, options.batch_seconds)
    planned = time.perf_counter()
    stream = backend.map(run_batch, batches)
    rows, results = _collect(stream, len(jobs), options, progress, context.decisive_p)
    ran = time.perf_counter()
    rows.sort(key=lambda row: row.scenario)
    own = {job.scenario: job.stats for job in jobs if job.stats is not None}
    rows, tarone = _judge_statistics(rows, options, own)
    verdicts = [row.verdict for row in rows]
    report = SuiteReport.model_construct(
        name=options.name or f"{baseline.label} vs {candidate.label}",
        baseline=_info(baseline, jobs, rows, 0),
        candidate=_info(candidate, jobs, rows, 1),
        thresholds=thresholds,
        scenario_overrides=[{"match": o.match, **o.settings, **o.stats} for o in options.overrides],
        only=list(options.only),
        allow_missing=options.allow_missing,
        unjudged=len(jobs) - len(rows),
        counts=SuiteReport.count(verdicts, partly_loaded=sum(_partly_loaded(r) for r in rows)),
        scenarios=Rows([row.json for row in rows], verdicts),
        stats=options.stats.model_dump(mode="json"),
        tarone_threshold=tarone,
    )
    if options.pair_pages or context.results:
        paged = time.perf_counter()
        jobs_of = {j.scenario: j for j in jobs}
        report.pair_pages.update(deciding_pages(report, jobs_of, context, options.pages))
        report.pages_redacted = options.pages.redact is not False
        report.timings["pages_s"] = round(time.perf_counter() - paged, 4)
    timings = report.timings
    timings.update(
        backend=backend.name,
        workers=backend.workers,
        batches=len(results),
        scenarios=len(rows),
        pairs=sum(r.pairs for r in results),
        estimated_s=round(estimate, 3),
        plan_s=round(planned - started, 4),
        run_s=round(ran - planned, 4),
        task_s=round(sum(r.seconds for r in results), 4),
        task_cpu_s=round(sum(r.cpu_seconds for r in results), 4),
        stopped_early=len(rows) < len(jobs),
        host=_host(),
    )
    timings["wall_s"] = round(time.perf_counter() - started, 4)
    if context.results:
        from agentdiff.suite.results import finish_results  # noqa: PLC0415 - cycle

        names = Redactor(patterns=options.pages.redact_patterns)  # on even with --no-redact
        finish_results(report, context.results, [r.index for r in results], names)
    return report


_SETTLED = {"verdict", "p", "q", "p_better", "q_better", "needs", "reasons", "tests"}
"""The fields of a scenario's statistics that `judge` settles (everything else stays)."""
_UNJUDGED = frozenset({"routes", "noise_floor", "nearest", "runs", "invariants"})
"""The bulk of a scenario's statistics, which `judge` never reads (left out when it judges)."""


def _judge_statistics(
    rows: list[RowOut], options: SuiteOptions, own: dict[str, StatsOptions]
) -> tuple[list[RowOut], float | None]:
    """Settle the multi-run scenarios together (Benjamini–Hochberg with Tarone across them).

    Only their rows are read, as plain JSON (one orjson parse, at C speed); `judge` gets each
    one's statistics without the parts it never reads (routes, runs, nearest pairs), and the
    fields it settles are written back into the row, which is dumped as `row_json` dumps it.
    Every other row stays as the JSON its task sent.
    """
    multi = [i for i, row in enumerate(rows) if row.multi_run]
    if not multi:
        return rows, None
    parsed = {i: orjson.loads(rows[i].json) for i in multi}
    drafts = [
        ScenarioReport.model_validate(
            {k: v for k, v in parsed[i]["stats"].items() if k not in _UNJUDGED}
        )
        for i in multi
    ]
    judged = judge(drafts, options.stats, options.sources, own)
    out = list(rows)
    for i, scenario in zip(multi, judged.scenarios, strict=True):
        row = parsed[i]
        row["verdict"] = verdict = scenario.verdict.value
        row["stats"].update(scenario.model_dump(mode="json", include=_SETTLED))
        out[i] = rows[i]._replace(verdict=verdict, json=orjson.dumps(row))
    return out, judged.tarone_threshold


def _collect(
    stream: object,
    total: int,
    options: SuiteOptions,
    progress: Progress | None,
    decisive_p: float,
) -> tuple[list[RowOut], list[BatchResult]]:
    rows: list[RowOut] = []
    results: list[BatchResult] = []
    iterator = iter(stream)  # type: ignore[call-overload]
    try:
        for result in iterator:
            results.append(result)
            rows.extend(result.rows)
            failed = any(fails_fast(r, decisive_p) for r in result.rows)
            result.rows = []
            if progress is not None:
                progress(len(rows), total)
            if options.fail_fast and failed:
                break
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
    return rows, results


def _partly_loaded(row: RowOut) -> bool:
    """A scenario judged on the runs that loaded while others could not be (it fails the suite)."""
    return row.unloaded > 0 and row.verdict != "error"


def _absolute(root: str) -> str:
    if not root or "://" in root:
        return root
    return str(Path(root).absolute())


def _info(runs: RunSet, jobs: list[ScenarioJob], rows: list[RowOut], side: int) -> RunSetInfo:
    """One side as the suite judged it: its scenarios after `--only`, the runs its rows loaded.

    A file of several traces counts as several runs, and runs of scenarios left out by `only`
    (or not reached after `--fail-fast`) are not counted.
    """
    return RunSetInfo(
        label=runs.label,
        root=runs.root,
        provenance=runs.provenance,
        scenarios=sum(1 for job in jobs if (job.candidate if side else job.baseline)),
        runs=sum(row.runs[side] for row in rows),
    )


def _thresholds(options: SuiteOptions) -> list[Threshold]:
    """Every setting with its value and source, as `suite.json` lists them.

    The source is `options.sources`' entry, else the compare options' own, else `default` (the
    default value) or `options` (set in code).
    """
    defaults = SuiteOptions().compare
    out = []
    owners = {
        "gate": (options.compare.gate, defaults.gate),
        "compare": (options.compare, defaults),
        "stats": (options.stats, SuiteOptions().stats),
    }
    stats_settings = tuple(s for s in SETTINGS if s.section == "stats")
    for setting in (*COMPARE_SETTINGS, *stats_settings):
        owner, default_owner = owners[setting.section]
        value = getattr(owner, setting.name)
        source = options.sources.get(setting.name)
        if source is None and setting.section != "stats":
            source = options.compare.sources.get(setting.name)
        if source is None:
            source = "default" if value == getattr(default_owner, setting.name) else "options"
        out.append(Threshold(setting=setting.name, value=_plain(value), source=source))
    return out


def _with_sources(compare: CompareOptions, thresholds: list[Threshold]) -> CompareOptions:
    """`compare` whose `sources` name every gate and compare setting as `suite.json` does.

    The pair reports a suite makes (`agentdiff.suite.pages`) read them, so they say where each
    threshold came from in the same words.
    """
    names = {setting.name for setting in COMPARE_SETTINGS}
    sources = {**compare.sources, **{t.setting: t.source for t in thresholds if t.setting in names}}
    return compare.model_copy(update={"sources": sources})


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def _host() -> dict[str, object]:
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }
