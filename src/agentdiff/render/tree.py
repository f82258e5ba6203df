"""The step tree of one trace, for `agentdiff inspect` (rich renderables, printing is the CLI's)."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from agentdiff.diff.totals import trace_totals
from agentdiff.models.report import Summary
from agentdiff.models.trace import AgentTrace, StepStatus, TraceStep
from agentdiff.render.measures import count, ms, usd
from agentdiff.render.view import ERROR_CHARS, text

__all__ = ["dropped_line", "trace_tree"]

_STATUS_STYLE = {
    StepStatus.SUCCESS: "green",
    StepStatus.ERROR: "bold red",
    StepStatus.RETRY: "yellow",
    StepStatus.ABANDONED: "magenta",
}


def _label(step: TraceStep) -> Text:
    label = Text()
    label.append(f"{step.step_type.value:<9} ", style="dim")
    label.append(text(step.name), style="bold")
    label.append(f"  {step.status.value}", style=_STATUS_STYLE[step.status])
    if step.latency_ms is not None:
        label.append(f"  {ms(step.latency_ms)}", style="cyan")
    if step.tokens is not None and step.tokens.total_tokens is not None:
        label.append(f"  {count(step.tokens.total_tokens)} tok", style="blue")
    if step.error_message:
        label.append(f"  {text(step.error_message, ERROR_CHARS)}", style="red")
    return label


def trace_tree(trace: AgentTrace, totals: Summary | None = None) -> RenderableType:
    """A tree of steps (parents above children) and its totals, as `compare` computes them."""
    ids = {s.step_id for s in trace.steps}
    children: dict[str | None, list[TraceStep]] = {}
    for step in sorted(trace.steps, key=lambda s: s.step_index):
        children.setdefault(step.parent_id if step.parent_id in ids else None, []).append(step)
    root = Tree(Text(f"{text(trace.agent_name)}  ({text(trace.trace_id)})", style="bold"))
    stack: list[tuple[Tree, TraceStep]] = [(root, s) for s in reversed(children.get(None, []))]
    while stack:
        parent, step = stack.pop()
        node = parent.add(_label(step))
        stack.extend((node, s) for s in reversed(children.get(step.step_id, [])))
    return Group(root, _totals(totals or trace_totals(trace), trace))


def _unknown(value: float | None, fmt: Callable[[float], str]) -> str:
    return "unknown" if value is None else fmt(value)


def _totals(totals: Summary, trace: AgentTrace) -> Table:
    """The same totals `compare` reports for this trace."""
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_row("steps", count(totals.steps))
    table.add_row("tool calls", count(totals.tool_calls))
    table.add_row("LLM calls", count(totals.llm_calls))
    table.add_row("model turns", count(totals.model_turns))
    table.add_row("errors", count(totals.errors))
    table.add_row("source format", text(totals.source_format or "?"))
    table.add_row("latency", _unknown(totals.latency_ms, ms))
    table.add_row("tokens", _unknown(totals.total_tokens, count))
    cost = _unknown(totals.cost_usd, usd)
    table.add_row("cost", cost + (" (estimated)" if totals.cost_estimated else ""))
    dropped = dropped_line(trace)
    if dropped:
        table.add_row("dropped spans", dropped)
    for warning in (trace.metadata or {}).get("warnings") or []:
        table.add_row("warning", Text(str(warning), style="yellow"))
    return table


def dropped_line(trace: AgentTrace) -> str | None:
    """`3 not agent steps (GET ×2, SELECT ×1)`: the spans an adapter left out, when any."""
    meta = trace.metadata or {}
    dropped = meta.get("dropped_spans")
    if not isinstance(dropped, int) or dropped <= 0:
        return None
    names = meta.get("dropped_span_names")
    shown = ""
    if isinstance(names, dict) and names:
        top = sorted(names.items(), key=lambda kv: (-int(kv[1]), str(kv[0])))
        parts = [f"{name} ×{n}" for name, n in top[:5]]
        more = len(top) - 5
        shown = f" ({', '.join(parts)}{f', +{more} more' if more > 0 else ''})"
    return f"{dropped} not agent steps{shown}"
