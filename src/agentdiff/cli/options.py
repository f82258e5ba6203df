"""Options shared by several commands, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["AdapterOpt", "OutputOpt", "TraceFile", "TraceIdOpt"]

TraceFile = Annotated[
    Path, typer.Argument(help="A trace file (.json, .jsonl, .gz).", show_default=False)
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
