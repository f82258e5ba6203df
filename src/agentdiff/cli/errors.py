"""How the CLI turns failures into one line and an exit code (the only place that exits)."""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from agentdiff.errors import AgentDiffError
from agentdiff.redact import DEFAULT_REDACTOR, Redactor
from agentdiff.render.text import one_line

__all__ = [
    "EXIT_GATE_FAILED",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "handle_errors",
    "redact_messages",
    "say",
    "state",
]

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3

P = ParamSpec("P")
R = TypeVar("R")


class _State:
    debug: bool = bool(os.environ.get("AGENTDIFF_DEBUG"))
    exiting: bool = False
    """True in the console script, which ends the process right after the command (`app.main`)."""
    retained: list[object] = []  # noqa: RUF012 - process-wide on purpose
    """Large results kept alive until that exit; empty when the app is embedded (tests, calls)."""
    messages: Redactor = DEFAULT_REDACTOR
    """What redacts stderr: the built-in patterns, plus the config's `redact_patterns` once the
    command read them (`redact_messages`); reset for each command."""


state = _State()


_BREAKS = re.compile(r"[ \t]*(?:\r?\n[ \t]*)+|  +")
"""Line breaks (with the indentation around them) and runs of spaces: one space each."""


def _one_line(text: str) -> str:
    r"""One line for stderr: line breaks joined, secrets redacted, other controls escaped.

    A `\r`, tab, or separator that is not a line break is shown (`\r`), not blanked.
    """
    return one_line(state.messages.text(_BREAKS.sub(" ", text).strip(" ")))


def redact_messages(patterns: tuple[str, ...]) -> None:
    """Stderr also redacts the user's own `redact_patterns`.

    Always, whatever `redact` says for reports: a message never needs a secret.
    """
    state.messages = Redactor(patterns=patterns) if patterns else DEFAULT_REDACTOR


def say(message: str) -> None:
    """Write `message` to stderr as one line, neutralized as error messages are.

    For every message that quotes a path, a step name or another value from the user or a trace.
    """
    typer.echo(_one_line(message), err=True)


def handle_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Run `command`: AgentDiffError → exit 2, anything else → exit 3 (traceback: --debug)."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        state.messages = DEFAULT_REDACTOR  # a command embedded after another starts afresh
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except AgentDiffError as exc:
            if state.debug:
                raise
            typer.echo(f"error: {_one_line(str(exc))}", err=True)
            if exc.hint:
                typer.echo(f"hint: {_one_line(exc.hint)}", err=True)
            raise typer.Exit(EXIT_INPUT) from None
        except BrokenPipeError:
            sys.stderr.close()
            raise typer.Exit(EXIT_OK) from None
        except Exception as exc:
            if state.debug:
                raise
            typer.echo(f"internal error: {type(exc).__name__}: {_one_line(str(exc))}", err=True)
            typer.echo("hint: rerun with --debug for the traceback and report it", err=True)
            raise typer.Exit(EXIT_INTERNAL) from None

    return run
