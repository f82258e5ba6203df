"""LangSmith documents → `Run`s: flattening nested and flat runs, and which trace a run is in."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agentdiff.errors import TraceFormatError
from agentdiff.timeparse import parse_timestamp

__all__ = ["Run", "flatten_list", "flatten_tree", "trace_of"]


@dataclass(frozen=True)
class Run:
    """One run with its id, its parent and its position in the document."""

    raw: dict[str, Any]
    run_id: str
    parent_id: str | None
    position: int

    @property
    def started(self) -> datetime | None:
        """When the run started (`start_time`), if known."""
        return parse_timestamp(self.raw.get("start_time"))

    @property
    def ended(self) -> datetime | None:
        """When the run ended (`end_time`), if known."""
        return parse_timestamp(self.raw.get("end_time"))


def _check(path: str, run: Any) -> tuple[dict[str, Any], str]:
    if not isinstance(run, dict):
        raise TraceFormatError(
            f"{path or 'document'}: expected a run object, got {type(run).__name__}"
        )
    run_id = run.get("id")
    if not isinstance(run_id, str) or not run_id:
        raise TraceFormatError(f"{_join(path, 'id')}: missing run id (expected a UUID string)")
    if not isinstance(run.get("run_type"), str):
        raise TraceFormatError(
            f"{_join(path, 'run_type')}: expected a string such as 'chain', 'llm' or 'tool'"
        )
    return run, run_id


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def flatten_tree(root: Any, path: str = "") -> list[Run]:
    """Every run of a nested run tree (pre-order), parents taken from the nesting."""
    out: list[Run] = []
    stack: list[tuple[str, Any, str | None]] = [(path, root, None)]
    while stack:
        where, item, parent = stack.pop()
        run, run_id = _check(where, item)
        parent_id = _str(run.get("parent_run_id")) or parent
        out.append(Run(run, run_id, parent_id, len(out)))
        children = run.get("child_runs") or []
        if not isinstance(children, list):
            raise TraceFormatError(f"{_join(where, 'child_runs')}: expected a list of runs")
        stack.extend(
            (f"{_join(where, 'child_runs')}[{i}]", child, run_id)
            for i, child in reversed(list(enumerate(children)))
        )
    return out


def flatten_list(runs: list[Any], prefix: str) -> list[Run]:
    """Runs of a flat list (nested `child_runs`, if any, are included too)."""
    flat = [run for i, item in enumerate(runs) for run in flatten_tree(item, f"{prefix}[{i}]")]
    return [Run(r.raw, r.run_id, r.parent_id, i) for i, r in enumerate(flat)]


def _str(value: Any) -> str | None:
    return str(value) if value else None


def trace_of(run: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> str | None:
    """The trace a run belongs to: `trace_id`, else the root of `dotted_order`, else its root."""
    if run.get("trace_id"):
        return str(run["trace_id"])
    dotted = run.get("dotted_order")
    if isinstance(dotted, str) and "Z" in dotted:
        return dotted.split(".", 1)[0].split("Z", 1)[1] or None
    for _ in range(len(by_id) + 1):
        parent = by_id.get(str(run.get("parent_run_id")))
        if parent is None:
            break
        run = parent
    return str(run["id"]) if run.get("id") else None
