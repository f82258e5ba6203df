"""The `langsmith` adapter: LangSmith runs (the SDK's `Run`/`RunTree` JSON).

- `adapter`: `LangSmithAdapter`, the documents it claims and trace selection.
- `runs`: documents → `Run`s (nested or flat) and the trace each run belongs to.
- `steps`: runs → steps and the trace (ordering, payloads, tokens, errors).
"""

from agentdiff.adapters.langsmith.adapter import LangSmithAdapter

__all__ = ["LangSmithAdapter"]
