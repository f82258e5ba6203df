"""How the CLI turns failures into one line and an exit code (the only place that exits)."""

from __future__ import annotations

import functools
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, TypeVar

import typer
from typer.core import TyperGroup

from agentdiff.errors import AgentDiffError, NotARunError
from agentdiff.redact import DEFAULT_REDACTOR, Redactor
from agentdiff.render.text import one_line

__all__ = [
    "EXIT_GATE_FAILED",
    "EXIT_INPUT",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "RedactingGroup",
    "handle_errors",
    "note_skipped",
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


def note_skipped(skipped: Iterable[NotARunError]) -> None:
    """A `note:` line for each file a search for runs left out: one of AgentDiff's own reports."""
    noted: set[str] = set()
    for report in skipped:  # a folder given for both sides is searched twice: noted once
        real = os.path.realpath(report.source or "")
        if real not in noted:
            noted.add(real)
            say(f"note: skipped {report.source}: {report.message}")


def _show_warning(message: Warning | str, *_: object, **__: object) -> None:
    """A warning (a plugin's failure quoting the trace) as one neutralized `warning:` line.

    Python prints a warning raw, with a source line: a plugin's exception text carried the
    trace's escape sequences and credentials to stderr unredacted.
    """
    typer.echo(f"warning: {_one_line(str(message))}", err=True)


def handle_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Run `command`: AgentDiffError → exit 2, anything else → exit 3 (traceback: --debug)."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        state.messages = DEFAULT_REDACTOR  # a command embedded after another starts afresh
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _show_warning
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


class RedactingGroup(TyperGroup):
    """The command group: a usage error quotes what was typed, so it is neutralized first.

    A token pasted as an option's value (`--format sk-…`) or as an extra argument was echoed
    whole by click's "Invalid value" / "unexpected extra argument" lines, and click escapes C0
    and C1 controls but not bidi overrides. The message is redacted and escaped as every other
    message on stderr is (`_one_line`); click's usage line and hint around it stay.
    """

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """Parse the root options (a usage error redacted)."""
        try:
            return super().make_context(*args, **kwargs)
        except _CLICK_ERROR as exc:
            raise _redacted(exc) from None

    def invoke(self, ctx: Any) -> Any:
        """Resolve, parse and run the subcommand (a usage error redacted)."""
        try:
            return super().invoke(ctx)
        except _CLICK_ERROR as exc:
            raise _redacted(exc) from None


_CLICK_ERROR: type[Exception] = next(
    kind for kind in typer.BadParameter.__mro__ if kind.__name__ == "ClickException"
)
"""click's error base (typer vendors click from 0.22 on, so it is found, not imported)."""


def _redacted(exc: Exception) -> Exception:
    """`exc` with its message (what `show` prints) redacted and escaped."""
    message = getattr(exc, "message", None)
    if isinstance(message, str):
        exc.message = _one_line(message)  # type: ignore[attr-defined]
    return exc
