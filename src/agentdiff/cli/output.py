"""Writing command output to stdout or to files given with `-o` (checked before any work).

The commands that render reports (`compare`, `suite`, `compare-runs`, `routes`) may write several
formats from one run: `-o report.json` takes `--format`, and `-o FORMAT=FILE` (repeatable) names
its own, e.g. `-o json=report.json -o markdown=summary.md`. An unknown FORMAT is an error
(exit 2) naming the known ones; a file whose name holds `=` is written as `-o ./a=b.json`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import typer

from agentdiff.errors import AgentDiffError, OutputPathError
from agentdiff.files import Data, check_output_path, write_output_file
from agentdiff.render.text import one_line

__all__ = [
    "Target",
    "check_targets",
    "parse_targets",
    "reporting_errors",
    "to_stdout",
    "write_output",
    "write_targets",
]


def to_stdout(output: Path | None) -> bool:
    """True when the output goes to stdout (no `-o`, or `-o -`)."""
    return output is None or str(output) == "-"


def write_output(text: Data, output: Path | None, inputs: Sequence[Path] = ()) -> None:
    """Print `text`, or write it to `output` (never over one of `inputs`; see `files`)."""
    if output is None or to_stdout(output):
        if not isinstance(text, str | bytes):
            text = b"".join(text)
        newline = b"\n" if isinstance(text, bytes) else "\n"
        typer.echo(text, nl=not text.endswith(newline))  # type: ignore[arg-type]
        return
    write_output_file(output, text, inputs)


@dataclass(frozen=True)
class Target:
    """One output of a command: a format and a file (`None`: stdout)."""

    fmt: str
    path: Path | None


_FORMAT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
"""What the part of `-o` before its first `=` looks like when it is meant as a format name."""


def parse_targets(values: Sequence[str] | None, fmt: str, formats: Collection[str]) -> list[Target]:
    """`-o` values as targets: `FILE` in `fmt`, `FORMAT=FILE` in its own; none → stdout.

    A value whose part before the first `=` looks like a format name (a letter, then letters,
    digits, `-` or `_`) is `FORMAT=FILE` and must name one of `formats`: a typo
    (`markdwn=x.md`) is an error listing them, never a file named `markdwn=x.md`. A file whose
    name holds `=` is given as a path with a `/` or `.` before the `=` (`./a=b.json`,
    `out/a=b.json`, `v1.2=b.json`), or after a format (`json=a=b.json`).
    """
    targets = []
    for value in values or ["-"]:
        chosen, where = _format_and_file(value, fmt, formats)
        if not where:
            msg = f"-o {value!r} names no file (use FORMAT=FILE, FILE or -)"
            raise OutputPathError(msg)
        targets.append(Target(chosen, None if where == "-" else Path(where)))
    return targets


def _format_and_file(value: str, fmt: str, formats: Collection[str]) -> tuple[str, str]:
    name, sep, rest = value.partition("=")
    if not sep or not _FORMAT_NAME.fullmatch(name):
        return fmt, value
    if name in formats:
        return name, rest
    known = ", ".join(sorted(formats))
    close = difflib.get_close_matches(name.lower(), sorted(formats), n=1)  # JSON= → json=
    guess = f"; did you mean {close[0]}={rest}?" if close else ""
    msg = f"-o {value!r}: unknown format {name!r} (known: {known}){guess}"
    raise OutputPathError(msg, hint=f"a file whose name holds '=' is given as a path: -o ./{value}")


def check_targets(targets: Sequence[Target], inputs: Sequence[Path]) -> None:
    """Refuse, before any work, outputs that are inputs, devices, read-only or given twice."""
    seen: set[str] = set()
    for target in targets:
        key = "-" if target.path is None else str(target.path.resolve())
        if key in seen and not (target.path and str(target.path) == "/dev/null"):
            where = "stdout" if target.path is None else str(target.path)
            raise OutputPathError(f"{where} is given as an output twice")
        seen.add(key)
        if target.path is not None:
            check_output_path(target.path, inputs)


def write_targets(
    targets: Sequence[Target],
    render: Callable[[Target], Data],
    inputs: Sequence[Path] = (),
    summary: str | None = None,
) -> None:
    """Write `render(target)` to each target; when every one is a file, echo `summary` with them."""
    for target in targets:
        write_output(render(target), target.path, inputs)
    files = [str(t.path) for t in targets if not to_stdout(t.path)]
    if summary is not None and files and len(files) == len(targets):
        typer.echo(f"{summary}  (report: {one_line(', '.join(files))})")


@contextmanager
def reporting_errors(
    targets: Sequence[Target],
    renderers: Mapping[str, Callable[[str], str]],
    inputs: Sequence[Path] = (),
) -> Iterator[None]:
    """On bad input (an `AgentDiffError`), report it in each format that can, then re-raise.

    Each target whose format has a renderer in `renderers` gets the error in that format's
    shape (JUnit: an `<error>`, so CI shows the cause); the others get nothing. The targets
    were checked before any work (`check_targets`).
    """
    try:
        yield
    except AgentDiffError as exc:
        for target in targets:
            if target.fmt in renderers:
                write_output(renderers[target.fmt](str(exc)), target.path, inputs)
        raise
