"""The terminal suite report: the summary line first, then what needs a look, most severe first."""

from __future__ import annotations

import io

from rich.console import Console
from rich.text import Text

from agentdiff.render.measures import plural
from agentdiff.render.options import RenderOptions
from agentdiff.render.prepare import text
from agentdiff.stats_options import inconclusive_fails
from agentdiff.suite.render.view import scenario_views, summary_line
from agentdiff.suite.report import SuiteReport

__all__ = ["render_suite_terminal"]

_GROUPS = {
    "regressed": ("Regressed (most severe first)", "✗", "bold red"),
    "error": ("Errors (could not be judged)", "!", "bold yellow"),
    "partial": ("Passed on the runs that loaded (others could not be loaded)", "!", "bold yellow"),
    "inconclusive": ("Inconclusive (not enough runs to tell)", "?", "yellow"),
    "improved": ("Improved", "↑", "green"),
    "removed": ("Only in the baseline (allowed)", "-", "dim"),
    "added": ("Only in the candidate", "+", "cyan"),
}


def render_suite_terminal(report: SuiteReport, options: RenderOptions | None = None) -> str:
    """The suite for a terminal (colour only when `options.color`)."""
    options = options or RenderOptions()
    console = Console(
        width=options.width or 100,
        color_system="standard" if options.color else None,
        force_terminal=bool(options.color),
        record=True,
        file=io.StringIO(),
        highlight=False,
        soft_wrap=True,
    )
    style = "bold green" if report.passed else "bold red"
    console.print(Text(summary_line(report), style=style))
    b, c = report.baseline, report.candidate
    console.print(
        Text(
            f"suite {text(report.name)}: {plural(report.counts.scenarios, 'scenario')} · "
            f"baseline {text(b.label)} ({plural(b.runs, 'run')}) · "
            f"candidate {text(c.label)} ({plural(c.runs, 'run')})",
            style="dim",
        )
    )
    for group, views in scenario_views(report).items():
        if not views:
            continue
        title, mark, color = _GROUPS[group]
        if group == "inconclusive" and inconclusive_fails(report.stats):
            title = title.replace(")", "; counted as failing)")
        console.print()
        console.print(Text(title, style="bold"))
        for view in views[: options.max_rows]:
            line = Text(f"  {mark} ", style=color)
            line.append(text(view.row.scenario), style="bold")
            line.append(f"  {view.headline}")
            console.print(line)
            for finding in view.findings:
                console.print(Text(f"      {finding}"))
        if len(views) > options.max_rows:
            console.print(Text(f"  … and {len(views) - options.max_rows} more", style="dim"))
    return console.export_text(styles=bool(options.color))
