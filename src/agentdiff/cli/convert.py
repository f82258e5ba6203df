"""`agentdiff convert FILE`: any supported format → canonical AgentTrace JSON."""

from __future__ import annotations

from typing import Annotated

import typer

from agentdiff.baselines import canonical_json, trace_file_bytes
from agentdiff.cli.errors import handle_errors
from agentdiff.cli.options import (
    AdapterOpt,
    MaxInputSizeOpt,
    MaxStepsOpt,
    OutputOpt,
    TraceFile,
    TraceIdOpt,
)
from agentdiff.limits import Limits
from agentdiff.loader import input_files, load_trace
from agentdiff.sessions import resolve_path

__all__ = ["convert"]


@handle_errors
def convert(
    file: TraceFile,
    adapter: AdapterOpt = None,
    trace_id: TraceIdOpt = None,
    output: OutputOpt = None,
    max_input_size: MaxInputSizeOpt = None,
    max_steps: MaxStepsOpt = None,
    redact: Annotated[
        bool, typer.Option("--redact", help="Redact secrets (the data is kept as is by default).")
    ] = False,
) -> None:
    """Print the canonical AgentTrace JSON of FILE (metadata.source_format names its format).

    With -o, the file is written as its name says: one JSON line for .jsonl/.ndjson, gzip for
    .gz, so every command reads it back.
    """
    from agentdiff.cli.output import to_stdout, write_output  # noqa: PLC0415 - fast --help
    from agentdiff.files import check_output_path  # noqa: PLC0415

    file = resolve_path(file)
    inputs = input_files([file])  # with the sub-agent transcripts it holds
    if output is not None and not to_stdout(output):
        check_output_path(output, inputs)
    limits = Limits.resolve(max_input_size, max_steps)
    trace = load_trace(file, adapter, trace_id=trace_id, limits=limits)
    if output is None or to_stdout(output):
        write_output(canonical_json(trace, redact=redact), output, inputs)
        return
    name = output.name
    data = trace_file_bytes(name, trace, gzipped=name.endswith(".gz"), redact=redact)
    write_output(data, output, inputs)
