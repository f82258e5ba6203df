"""The step tree of one trace, for `agentdiff inspect` (rich renderables, printing is the CLI's)."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentdiff.diff.totals import trace_totals
from agentdiff.models.report import Summary
from agentdiff.models.trace import AgentTrace, StepStatus, TraceStep
from agentdiff.render.measures import count, folded, ms, partly, usd
from agentdiff.render.view import ERROR_CHARS, text

__all__ = ["MAX_INDENT", "dropped_line", "trace_tree"]

MAX_INDENT = 16
"""Levels of guides drawn; deeper steps are marked with their depth instead."""
_GUIDE = 3

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
    """A tree of steps (parents above children) and its totals, as `compare` computes them.

    Drawn line by line in linear time: past `MAX_INDENT` levels the guides stop growing and a
    `⋮N` marker gives the depth, so a 40,000-level parent chain stays readable and fast.
    """
    ids = {s.step_id for s in trace.steps}
    children: dict[str | None, list[TraceStep]] = {}
    for step in sorted(trace.steps, key=lambda s: s.step_index):
        children.setdefault(step.parent_id if step.parent_id in ids else None, []).append(step)
    lines = [Text(f"{text(trace.agent_name)}  ({text(trace.trace_id)})", style="bold")]
    roots = children.get(None, [])
    stack = [(s, 1, "", i == len(roots) - 1) for i, s in reversed(list(enumerate(roots)))]
    while stack:
        step, depth, guides, last = stack.pop()
        lines.append(_line(step, depth, guides, last))
        kids = children.get(step.step_id, [])
        below = (guides + ("   " if last else "│  "))[-_GUIDE * MAX_INDENT :]
        stack.extend(
            (kid, depth + 1, below, i == len(kids) - 1)
            for i, kid in reversed(list(enumerate(kids)))
        )
    tree = Text("\n", no_wrap=True, overflow="ignore").join(lines)
    return Group(tree, _totals(totals or trace_totals(trace), trace))


def _line(step: TraceStep, depth: int, guides: str, last: bool) -> Text:
    deep = f"⋮{depth} " if depth > MAX_INDENT else ""
    line = _label(step)
    return Text.assemble((deep + guides + ("└─ " if last else "├─ "), "dim"), line)


def _unknown(value: float | None, fmt: Callable[[float], str]) -> str:
    return "unknown" if value is None else fmt(value)


def _totals(totals: Summary, trace: AgentTrace) -> Table:
    """The same totals `compare` reports for this trace."""
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_row("steps", count(totals.steps) + folded(totals.folded_framework_steps))
    table.add_row("tool calls", count(totals.tool_calls))
    table.add_row(*_model_calls(totals))
    table.add_row("errors", count(totals.errors))
    table.add_row("source format", text(totals.source_format or "?"))
    table.add_row("latency", _unknown(totals.latency_ms, ms))
    table.add_row("tokens", _unknown(totals.total_tokens, count) + partly(totals.token_coverage))
    notes = ["estimated"] if totals.cost_estimated else []
    notes += [str(totals.cost_coverage)] if partly(totals.cost_coverage) else []
    cost = _unknown(totals.cost_usd, usd) + (f" ({'; '.join(notes)})" if notes else "")
    table.add_row("cost", cost)
    dropped = dropped_line(trace)
    if dropped:
        table.add_row("dropped spans", dropped)
    for warning in (trace.metadata or {}).get("warnings") or []:
        table.add_row("warning", Text(text(warning), style="yellow"))
    return table


def _model_calls(totals: Summary) -> tuple[str, str]:
    """The calls to a model, counted as `compare` counts them.

    `LLM calls`, or `model turns` when some turns are no `llm_call` step (a LangGraph run has
    none: '0 LLM calls' would deny the calls it made).
    """
    if totals.model_turns != totals.llm_calls:
        return "model turns", count(totals.model_turns)
    return "LLM calls", count(totals.llm_calls)


_NAME_CHARS = 80
"""Longest span name shown among the dropped spans."""


def dropped_line(trace: AgentTrace) -> str | None:
    """`3 not agent steps (GET ×2, SELECT ×1)`: the spans an adapter left out, when any.

    The span names come from the trace: shown as every trace string is (`text`: one line,
    controls escaped, secrets redacted).
    """
    meta = trace.metadata or {}
    dropped = meta.get("dropped_spans")
    if not isinstance(dropped, int) or dropped <= 0:
        return None
    names = meta.get("dropped_span_names")
    shown = ""
    if isinstance(names, dict) and names:
        top = sorted(names.items(), key=lambda kv: (-int(kv[1]), str(kv[0])))
        parts = [f"{text(name, _NAME_CHARS)} ×{n}" for name, n in top[:5]]
        more = len(top) - 5
        shown = f" ({', '.join(parts)}{f', +{more} more' if more > 0 else ''})"
    return f"{dropped} not agent steps{shown}"
