"""The `openai_agents` adapter: OpenAI Agents SDK traces.

- `adapter`: `OpenAIAgentsAdapter`, the documents it claims and trace selection.
- `span_data`: what each span type becomes (step type, name, payloads) and a span's usage.
- `trace`: spans → steps and the trace (placement past bookkeeping spans, turn usage, order).
"""

from agentdiff.adapters.openai_agents.adapter import OpenAIAgentsAdapter

__all__ = ["OpenAIAgentsAdapter"]
