"""AgentDiff: tell exactly how and where an AI agent's behaviour changed between two runs."""

from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.registry import available_adapters, register_adapter
from agentdiff.diff import CompareOptions, compare
from agentdiff.errors import (
    AgentDiffError,
    ConfigError,
    TraceFormatError,
    TraceLoadError,
    TraceValidationError,
    UnknownAdapterError,
    UnknownFormatError,
)
from agentdiff.gate import GateThresholds
from agentdiff.loader import load_trace, parse_trace_data
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep
from agentdiff.regressions import assert_no_regressions

__version__ = "0.1.0"

__all__ = [
    "AgentDiffError",
    "AgentTrace",
    "BaseAdapter",
    "CompareOptions",
    "ConfigError",
    "DiffReport",
    "GateThresholds",
    "StepStatus",
    "StepType",
    "TokenUsage",
    "TraceFormatError",
    "TraceLoadError",
    "TraceStep",
    "TraceValidationError",
    "UnknownAdapterError",
    "UnknownFormatError",
    "__version__",
    "assert_no_regressions",
    "available_adapters",
    "compare",
    "load_trace",
    "parse_trace_data",
    "register_adapter",
]
