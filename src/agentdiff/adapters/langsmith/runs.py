"""LangSmith documents → `Run`s: nested and flat runs, post + patch merged, and their trace.

The SDK uploads a run twice, a `post` when it starts and a `patch` when it ends (in one
`{"post": [...], "patch": [...]}` batch body or in several); a flat list may repeat a run id the
same way. Every record of one id is merged into one run, in order, later fields winning (a
field sent as `null` does not erase a value).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agentdiff.errors import TraceFormatError
from agentdiff.timeparse import parse_timestamp

__all__ = ["Run", "flatten_list", "flatten_tree", "ingest_records", "is_ingest", "trace_of"]


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
    """Runs of a flat list (nested `child_runs` included); the records of one run id merged."""
    merged: dict[str, dict[str, Any]] = {}
    where: dict[str, str] = {}
    nesting: dict[str, str | None] = {}
    for i, item in enumerate(runs):
        path = f"{prefix}[{i}]"
        patch = isinstance(item, dict) and "run_type" not in item and item.get("id") in merged
        if patch:  # a patch of a run seen before: end time, outputs, error, ...
            _merge(merged[item["id"]], item)
            continue
        for run in flatten_tree(item, path):
            if run.run_id in merged:
                _merge(merged[run.run_id], run.raw)
            else:
                merged[run.run_id], where[run.run_id] = dict(run.raw), path
                nesting[run.run_id] = run.parent_id
    out = []
    for i, (run_id, raw) in enumerate(merged.items()):
        record, _ = _check(where[run_id], raw)
        parent = _str(record.get("parent_run_id")) or nesting[run_id] or _dotted_parent(record)
        out.append(Run(record, run_id, parent, i))
    return out


def _merge(into: dict[str, Any], later: dict[str, Any]) -> None:
    into.update({k: v for k, v in later.items() if v is not None and k != "child_runs"})


def _dotted_parent(run: dict[str, Any]) -> str | None:
    """The parent named by `dotted_order` (its second-to-last segment), when there is one."""
    dotted = run.get("dotted_order")
    if not isinstance(dotted, str) or "." not in dotted:
        return None
    parent = dotted.split(".")[-2]
    return parent.split("Z", 1)[1] if "Z" in parent else None


def is_ingest(data: Any) -> bool:
    """A batch ingest body `{"post": [...], "patch": [...]}` (either may be absent), or a list."""
    bodies = data if isinstance(data, list) else [data]
    return bool(bodies) and all(
        isinstance(b, dict)
        and bool({"post", "patch"} & set(b))
        and set(b) <= {"post", "patch"}
        and all(isinstance(b.get(k, []), list) for k in ("post", "patch"))
        for b in bodies[:3]
    )


def ingest_records(data: Any) -> list[Any]:
    """Every post, then every patch, of one body or a list of bodies, in upload order."""
    bodies = data if isinstance(data, list) else [data]
    return [
        record
        for body in bodies
        if isinstance(body, dict)
        for key in ("post", "patch")
        for record in body.get(key) or []
    ]


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
