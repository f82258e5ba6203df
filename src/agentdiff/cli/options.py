"""Options shared by several commands, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentdiff.cli.settings import resolved_options
from agentdiff.render.options import RenderOptions

__all__ = [
    "AdapterOpt",
    "MaxInputSizeOpt",
    "MaxStepsOpt",
    "OutputOpt",
    "OutputsOpt",
    "RedactOpt",
    "TraceFile",
    "TraceIdOpt",
    "redaction",
]

TraceFile = Annotated[
    Path,
    typer.Argument(
        help="A trace file (.json, .jsonl, .gz), or a session: claude:ID, codex:ID.",
        show_default=False,
        readable=False,
    ),
]
AdapterOpt = Annotated[
    str | None,
    typer.Option(
        "--adapter", "-a", help="Force an adapter (see `agentdiff adapters`); default: detect."
    ),
]
TraceIdOpt = Annotated[
    str | None, typer.Option("--trace-id", help="Pick one trace from a file that holds several.")
]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
]
OutputsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--output",
        "-o",
        metavar="[FORMAT=]FILE",
        help="Write to FILE instead of stdout; repeat as FORMAT=FILE to write several "
        "formats from one run (e.g. -o json=report.json -o markdown=summary.md).",
    ),
]
"""`-o` of the commands that render reports (see `agentdiff.cli.output.parse_targets`)."""
MaxInputSizeOpt = Annotated[
    str | None,
    typer.Option(
        "--max-input-size",
        metavar="SIZE",
        help="Most bytes read or inflated from one file, e.g. 500MB [default: 2GiB; "
        "env: AGENTDIFF_MAX_INPUT_SIZE].",
        show_default=False,
    ),
]
MaxStepsOpt = Annotated[
    str | None,
    typer.Option(
        "--max-steps",
        metavar="N",
        help="Most steps one trace may have [default: 5000000; env: AGENTDIFF_MAX_STEPS].",
        show_default=False,
    ),
]
RedactOpt = Annotated[
    bool | None,
    typer.Option(
        "--redact/--no-redact",
        help="Redact secrets [default: on, off for --format json; [report] redact].",
        show_default=False,
    ),
]


def redaction(redact: bool | None) -> RenderOptions:
    """The redaction `--redact/--no-redact` and the `[report]` settings ask for.

    The flag first, then `AGENTDIFF_REDACT`, then the config file (with its `redact_patterns`
    and `redact_keys`).
    """
    return RenderOptions(**resolved_options({"redact": redact}).redaction())
