"""The `langsmith` adapter: LangSmith runs (the SDK's `Run`/`RunTree` JSON).

Accepted documents:

- a root run with nested `child_runs` (what `LangChainTracer` / `RunTree` hold);
- a flat list of runs linked by `parent_run_id` (`Client.list_runs` style); several root runs =
  several traces (`trace_ids`/`select_trace`);
- `{"runs": [...]}` holding the runs of ONE trace (an envelope whose runs belong to several
  traces is a collection of traces, not a run, and is not claimed);
- the SDK's batch ingest body `{"post": [...], "patch": [...]}` (or a list of them): runs merged
  by id, patch fields winning. A flat list that repeats a run id is merged the same way.

Run mapping: `run_type` tool/retriever → `tool_call`; llm/prompt/embedding → `llm_call`;
chain/agent/parser and any other string → `routing`. Steps are ordered by `dotted_order` (a
pre-order walk: parents first, siblings by start time), or by start time when a run lacks it.
Tokens are read from LLM runs only, once each (chain runs repeat their children's usage in their
outputs, and the server rolls token counts up into every ancestor); reading runs is in `runs`,
the mapping in `steps`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.langsmith import runs as langsmith_runs
from agentdiff.adapters.langsmith.steps import build_trace
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace

__all__ = ["LangSmithAdapter"]

_SNIFF = 5


class LangSmithAdapter(BaseAdapter):
    """LangSmith runs: a root run with child_runs, or a flat list of runs (parent_run_id)."""

    name: ClassVar[str] = "langsmith"
    aliases: ClassVar[tuple[str, ...]] = ("langsmith_runs", "langchain_tracer")
    description: ClassVar[str] = (
        "LangSmith runs: a root run with nested child_runs, or a flat list linked by parent_run_id"
    )

    @classmethod
    def detect(cls, data: Any) -> bool:
        """A run, a list of runs, `{"runs": [...]}` runs of one trace, or an ingest body."""
        if langsmith_runs.is_ingest(data):
            records = langsmith_runs.ingest_records(data)
            return bool(records) and _are_runs([r for r in records if "run_type" in r][:_SNIFF])
        if isinstance(data, dict) and "runs" in data and "run_type" not in data:
            runs = data["runs"]
            return (
                isinstance(runs, list)
                and bool(runs)
                and _are_runs(runs[:_SNIFF])
                and len(_root_ids(runs)) == 1
            )
        if isinstance(data, dict):
            return _are_runs([data])
        return isinstance(data, list) and bool(data) and _are_runs(data[:_SNIFF])

    @classmethod
    def trace_ids(cls, data: Any) -> list[str]:
        """Trace ids of a flat list of runs or an ingest body (a run tree holds one trace)."""
        if langsmith_runs.is_ingest(data):
            return _root_ids(langsmith_runs.ingest_records(data))
        return _root_ids(data) if isinstance(data, list) else []

    @classmethod
    def select_trace(cls, data: Any, trace_id: str) -> Any:
        """The runs of one trace from a flat list or an ingest body (as a flat list)."""
        return _runs_by_trace(data).get(trace_id, [])

    @classmethod
    def split_traces(cls, data: Any) -> list[tuple[str, Any]]:
        """Each trace id (`trace_ids`' order) with its runs (as a flat list), in one pass."""
        return [(tid, runs) for tid, runs in _runs_by_trace(data).items() if tid is not None]

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Build the trace from a run tree, a flat run list, a `runs` envelope or an ingest body."""
        if langsmith_runs.is_ingest(data):
            return build_trace(langsmith_runs.flatten_list(langsmith_runs.ingest_items(data)))
        if isinstance(data, dict) and "runs" in data and "run_type" not in data:
            runs, prefix = data["runs"], "runs"
        elif isinstance(data, dict):
            return build_trace(langsmith_runs.flatten_tree(data))
        else:
            runs, prefix = data, ""
        if not isinstance(runs, list):
            msg = f"{prefix or 'document'}: expected a run object or a list of runs"
            raise TraceFormatError(msg)
        return build_trace(
            langsmith_runs.flatten_list([(f"{prefix}[{i}]", run) for i, run in enumerate(runs)])
        )


def _are_runs(items: list[Any]) -> bool:
    return all(
        isinstance(i, dict)
        and isinstance(i.get("run_type"), str)
        and "id" in i
        and ("inputs" in i or "start_time" in i or "dotted_order" in i)
        for i in items
    )


def _by_id(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(r.get("id")): r for r in runs}


def _runs_by_trace(data: Any) -> dict[str | None, list[dict[str, Any]]]:
    """The runs of a flat list or an ingest body by the trace each belongs to (`_by_trace`)."""
    if langsmith_runs.is_ingest(data):
        data = langsmith_runs.ingest_records(data)
    return _by_trace(data)


def _by_trace(data: Any) -> dict[str | None, list[dict[str, Any]]]:
    """The runs of a list by the trace each belongs to, traces in order of first appearance.

    Cheap: reads ids, never parses payloads. None holds the runs of no trace found.
    """
    runs = [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []
    by_id = _by_id(runs)
    found: dict[str | None, list[dict[str, Any]]] = {}
    for run in runs:
        found.setdefault(langsmith_runs.trace_of(run, by_id), []).append(run)
    return found


def _root_ids(data: Any) -> list[str]:
    """Distinct trace ids of the runs in a list, in order of first appearance (`_by_trace`)."""
    return [trace_id for trace_id in _by_trace(data) if trace_id is not None]
