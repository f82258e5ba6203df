"""The `agentdiff` command: a thin typer shell over the library; one module per subcommand."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from agentdiff import __version__
from agentdiff.cli.errors import RedactingGroup, state
from agentdiff.gcpause import no_gc_pauses

__all__ = ["COMMANDS", "app", "build_app", "main"]  # noqa: F822 - `app` is built on first use

COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "convert": ("convert", "convert", None),
    "inspect": ("inspect", "inspect", None),
    "adapters": ("adapters", "adapters", None),
    "schema": ("schema", "schema", None),
    "compare": ("compare", "compare", None),
    "diff": ("compare", "compare", "Alias of `compare`."),
    "record": ("record", "record", None),
    "init": ("init", "init", None),
    "approve": ("approve", "approve", None),
    "suite": ("suite", "suite", None),
    "results": ("results", "results", None),
    "compare-runs": ("runs", "compare_runs_command", None),
    "routes": ("runs", "routes_command", None),
    "sessions": ("sessions", "sessions", None),
}
"""Each subcommand: its module under `agentdiff.cli`, its function, and a help override.

Modules are imported only for the commands an app holds: `main()` builds an app with just the
command on its command line, so `agentdiff compare` never imports the suites, the recorder or
the statistics (a third of the start-up time).
"""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"agentdiff {__version__}")
        raise typer.Exit


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


def build_app(names: Sequence[str] | None = None) -> typer.Typer:
    """The `agentdiff` typer app with the commands `names` (default: all of them)."""
    built = typer.Typer(
        name="agentdiff",
        cls=RedactingGroup,
        help="Tell exactly how and where an AI agent's behaviour changed between two runs.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )
    built.callback()(_root)
    for name in COMMANDS if names is None else names:
        module, function, help_text = COMMANDS[name]
        command: Callable[..., Any] = getattr(
            importlib.import_module(f"agentdiff.cli.{module}"), function
        )
        built.command(name, help=help_text)(command)
    return built


def _requested(argv: Sequence[str]) -> list[str] | None:
    """The commands the app needs (None: all of them, which the root help lists).

    The one named on the command line (root options take no values) if it is known; none for a
    bare `--version`.
    """
    name = next((arg for arg in argv if not arg.startswith("-")), None)
    if name in COMMANDS:
        return [name]
    if name is None and "--version" in argv and "--help" not in argv:
        return []
    return None


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def main() -> None:
    """Console-script entry point (one short-lived process: the cyclic GC stays paused).

    After a comparison of large traces, freeing a million small objects one by one would only
    delay the exit (about a second on 100,000 steps), so the process ends without doing it once
    its output is flushed and closed.
    """
    state.exiting = True
    with no_gc_pauses():
        try:
            build_app(_requested(sys.argv[1:]))()
        except SystemExit as done:
            code = done.code
        else:
            code = 0
    if not state.retained or not isinstance(code, int):
        raise SystemExit(code)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
