"""`agentdiff suite BASELINE CANDIDATE`: every scenario of two run sets, one report, one exit code.

Exit codes as `compare`: 0 nothing regressed; 1 a scenario regressed (wins); 2 a usage or
config error, or a scenario that could not be loaded (listed as an error row; the suite goes
on unless `--fail-fast`); 3 internal. Gate settings: flag > `AGENTDIFF_*` > the manifest's
`[gate]` > `agentdiff.toml` > default.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from agentdiff.cli.errors import handle_errors, note_skipped
from agentdiff.cli.options import AdapterOpt, OutputsOpt
from agentdiff.cli.output import Target, check_targets, parse_targets, to_stdout, write_targets
from agentdiff.cli.settings import resolved_options, setting_flags, stats_flags
from agentdiff.config import load_stats
from agentdiff.errors import ConfigError, OutputPathError
from agentdiff.files import make_folder
from agentdiff.loader import input_files
from agentdiff.render.options import RenderOptions
from agentdiff.suite.discover import Layout
from agentdiff.suite.manifest import SuiteManifest, load_manifest
from agentdiff.suite.options import SuiteOptions
from agentdiff.suite.pages import folder_href
from agentdiff.suite.refs import is_url, join_source
from agentdiff.suite.render import SUITE_RENDERERS, render_suite
from agentdiff.suite.render.view import summary_line
from agentdiff.suite.report import SuiteReport
from agentdiff.suite.results import SUITE_FILE, check_results_folder
from agentdiff.suite.run import Progress, run_suite
from agentdiff.suite.runset import RunSet
from agentdiff.suite.settings import resolve_settings

__all__ = ["suite"]

SuiteFormat = Enum("SuiteFormat", {name: name for name in SUITE_RENDERERS}, type=str)  # type: ignore[misc]


class BackendChoice(str, Enum):
    """Where the scenarios run."""

    local = "local"
    dask = "dask"


class LayoutChoice(str, Enum):
    """How a folder's files map to scenarios and runs (see `agentdiff.suite.discover`)."""

    auto = "auto"
    files = "files"
    runs = "runs"


PROGRESS_FROM = 200
"""Suites with at least this many scenarios show a progress bar on a terminal."""


def _jobs(text: str) -> int | Literal["auto"]:
    if text == "auto":
        return "auto"
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise ConfigError(f"--jobs must be a whole number ≥ 1 or 'auto', got {text!r}")
    return jobs


def _sides(
    baseline: str | None,
    candidate: str | None,
    manifest: SuiteManifest | None,
    layout: Layout,
    scenario_key: str | None,
    adapter: str | None,
) -> tuple[RunSet, RunSet]:
    if manifest is not None and baseline is None and candidate is None:
        return manifest.baseline, manifest.candidate
    if baseline is None or candidate is None:
        msg = "give BASELINE and CANDIDATE (folders, globs or URLs of runs), or --manifest FILE"
        raise ConfigError(msg)
    if manifest is not None:
        msg = "give either BASELINE CANDIDATE or --manifest (whose [suite] names both)"
        raise ConfigError(msg)
    return RunSet.from_dirs(
        baseline, candidate, layout=layout, adapter=adapter, scenario_key=scenario_key
    )


def _input_files(sides: tuple[RunSet, RunSet]) -> list[Path]:
    """Every local file the suite reads its runs from (an output must never replace one).

    With the sub-agent transcripts a run file is read with (`input_files`).
    """
    where = (
        join_source(side.root, ref.source)
        for side in sides
        for refs in side.runs.values()
        for ref in refs
    )
    return input_files([Path(location) for location in where if not is_url(location)])


def _check_results(results: str, sides: tuple[RunSet, RunSet], inputs: list[Path]) -> None:
    """Refuse a results folder that would hold an input, or be read as runs by the next suite.

    Inside a folder whose trace files are the runs (`RunSet.scanned`: BASELINE and CANDIDATE
    folders, or the folders a TOML manifest names), its tables would be taken for runs; with
    any input inside it, one could be replaced. A local folder is created now (or the error
    says why it cannot be), and every file the suite will write there is checked, before any
    work.
    """
    if is_url(results):
        return
    where = Path(results).resolve()
    roots = [
        Path(side.root).resolve()
        for side in sides
        if side.scanned and side.root and not is_url(side.root)
    ]
    for root in roots:
        if _within(where, root):
            msg = f"is inside the run folder {root}: its tables would be read as runs next time"
            raise OutputPathError(
                msg, hint="choose a results folder outside both run folders", source=results
            )
    folders_read = {Path(p).parent for p in inputs}  # resolved once per folder, not per file
    held = next((f for f in folders_read if _within(f.resolve(), where)), None)
    if held is not None:
        msg = f"holds runs of this suite (in {held}); refusing to write there"
        raise OutputPathError(msg, hint="choose another results folder", source=results)
    try:
        make_folder(where / SUITE_FILE)
    except OutputPathError as exc:  # named after the folder given, not a file in it
        raise OutputPathError(exc.message, hint=exc.hint, source=results) from None
    check_results_folder(Path(results))


def _within(path: Path, folder: Path) -> bool:
    """`path` is `folder` or lies inside it (both resolved)."""
    return path == folder or folder in path.parents


