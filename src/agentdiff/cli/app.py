"""The `agentdiff` command: a thin typer shell over the library; one module per subcommand."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from agentdiff import __version__
from agentdiff.cli import (
    adapters,
    approve,
    compare,
    convert,
    init,
    inspect,
    record,
    results,
    runs,
    schema,
    sessions,
    suite,
)
from agentdiff.cli.errors import state
from agentdiff.gcpause import no_gc_pauses

__all__ = ["app", "main"]

app = typer.Typer(
    name="agentdiff",
    help="Tell exactly how and where an AI agent's behaviour changed between two runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"agentdiff {__version__}")
        raise typer.Exit


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    version: Annotated[  # noqa: ARG001 - handled eagerly by its callback
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    if debug:
        state.debug = True


app.command("convert")(convert.convert)
app.command("inspect")(inspect.inspect)
app.command("adapters")(adapters.adapters)
app.command("schema")(schema.schema)
app.command("compare")(compare.compare)
app.command("diff", help="Alias of `compare`.")(compare.compare)
app.command("record")(record.record)
app.command("init")(init.init)
app.command("approve")(approve.approve)
app.command("suite")(suite.suite)
app.command("results")(results.results)
app.command("compare-runs")(runs.compare_runs_command)
app.command("routes")(runs.routes_command)
app.command("sessions")(sessions.sessions)


def main() -> None:
    """Console-script entry point (one short-lived process: the cyclic GC stays paused).

    After a comparison of large traces, freeing a million small objects one by one would only
    delay the exit (about a second on 100,000 steps), so the process ends without doing it once
    its output is flushed and closed.
    """
    state.exiting = True
    with no_gc_pauses():
        try:
            app()
        except SystemExit as done:
            code = done.code
        else:
            code = 0
    if not state.retained or not isinstance(code, int):
        raise SystemExit(code)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
