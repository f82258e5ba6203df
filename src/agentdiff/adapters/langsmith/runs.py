"""LangSmith documents → `Run`s: nested and flat runs, post + patch merged, and their trace.

The SDK uploads a run twice, a `post` when it starts and a `patch` when it ends (in one
`{"post": [...], "patch": [...]}` batch body or in several); a flat list may repeat a run id the
same way. Every record of one id is merged into one run, in order, later fields winning (a
field sent as `null` does not erase a value). Each run remembers the JSON path of the record
each of its fields came from, so a wrong value is reported where it is (`patch[3].end_time`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agentdiff.adapters._kit.shapes import key_path, text, timestamp
from agentdiff.errors import TraceFormatError

__all__ = [
    "Run",
    "flatten_list",
    "flatten_tree",
    "ingest_items",
    "ingest_records",
    "is_ingest",
    "trace_of",
]


@dataclass(frozen=True)
class Run:
    """One run with its id, its parent and its position in the document."""

    raw: dict[str, Any]
    run_id: str
    parent_id: str | None
    position: int
    path: str = ""
    """The JSON path of the run's (first) record."""
    sources: dict[str, str] = field(default_factory=dict)
    """Field → the path of the later record (a patch) it came from, when not `path`."""

    def at(self, key: str) -> str:
        """The JSON path of the run's field `key`."""
        return key_path(self.sources.get(key, self.path), key)

    @property
    def started(self) -> datetime | None:
        """When the run started (`start_time`), if known."""
        return timestamp(self.raw.get("start_time"), self.at("start_time"))

    @property
    def ended(self) -> datetime | None:
        """When the run ended (`end_time`), if known."""
        return timestamp(self.raw.get("end_time"), self.at("end_time"))


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
    for key in ("parent_run_id", "trace_id"):
        text(run.get(key), _join(path, key))
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
        out.append(Run(run, run_id, parent_id, len(out), where))
        children = run.get("child_runs") or []
        if not isinstance(children, list):
            raise TraceFormatError(f"{_join(where, 'child_runs')}: expected a list of runs")
        stack.extend(
            (f"{_join(where, 'child_runs')}[{i}]", child, run_id)
            for i, child in reversed(list(enumerate(children)))
        )
    return out


def flatten_list(runs: list[tuple[str, Any]]) -> list[Run]:
    """Runs of a flat list (nested `child_runs` included); the records of one run id merged.

    Each record comes with its JSON path.
    """
    merged: dict[str, dict[str, Any]] = {}
    where: dict[str, str] = {}
    sources: dict[str, dict[str, str]] = {}
    nesting: dict[str, str | None] = {}
    for path, item in runs:
        patch = isinstance(item, dict) and "run_type" not in item and item.get("id") in merged
        if patch:  # a patch of a run seen before: end time, outputs, error, ...
            _merge(merged[item["id"]], item, sources[item["id"]], path)
            continue
        for run in flatten_tree(item, path):
            if run.run_id in merged:
                _merge(merged[run.run_id], run.raw, sources[run.run_id], run.path)
            else:
                merged[run.run_id], where[run.run_id] = dict(run.raw), run.path
                sources[run.run_id], nesting[run.run_id] = {}, run.parent_id
    out = []
    for i, (run_id, raw) in enumerate(merged.items()):
        record, _ = _check(where[run_id], raw)
        parent = _str(record.get("parent_run_id")) or nesting[run_id] or _dotted_parent(record)
        out.append(Run(record, run_id, parent, i, where[run_id], sources[run_id]))
    return out


def _merge(into: dict[str, Any], later: dict[str, Any], sources: dict[str, str], path: str) -> None:
    fields = {k: v for k, v in later.items() if v is not None and k != "child_runs"}
    into.update(fields)
    sources.update(dict.fromkeys(fields, path))


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
    return [record for _, record in ingest_items(data)]


def ingest_items(data: Any) -> list[tuple[str, Any]]:
    """`ingest_records`, each with its JSON path (`post[3]`, or `[1].patch[0]` in a list)."""
    bodies = data if isinstance(data, list) else [data]
    return [
        (f"{f'[{b}].' if isinstance(data, list) else ''}{key}[{i}]", record)
        for b, body in enumerate(bodies)
        if isinstance(body, dict)
        for key in ("post", "patch")
        for i, record in enumerate(body.get(key) or [])
    ]


def _str(value: Any) -> str | None:
    return str(value) if value else None


def trace_of(run: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> str | None:
    """The trace a run belongs to: `trace_id`, else the root of `dotted_order`, else its root."""
    if isinstance(run.get("trace_id"), str) and run["trace_id"]:
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
