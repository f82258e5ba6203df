"""The terminal renderer (rich): the verdict first, then the aligned steps and the deltas."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from agentdiff.models.report import DiffReport
from agentdiff.render.options import RenderOptions

__all__ = ["render_terminal"]


def render_terminal(report: DiffReport, options: RenderOptions) -> str:
    """The report as terminal text (ANSI colours only when `options.color`)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=options.width or 100,
        force_terminal=bool(options.color),
        no_color=not options.color,
        highlight=False,
        emoji=False,
    )
    verdict = "PASSED" if report.gate.passed else "FAILED"
    console.print(Text(f"{verdict}  divergence {report.divergence:.3f}"))
    for v in report.gate.violations:
        console.print(Text(f"  blocked by: {v.message}"))
    for w in report.gate.warnings:
        console.print(Text(f"  warning: {w.message}"))
    table = Table("op", "baseline", "candidate")
    for entry in report.alignment:
        table.add_row(
            Text(entry.op.value),
            Text(entry.baseline.name if entry.baseline else ""),
            Text(entry.candidate.name if entry.candidate else ""),
        )
    console.print(table)
    return buffer.getvalue()
