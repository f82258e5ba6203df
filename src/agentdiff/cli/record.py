"""`agentdiff record MODULE:FUNCTION`: run an agent N times and write one trace per run.

The callable gets the `--input` value as its one argument (no argument without `--input`); its
return value is the run's final output; an exception it raises is an errored run, not a crash.
See `agentdiff.record.repeat` for which recording each `<DIR>/<n>.json` holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from agentdiff.cli.errors import handle_errors, say
from agentdiff.record.repeat import (
    RecordedRun,
    input_file,
    load_callable,
    parse_input,
    record_repeatedly,
)
from agentdiff.render.prepare import text

__all__ = ["record"]


_SOURCES = {"recorder": "agentdiff.record", "otel": "OpenTelemetry spans"}


def _describe(run: RecordedRun) -> str:
    outcome = f"; error: {run.error}" if run.error else ""
    steps = f"{run.steps} step{'' if run.steps == 1 else 's'}"
    return f"{run.path}: {steps} ({_SOURCES[run.source]}{outcome})"


MAX_RUNS = 10_000
"""The most runs one `record` makes (each file is checked before the first run: a typo such
as `--runs 1000000000` would otherwise fill memory with paths before anything runs)."""


@handle_errors
def record(
    target: Annotated[
        str, typer.Argument(metavar="MODULE:FUNCTION", help="The agent callable to run.")
    ],
    input_text: Annotated[
        str | None,
        typer.Option("--input", "-i", help="JSON passed to the callable, or @FILE holding it."),
    ] = None,
    runs: Annotated[
        int,
        typer.Option("--runs", "-n", min=1, max=MAX_RUNS, help="How many runs (at most 10,000)."),
    ] = 1,
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Folder for <n>.json (one file per run).")
    ] = Path("runs"),
    name: Annotated[
        str | None, typer.Option("--name", help="Agent name (default: the function's).")
    ] = None,
    otel: Annotated[
        bool,
        typer.Option("--otel/--no-otel", help="Capture OpenTelemetry spans when installed."),
    ] = True,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace/--no-replace",
            help="Remove the numbered <n>.json runs of an earlier recording in DIR (only those) "
            "first; --no-replace refuses such a folder.",
        ),
    ] = True,
) -> None:
    """Run an agent callable with recording on; write DIR/1.json ... DIR/N.json.

    DIR is one recording: the <n>.json runs of an earlier recording there are removed before the
    first call (only those), so two recordings are never mixed; --no-replace refuses (exit 2).
    """
    fn = load_callable(target)
    task_input = parse_input(input_text)
    agent_name = name or str(getattr(fn, "__name__", target))
    given = input_file(input_text)
    recorded = record_repeatedly(
        fn,
        agent_name=agent_name,
        folder=output,
        runs=runs,
        task_input=task_input,
        otel=otel,
        inputs=[given] if given is not None else [],
        replace=replace,
    )
    console = Console(stderr=True)
    errored = 0
    with Progress(
        TextColumn("recording {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=runs == 1,
    ) as progress:
        task = progress.add_task(agent_name, total=runs)
        for run in recorded:
            errored += run.error is not None
            progress.console.print(text(_describe(run)), highlight=False, markup=False)
            progress.advance(task)
    failed = f", {errored} errored" if errored else ""
    say(f"recorded {runs} run{'s' if runs > 1 else ''} into {output}{failed}")
