"""Role messages → steps, shared by every adapter that reads conversations (langgraph, crewai).

- `dialects`: the four JSON dialects of a LangChain-family role message, one extractor each.
- `conversation`: the `Message` record, `normalize_messages` and `conversation_steps` (the
  mapping of a conversation to steps) and `sum_usage`.
"""

from agentdiff.adapters.messages.conversation import (
    Message,
    Role,
    ToolCall,
    conversation_steps,
    normalize_messages,
    sum_usage,
)
from agentdiff.adapters.messages.dialects import is_message_like

__all__ = [
    "Message",
    "Role",
    "ToolCall",
    "conversation_steps",
    "is_message_like",
    "normalize_messages",
    "sum_usage",
]
