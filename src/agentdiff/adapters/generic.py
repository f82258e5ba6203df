"""The `generic` adapter: canonical `AgentTrace` JSON, 1-to-1 in both directions."""

from __future__ import annotations

from typing import Any, ClassVar

from agentdiff.adapters.base import BaseAdapter
from agentdiff.models.trace import AgentTrace

__all__ = ["GenericAdapter"]


class GenericAdapter(BaseAdapter):
    """Canonical AgentTrace JSON (what `agentdiff convert` writes)."""

    name: ClassVar[str] = "generic"
    aliases: ClassVar[tuple[str, ...]] = ("agentdiff", "canonical")

    @classmethod
    def detect(cls, data: Any) -> bool:
        """A dict with `trace_id` and a `steps` list, and `schema_version` or `agent_name`."""
        return (
            isinstance(data, dict)
            and isinstance(data.get("steps"), list)
            and "trace_id" in data
            and ("schema_version" in data or "agent_name" in data)
        )

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Validate the document against the canonical model."""
        return AgentTrace.model_validate(data)
