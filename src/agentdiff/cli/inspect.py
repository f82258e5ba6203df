"""`agentdiff inspect FILE`: the step tree and totals of one trace."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer
from rich.console import Console

from agentdiff.cli.errors import handle_errors
from agentdiff.cli.options import (
    AdapterOpt,
    MaxInputSizeOpt,
    MaxStepsOpt,
    RedactOpt,
    TraceFile,
    TraceIdOpt,
    redaction,
)
from agentdiff.diff import trace_totals
from agentdiff.diff.fold import fold_framework_steps as fold
from agentdiff.diff.totals import with_folded
from agentdiff.limits import Limits
from agentdiff.loader import load_trace
from agentdiff.render.json import data_json
from agentdiff.render.tree import trace_tree
from agentdiff.render.view import redacting
from agentdiff.sessions import resolve_path

__all__ = ["inspect"]


class InspectFormat(str, Enum):
    """Output formats of `inspect`."""

    terminal = "terminal"
    json = "json"


@handle_errors
def inspect(
    file: TraceFile,
    adapter: AdapterOpt = None,
    trace_id: TraceIdOpt = None,
    fmt: Annotated[InspectFormat, typer.Option("--format", "-f")] = InspectFormat.terminal,
    max_input_size: MaxInputSizeOpt = None,
    max_steps: MaxStepsOpt = None,
    redact: RedactOpt = None,
    fold_framework_steps: Annotated[
        bool,
        typer.Option(help="Fold LangChain plumbing steps (RunnableSequence, prompts, routing)."),
    ] = False,
) -> None:
    """Show the step tree (type, name, status, latency, tokens) and totals of FILE."""
    limits = Limits.resolve(max_input_size, max_steps)
    trace = load_trace(resolve_path(file), adapter, trace_id=trace_id, limits=limits)
    given = trace
    if fold_framework_steps:
        trace = fold(given)
    totals = trace_totals(trace)
    if fold_framework_steps:  # the steps shown and counted leave the folded ones out: say so
        totals = with_folded(totals, given, trace)
    if fmt is InspectFormat.json:
        steps = [
            {
                "step_id": s.step_id,
                "parent_id": s.parent_id,
                "step_index": s.step_index,
                "step_type": s.step_type.value,
                "name": s.name,
                "status": s.status.value,
                "latency_ms": s.latency_ms,
                "total_tokens": s.tokens.total_tokens if s.tokens else None,
                "error_message": s.error_message,
            }
            for s in trace.steps
        ]
        summary = {
            "trace_id": trace.trace_id,
            "agent_name": trace.agent_name,
            "source_format": (trace.metadata or {}).get("source_format"),
            "steps": steps,
            "total_latency_ms": trace.total_latency_ms,
            "total_tokens": trace.total_tokens.model_dump() if trace.total_tokens else None,
            "totals": totals.model_dump(mode="json"),
            "dropped_spans": (trace.metadata or {}).get("dropped_spans", 0),
            "warnings": (trace.metadata or {}).get("warnings") or [],
        }
        typer.echo(data_json(summary, redaction(redact)).decode(), nl=False)
        return
    with redacting(redaction(redact).redactor()):
        tree = trace_tree(trace, totals)
    Console(highlight=False, emoji=False).print(tree, crop=False)
