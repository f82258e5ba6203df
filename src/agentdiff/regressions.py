"""`assert_no_regressions`: the CI gate as a plain assertion, for tests and scripts.

Thresholds resolve as everywhere else (keyword > `AGENTDIFF_*` env > `agentdiff.toml` >
defaults; see `agentdiff.config`), so the CLI, this function and the pytest plugin apply the
same defaults. A keyword set to `None` or `"off"` switches its rule off.
"""

from __future__ import annotations

from agentdiff.baselines import TraceSource, as_trace
from agentdiff.config import load_options
from agentdiff.diff import compare
from agentdiff.models.report import DiffReport

__all__ = ["assert_no_regressions", "regression_summary"]


def regression_summary(report: DiffReport) -> str:
    """A readable multi-line account of what regressed (blocking rules first)."""
    # the render package pulls in rich; `import agentdiff` stays light without it
    from agentdiff.render.prepare import text  # noqa: PLC0415
    from agentdiff.render.view import findings, first_divergence_line  # noqa: PLC0415

    # the gate's words name steps and tools: redacted and escaped as every report's lines
    lines = [f"agentdiff: the candidate regressed ({len(report.gate.violations)} blocking)"]
    lines += [f"  ✗ {v.rule}: {text(v.message)}" for v in report.gate.violations]
    lines += [f"  ! {w.rule}: {text(w.message)}" for w in report.gate.warnings]
    lines.append(f"  {first_divergence_line(report)}")
    lines += [f"  · {line}" for line in findings(report)[1:]]
    return "\n".join(lines)


def assert_no_regressions(
    baseline: TraceSource, candidate: TraceSource, **thresholds: object
) -> DiffReport:
    """Compare two runs (traces or paths) and raise `AssertionError` when the gate fails.

    `thresholds` are any settings of `agentdiff.config.SETTINGS` (`max_divergence=0.3`,
    `allow_loops=True`, `ignore=["**.id"]`...). Returns the report when the gate passes.
    """
    overrides = {key: "off" if value is None else value for key, value in thresholds.items()}
    options = load_options(overrides, keywords=True).options
    report = compare(as_trace(baseline), as_trace(candidate), options=options)
    if not report.passed:
        raise AssertionError(regression_summary(report))
    return report
