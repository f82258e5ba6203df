"""The step tree of one trace, for `agentdiff inspect` (rich renderables, printing is the CLI's)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from agentdiff.models.trace import AgentTrace, StepStatus, TraceStep

__all__ = ["trace_tree"]

_STATUS_STYLE = {
    StepStatus.SUCCESS: "green",
    StepStatus.ERROR: "bold red",
    StepStatus.RETRY: "yellow",
    StepStatus.ABANDONED: "magenta",
}


def _label(step: TraceStep) -> Text:
    text = Text()
    text.append(f"{step.step_type.value:<9} ", style="dim")
    text.append(step.name, style="bold")
    text.append(f"  {step.status.value}", style=_STATUS_STYLE[step.status])
    if step.latency_ms is not None:
        text.append(f"  {step.latency_ms:.0f} ms", style="cyan")
    if step.tokens is not None and step.tokens.total_tokens is not None:
        text.append(f"  {step.tokens.total_tokens} tok", style="blue")
    if step.error_message:
        text.append(f"  {step.error_message.splitlines()[0][:120]}", style="red")
    return text


def trace_tree(trace: AgentTrace) -> RenderableType:
    """A tree of steps (parents above children) and a totals table."""
    ids = {s.step_id for s in trace.steps}
    children: dict[str | None, list[TraceStep]] = {}
    for step in sorted(trace.steps, key=lambda s: s.step_index):
        children.setdefault(step.parent_id if step.parent_id in ids else None, []).append(step)
    root = Tree(Text(f"{trace.agent_name}  ({trace.trace_id})", style="bold"))
    stack: list[tuple[Tree, TraceStep]] = [(root, s) for s in reversed(children.get(None, []))]
    while stack:
        parent, step = stack.pop()
        node = parent.add(_label(step))
        stack.extend((node, s) for s in reversed(children.get(step.step_id, [])))
    return Group(root, _totals(trace))


def _totals(trace: AgentTrace) -> Table:
    table = Table(show_header=False, box=None, padding=(0, 2))
    usage = trace.total_tokens
    table.add_row("steps", str(len(trace.steps)))
    table.add_row("source format", str((trace.metadata or {}).get("source_format", "?")))
    table.add_row(
        "latency",
        "unknown" if trace.total_latency_ms is None else f"{trace.total_latency_ms:.0f} ms",
    )
    table.add_row(
        "tokens",
        "unknown" if usage is None or usage.total_tokens is None else str(usage.total_tokens),
    )
    table.add_row(
        "cost",
        "unknown"
        if usage is None or usage.estimated_cost_usd is None
        else f"${usage.estimated_cost_usd:.6f}",
    )
    return table