@contextmanager
def _progress(total: int, enabled: bool | None) -> Iterator[Progress | None]:
    show = sys.stderr.isatty() and total >= PROGRESS_FROM if enabled is None else enabled
    if not show:
        yield None
        return
    from rich.progress import (  # noqa: PLC0415 - only on a terminal
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("scenarios"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        transient=True,
        auto_refresh=False,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    task = bar.add_task("suite", total=total)

    def update(done: int, _total: int) -> None:
        bar.update(task, completed=done)
        bar.refresh()

    with bar:
        yield update


@handle_errors
@stats_flags
@setting_flags
def suite(
    baseline: Annotated[
        str | None, typer.Argument(help="Baseline runs: a folder, glob or URL.", show_default=False)
    ] = None,
    candidate: Annotated[
        str | None,
        typer.Argument(help="Candidate runs: a folder, glob or URL.", show_default=False),
    ] = None,
    manifest: Annotated[
        Path | None, typer.Option("--manifest", "-m", help="agentdiff-suite.toml or a .jsonl.")
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Only scenarios matching GLOB (repeatable).")
    ] = None,
    jobs: Annotated[
        str, typer.Option("--jobs", "-j", help="Worker processes: N or auto.")
    ] = "auto",
    backend: Annotated[BackendChoice, typer.Option("--backend")] = BackendChoice.local,
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Attach to a Dask scheduler (tcp://...).")
    ] = None,
    fmt: Annotated[SuiteFormat, typer.Option("--format", "-f")] = "terminal",  # type: ignore[assignment]
    output: OutputsOpt = None,
    results: Annotated[
        str | None, typer.Option("--results", help="Write suite.json and the result tables here.")
    ] = None,
    fail_fast: Annotated[
        bool,
        typer.Option(
            "--fail-fast",
            help="Stop at the first error or regression no other scenario can change.",
        ),
    ] = False,
    allow_missing: Annotated[
        bool | None,
        typer.Option("--allow-missing", help="A scenario only in the baseline is not an error."),
    ] = None,
    layout: Annotated[LayoutChoice, typer.Option("--layout")] = LayoutChoice.auto,
    scenario_key: Annotated[
        str | None, typer.Option("--scenario-key", help="Group a flat folder by this trace field.")
    ] = None,
    adapter: AdapterOpt = None,
    name: Annotated[str | None, typer.Option("--name", help="The suite's name.")] = None,
    color: Annotated[bool | None, typer.Option("--color/--no-color")] = None,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Default: on a TTY, long suites."),
    ] = None,
    *,
    flags: Mapping[str, object],
    stats: Mapping[str, object],
) -> None:
    """Judge every scenario of CANDIDATE against BASELINE; exit 1 if any regressed."""
    workers = _jobs(jobs)
    targets = parse_targets(output, str(fmt.value), SUITE_RENDERERS)
    manifests = [manifest] if manifest is not None else []
    check_targets(targets, manifests)  # before the manifest is read
    loaded = load_manifest(manifest) if manifest is not None else None
    sides = _sides(baseline, candidate, loaded, layout.value, scenario_key, adapter)
    note_skipped(report for side in sides for report in side.skipped)
    inputs = _input_files(sides)
    check_targets(targets, [*inputs, *manifests])
    compare_options, sources = resolve_settings(flags, loaded)
    where = f"{loaded.path} [stats]" if loaded else "suite manifest [stats]"
    stats_resolved = load_stats(
        stats, manifest=loaded.stats if loaded else None, manifest_source=where
    )
    sources = {**sources, **stats_resolved.sources}
    redaction = resolved_options(flags).redaction()
    if scheduler:
        from agentdiff.suite.cluster import check_scheduler  # noqa: PLC0415 - optional extra

        check_scheduler(scheduler, source="--scheduler")
        backend = BackendChoice.dask
    options = SuiteOptions(
        name=name or (loaded.name if loaded else None),
        compare=compare_options,
        stats=stats_resolved.options,
        sources=sources,
        overrides=loaded.overrides if loaded else (),
        only=tuple(only or ()),
        jobs=workers,
        backend=backend.value,
        scheduler=scheduler,
        fail_fast=fail_fast,
        allow_missing=bool(
            allow_missing if allow_missing is not None else (loaded and loaded.allow_missing)
        ),
        results=results,
        pair_pages=any(t.fmt == "html" for t in targets),
        pages=RenderOptions(**redaction),
    )
    if results is not None:
        _check_results(results, sides, inputs)
    total = len(set(sides[0].runs) | set(sides[1].runs))
    with _progress(total, progress) as update:
        report = run_suite(*sides, options, progress=update)
    write_targets(
        targets,
        lambda t: _rendered(report, t, results, _render_options(t, color, redaction)),
        [*inputs, *manifests],
        summary=summary_line(report),
    )
    raise typer.Exit(report.exit_code)


def _rendered(
    report: SuiteReport, target: Target, results: str | None, options: RenderOptions
) -> str:
    """`report` in the target's format.

    Its links to the saved pair pages lead from the file written (or the current folder, for
    stdout) into the local results folder.
    """
    if results is not None and not is_url(results):
        page = None if to_stdout(target.path) else target.path
        report.pages_href = folder_href(Path(results), page)
    return render_suite(report, target.fmt, options)


def _render_options(
    target: Target, color: bool | None, redaction: Mapping[str, Any]
) -> RenderOptions:
    if color is None:
        color = to_stdout(target.path) and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    return RenderOptions(width=None, color=color, **redaction)
