"""AgentDiff: tell exactly how and where an AI agent's behaviour changed between two runs."""

import typing as _typing

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

if _typing.TYPE_CHECKING:
    from agentdiff.routes.cluster import cluster_routes
    from agentdiff.scenario.api import compare_runs, compare_scenarios

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
    "cluster_routes",
    "compare",
    "compare_runs",
    "compare_scenarios",
    "load_trace",
    "parse_trace_data",
    "register_adapter",
]

_LAZY = {
    "cluster_routes": "agentdiff.routes.cluster",
    "compare_runs": "agentdiff.scenario.api",
    "compare_scenarios": "agentdiff.scenario.api",
}
"""Imported on first use: they pull in the statistics and suites, which `compare` never needs."""


if not _typing.TYPE_CHECKING:  # a type checker sees the names above, and flags any other

    def __getattr__(name: str) -> _typing.Any:
        if name in _LAZY:
            import importlib  # noqa: PLC0415

            return getattr(importlib.import_module(_LAZY[name]), name)
        msg = f"module 'agentdiff' has no attribute {name!r}"
        raise AttributeError(msg)
