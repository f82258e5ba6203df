"""`compare_runs` (one scenario) and `compare_scenarios` (many, corrected across them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentdiff.diff.options import CompareOptions
from agentdiff.errors import ConfigError
from agentdiff.models.trace import AgentTrace, not_a_trace
from agentdiff.scenario.analyze import Run, analyze_scenario, named_runs
from agentdiff.scenario.judge import judge
from agentdiff.scenario.report import RunsReport, ScenarioReport
from agentdiff.stats_options import StatsOptions

__all__ = ["compare_runs", "compare_scenarios"]


def compare_runs(
    baseline: Sequence[AgentTrace | Run],
    candidate: Sequence[AgentTrace | Run],
    *,
    scenario: str = "scenario",
    options: CompareOptions | None = None,
    stats: StatsOptions | None = None,
) -> ScenarioReport:
    """N baseline runs against M candidate runs of one scenario, with its verdict.

    Each side needs a run (`ConfigError` otherwise: no runs agree on nothing).
    """
    stats = stats or StatsOptions()
    _check_runs(scenario, baseline, candidate)
    draft = analyze_scenario(
        scenario, named_runs(baseline), named_runs(candidate), options or CompareOptions(), stats
    )
    return judge([draft], stats).scenarios[0]


def compare_scenarios(
    scenarios: Mapping[str, tuple[Sequence[AgentTrace | Run], Sequence[AgentTrace | Run]]],
    *,
    options: CompareOptions | None = None,
    stats: StatsOptions | None = None,
    sources: Mapping[str, str] | None = None,
) -> RunsReport:
    """Many scenarios, corrected across them (Benjamini–Hochberg with Tarone's exclusion).

    Each side of each scenario needs a run (`ConfigError` otherwise).
    """
    stats = stats or StatsOptions()
    options = options or CompareOptions()
    for name, (base, cand) in scenarios.items():
        _check_runs(name, base, cand)
    drafts = [
        analyze_scenario(name, named_runs(base), named_runs(cand), options, stats)
        for name, (base, cand) in sorted(scenarios.items())
    ]
    return judge(drafts, stats, sources)


def _check_runs(scenario: str, baseline: Sequence[object], candidate: Sequence[object]) -> None:
    """Each side is a list of runs, and holds one (an empty side is no pass).

    A run is a trace or a (run id, trace) pair; anything else (a path, a dict) is a
    `TypeError` that says how to load it.
    """
    for side, runs in (("baseline", baseline), ("candidate", candidate)):
        if isinstance(runs, str | bytes | Mapping | AgentTrace) or not isinstance(runs, Sequence):
            got = type(runs).__name__
            msg = f"scenario {scenario!r}: the {side} must be a list of runs (got {got})"
            raise TypeError(msg)
        if not runs:
            raise ConfigError(f"scenario {scenario!r} has no {side} runs")
        for i, run in enumerate(runs):
            if not _is_run(run):
                msg = (
                    f"scenario {scenario!r}: {side} run {i + 1} is not an AgentTrace or a "
                    f"(run id, AgentTrace) pair ({not_a_trace(run)})"
                )
                raise TypeError(msg)


def _is_run(value: object) -> bool:
    if isinstance(value, AgentTrace):
        return True
    match value:
        case (str(), AgentTrace()):
            return True
    return False
