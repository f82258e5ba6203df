"""Pure data: the canonical trace model and the diff report."""

from agentdiff.models.trace import (
    SCHEMA_VERSION,
    AgentTrace,
    StepStatus,
    StepType,
    TokenUsage,
    TraceStep,
)

__all__ = ["SCHEMA_VERSION", "AgentTrace", "StepStatus", "StepType", "TokenUsage", "TraceStep"]
