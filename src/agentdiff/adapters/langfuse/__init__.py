"""The `langfuse` adapter: Langfuse API exports and Langfuse-flavoured OTel spans.

- `adapter`: `LangfuseAdapter`, the shapes it claims and trace selection.
- `observations`: the `Observation` / `TraceHeader` records and reading the API's JSON.
- `otel_observations`: reading the v4 SDK's OTel spans into observations.
- `steps`: observations → steps and the trace.
"""

from agentdiff.adapters.langfuse.adapter import LangfuseAdapter

__all__ = ["LangfuseAdapter"]
