"""The `generic` adapter: canonical `AgentTrace` JSON, 1-to-1 in both directions.

A canonical trace is one JSON object; a JSON Lines file holds one trace per line (what
`--update-baseline` writes over a `.jsonl` baseline), and `--trace-id` picks one when there
are several.
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentdiff.adapters.base import BaseAdapter
from agentdiff.errors import MultipleTracesError, TraceFormatError
from agentdiff.models.trace import CANONICAL_FORMAT, AgentTrace

__all__ = ["GenericAdapter"]


def _is_trace(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("steps"), list)
        and "trace_id" in data
        and ("schema_version" in data or "agent_name" in data)
    )


class GenericAdapter(BaseAdapter):
    """Canonical AgentTrace JSON (what `agentdiff convert` writes)."""

    name: ClassVar[str] = CANONICAL_FORMAT
    aliases: ClassVar[tuple[str, ...]] = ("agentdiff", "canonical")

    @classmethod
    def detect(cls, data: Any) -> bool:
        """A dict with `trace_id` and a `steps` list, and `schema_version` or `agent_name`.

        Or a list of such dicts (JSON Lines, one trace per line).
        """
        if isinstance(data, list):
            return bool(data) and all(_is_trace(item) for item in data)
        return _is_trace(data)

    @classmethod
    def trace_ids(cls, data: Any) -> list[str]:
        """The trace ids of a JSON Lines file holding several traces."""
        if isinstance(data, list) and len(data) > 1:
            return [str(item.get("trace_id")) for item in data if isinstance(item, dict)]
        return []

    @classmethod
    def select_trace(cls, data: Any, trace_id: str) -> Any:
        """The line whose `trace_id` is `trace_id` (`MultipleTracesError` when several are)."""
        found = [
            (at, item)
            for at, item in enumerate(data)
            if isinstance(item, dict) and str(item.get("trace_id")) == trace_id
        ]
        if not found:
            raise MultipleTracesError(f"no trace {trace_id!r} in this document")
        if len(found) > 1:
            places = ", ".join(f"[{at}]" for at, _ in found)
            msg = f"the document holds {len(found)} traces with the id {trace_id!r} ({places})"
            raise MultipleTracesError(msg, hint="give each run a trace_id of its own")
        return found[0][1]

    @classmethod
    def split_traces(cls, data: Any) -> list[tuple[str, Any]]:
        """Each line with its trace id, in order (lines with one id are still runs of their own).

        `TraceFormatError` naming an item that is no trace object (it would be no run).
        """
        if not (isinstance(data, list) and len(data) > 1):
            return []
        for at, item in enumerate(data):
            if not isinstance(item, dict):
                msg = f"[{at}]: expected a trace object, got {type(item).__name__}"
                raise TraceFormatError(msg)
        return [(str(item.get("trace_id")), item) for item in data]

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Validate the document against the canonical model."""
        if isinstance(data, list):
            if len(data) != 1:
                msg = f"expected one canonical trace, got a list of {len(data)} items"
                raise TraceFormatError(msg)
            data = data[0]
        return AgentTrace.model_validate(data)
