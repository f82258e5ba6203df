"""`agentdiff compare-runs BASE_DIR CAND_DIR` and `agentdiff routes RUNS...`.

`compare-runs` judges N baseline runs against M candidate runs of one scenario (two folders of
runs): exact small-sample tests with Holm's correction, loops as invariants, route clusters per
side. Exit 1 when it regressed (or, with `--inconclusive fail`, was inconclusive), 2 on bad
input. `routes` clusters the routes of one set of runs, per scenario (folder or trace field);
of the comparison settings it takes only those its routes depend on (`ROUTE_SETTINGS`).
Statistics settings: flag > `AGENTDIFF_STATS_*` > `agentdiff.toml [stats]` > default.
Secrets are redacted as in `compare` (on except in JSON; `--redact` for JSON too, `--no-redact`,
`[report]` settings). `-o` never replaces a file either command reads (a run file inside a folder
given, a session's sub-agent transcript, or a link to one): refused before any work, exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from agentdiff.cli.errors import EXIT_GATE_FAILED, EXIT_INPUT, handle_errors, note_skipped
from agentdiff.cli.options import AdapterOpt, OutputsOpt
from agentdiff.cli.output import check_targets, parse_targets, reporting_errors, write_targets
from agentdiff.cli.settings import (
    ROUTE_STATS,
    resolved_options,
    route_flags,
    route_names,
    setting_flags,
    stats_flags,
)
from agentdiff.config import ResolvedConfig, load_stats
from agentdiff.errors import ConfigError, NotARunError
from agentdiff.loader import input_files
from agentdiff.render.json import data_json
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import redacting
from agentdiff.render.runs import ROUTES_RENDERERS, RUNS_ERROR_RENDERERS, RUNS_RENDERERS
from agentdiff.render.runs.view import summary_line
from agentdiff.scenario.api import compare_scenarios
from agentdiff.scenario.folders import found_files, group_runs, run_files, runs_of
from agentdiff.scenario.pairs import PairComparer
from agentdiff.scenario.report import RoutesReport, RunsReport, Verdict
from agentdiff.scenario.routing import describe_routes

__all__ = ["compare_runs_command", "routes_command"]

RunsFormat = Enum("RunsFormat", {name: name for name in RUNS_RENDERERS}, type=str)  # type: ignore[misc]
_Report = TypeVar("_Report", RunsReport, RoutesReport)
RoutesFormat = Enum("RoutesFormat", {name: name for name in ROUTES_RENDERERS}, type=str)  # type: ignore[misc]


@handle_errors
@stats_flags
@setting_flags
def compare_runs_command(
    baseline: Annotated[Path, typer.Argument(help="Folder of baseline runs of one scenario.")],
    candidate: Annotated[Path, typer.Argument(help="Folder of candidate runs of one scenario.")],
    adapter: AdapterOpt = None,
    scenario: Annotated[
        str | None, typer.Option(help="Name of the scenario (default: the candidate folder's).")
    ] = None,
    fmt: Annotated[RunsFormat, typer.Option("--format", "-f")] = "terminal",  # type: ignore[assignment]
    output: OutputsOpt = None,
    *,
    flags: Mapping[str, object],
    stats: Mapping[str, object],
) -> None:
    """N baseline runs against M candidate runs of one scenario; exit 1 when it regressed."""
    targets = parse_targets(output, str(fmt.value), RUNS_RENDERERS)
    skipped: list[NotARunError] = []
    listed = _listed(baseline, skipped), _listed(candidate, skipped)
    note_skipped(skipped)
    inputs = [
        *input_files([path for files, error in listed if error is None for path in files]),
        *(path for files, error in listed if error is not None for path in files),
    ]
    check_targets(targets, inputs)
    with reporting_errors(targets, RUNS_ERROR_RENDERERS, inputs):
        for _, error in listed:  # a folder missing or empty: a JUnit <error> too, as compare's
            if error is not None:
                raise error
        config = resolved_options(flags)
        options = config.options
        resolved = load_stats(stats)
        base, cand = (runs_of(files, adapter) for files, _ in listed)
    name = scenario or candidate.resolve().name
    report = compare_scenarios(
        {name: (base, cand)}, options=options, stats=resolved.options, sources=resolved.sources
    )
    write_targets(
        targets,
        lambda t: _shown(report, RUNS_RENDERERS, t.fmt, config),
        inputs,
        summary=summary_line(report),
    )
    if report.failed:
        raise typer.Exit(EXIT_GATE_FAILED)
    if any(s.verdict is Verdict.ERROR for s in report.scenarios):
        raise typer.Exit(EXIT_INPUT)


def _listed(folder: Path, skipped: list[NotARunError]) -> tuple[list[Path], ConfigError | None]:
    """The run files of `folder` (`run_files`), or why it has none and the path as given.

    A folder that cannot be listed (missing, empty, or a file) holds no run file for `-o` to
    write over; the path itself is still kept from the outputs (a file given for a folder).
    AgentDiff's own reports in it are no run files (added to `skipped`).
    """
    try:
        return run_files(folder, skipped), None
    except ConfigError as exc:
        return [folder], exc


@handle_errors
@route_flags
def routes_command(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="Trace files or folders of runs (searched recursively); a file given counts"
            " in the folder it sits in."
        ),
    ],
    scenario: Annotated[
        str | None, typer.Option("--scenario", help="Only scenarios matching this glob.")
    ] = None,
    scenario_key: Annotated[
        str | None,
        typer.Option(
            help="Group runs by this trace field (e.g. metadata.scenario); default: by the"
            " folder each file sits in (folders of the same name named by their path)."
        ),
    ] = None,
    threshold: Annotated[
        str | None,
        typer.Option(
            "--threshold",
            metavar="N",
            help="Route distance that joins a cluster, 0 to 1 (default: [stats] 0.2).",
        ),
    ] = None,
    route_threshold: Annotated[
        str | None,
        # the [stats] setting's own flag, as compare-runs and suite take it; its own parameter
        # so that a bad value's message names the flag that was given. Text, parsed by the
        # setting's kind, so 'off' or 'abc' read as a bad threshold ("a number from 0 to 1")
        typer.Option("--route-threshold", metavar="N", help="Same as --threshold."),
    ] = None,
    adapter: AdapterOpt = None,
    fmt: Annotated[RoutesFormat, typer.Option("--format", "-f")] = "terminal",  # type: ignore[assignment]
    output: OutputsOpt = None,
    *,
    flags: Mapping[str, object],
) -> None:
    """Cluster the routes a set of runs takes, per scenario."""
    targets = parse_targets(output, str(fmt.value), ROUTES_RENDERERS)
    skipped: list[NotARunError] = []
    listed = {root: found_files(root, skipped) for root in runs}  # read once: -o, then runs
    note_skipped(skipped)
    inputs = input_files([path for files in listed.values() for path in files])
    check_targets(targets, inputs)
    config = resolved_options(flags, only=route_names())
    options = config.options
    tau = _route_threshold(threshold, route_threshold)
    groups = group_runs(runs, adapter, scenario_key, listed=listed)
    if scenario is not None:
        groups = {k: v for k, v in groups.items() if fnmatchcase(k, scenario)}
    if not groups:
        raise ConfigError("no runs to cluster" + (f" match {scenario!r}" if scenario else ""))
    sections = {}
    for name, members in groups.items():
        comparer = PairComparer(options)  # prepares each run (folded first when folding)
        profiles = [comparer.profile(trace, run_id) for run_id, trace in members]
        sections[name] = describe_routes(profiles, ["runs"] * len(profiles), tau)
    report = RoutesReport(threshold=tau, scenarios=sections)
    write_targets(targets, lambda t: _shown(report, ROUTES_RENDERERS, t.fmt, config), inputs)


def _route_threshold(threshold: str | None, route_threshold: str | None) -> float:
    """The threshold `routes` clusters by; a bad value's message names the flag it came by."""
    if threshold is not None and route_threshold is not None:
        msg = "--threshold and --route-threshold set the same threshold; give one"
        raise ConfigError(msg, source="flags")
    given = "--threshold" if threshold is not None else "--route-threshold"
    value = threshold if threshold is not None else route_threshold
    resolved = load_stats(
        {"route_threshold": value}, flag_names={"route_threshold": given}, only=ROUTE_STATS
    )
    return resolved.options.route_threshold


def _shown(
    report: _Report,
    renderers: Mapping[str, Callable[[_Report], str]],
    fmt: str,
    config: ResolvedConfig,
) -> str:
    """`report` in format `fmt`, redacting as `[report]` asks (by default, except in JSON).

    JSON is the report's data, redacted only with `--redact`, as `compare --format json` does.
    """
    options = RenderOptions(**config.redaction())
    if fmt == "json":
        return data_json(report.model_dump(mode="json"), options).decode()
    with redacting(options.redactor()):
        return renderers[fmt](report)
