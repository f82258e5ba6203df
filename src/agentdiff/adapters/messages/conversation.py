"""The conversation engine: role messages in any LangChain-family serialization → steps.

Used by the `langgraph` and `crewai` adapters, so role messages mean the same thing everywhere.

Public API (small and stable):

- `normalize_messages(raw, path=...) -> list[Message]` reads a JSON list of messages written as
  `message_to_dict` dumps (`{"type", "data"}`), LangChain constructor dumps
  (`{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}`), plain
  `model_dump()` dicts (`{"type": "ai", ...}`) or OpenAI-style role dicts (`{"role": ...}`).
  Messages repeated with the same id (and role) are kept once.
- `conversation_steps(messages, ...) -> list[TraceStep]`: each AI message that asks for tools
  is one `routing` step named by the tools it asked for (sorted, comma-separated; carrying that
  message's tokens); each tool result is a `tool_call` step
  under the routing step that asked for it, with `metadata["turn_id"]` = that step's id; a tool
  call that never got a result is `abandoned`; a tool call the model wrote but that could not be
  parsed (`AIMessage.invalid_tool_calls`) is an `error` tool step with the parse error; an AI
  message without tool calls is a `response` step named `final_answer`. Every AI step records
  `metadata["model"]` (`None` when the message does not name it): it is a model turn. Human and
  system messages are the task, not steps.
- `sum_usage(messages) -> TokenUsage | None`: tokens summed once per AI message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from agentdiff.adapters._kit.payloads import as_payload
from agentdiff.adapters._kit.tokens import sum_usage as sum_known_usage
from agentdiff.adapters.messages.dialects import extract_message, is_message_like
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import StepStatus, StepType, TokenUsage, TraceStep

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = [
    "Message",
    "Role",
    "ToolCall",
    "conversation_steps",
    "is_message_like",
    "normalize_messages",
    "sum_usage",
]

Role = Literal["ai", "human", "system", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call an AI message asked for."""

    id: str | None
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Message:
    """One role message, whatever serialization it came from."""

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    status: Literal["success", "error"] | None = None
    """Tool result status; `error` when the source flags it or the text is a ToolNode error."""
    error: str | None = None
    usage: TokenUsage | None = None
    id: str | None = None
    name: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    """Source details worth keeping (`model_name`, `finish_reason`, the dialect...)."""
    invalid_calls: tuple[tuple[str | None, str, str, str], ...] = ()
    """Tool calls the model wrote that could not be parsed: (id, name, raw args, error)."""


def normalize_messages(raw: Any, *, path: str = "messages") -> list[Message]:
    """Read a JSON list of role messages in any supported dialect; `TraceFormatError` if not."""
    if not isinstance(raw, list):
        msg = f"{path}: expected a list of messages, got {type(raw).__name__}"
        raise TraceFormatError(msg)
    return list(_deduplicated(_iter_messages(raw, path)))


def _iter_messages(raw: list[Any], path: str) -> Iterator[Message]:
    for i, item in enumerate(raw):
        fields = extract_message(item, f"{path}[{i}]")
        if fields is not None:
            fields["tool_calls"] = tuple(ToolCall(*call) for call in fields["tool_calls"])
            yield Message(**fields)


def _deduplicated(messages: Iterable[Message]) -> Iterator[Message]:
    seen: set[tuple[str, str]] = set()
    for message in messages:
        if message.id is not None:
            key = (message.role, message.id)
            if key in seen:
                continue
            seen.add(key)
        yield message


def sum_usage(messages: Iterable[Message]) -> TokenUsage | None:
    """Token usage summed once per AI message; `None` when no message carried any."""
    return sum_known_usage(m.usage for m in messages if m.role == "ai")


@dataclass
class _Builder:
    """Accumulates steps while walking a conversation."""

    name_prefix: str
    id_prefix: str
    root_parent: str | None
    start_index: int
    steps: list[TraceStep] = field(default_factory=list)
    pending: dict[str, tuple[ToolCall, str]] = field(default_factory=dict)
    """Tool calls asked for and not yet answered: call id → (call, routing step id)."""
    last_routing: str | None = None

    def add(self, kind: str, step_type: StepType, name: str, **fields: Any) -> str:
        step_id = f"{self.id_prefix}{kind}-{len(self.steps)}"
        index = self.start_index + len(self.steps)
        self.steps.append(
            TraceStep(
                step_id=step_id,
                step_index=index,
                step_type=step_type,
                name=f"{self.name_prefix}{name}",
                **fields,
            )
        )
        return step_id

    def on_ai(self, message: Message) -> None:
        self.flush_abandoned()
        if message.tool_calls or message.invalid_calls:
            self.on_routing(message)
            self.on_invalid(message)
        else:
            self.add(
                "response",
                StepType.RESPONSE,
                "final_answer",
                parent_id=self.root_parent,
                input_payload={},
                output_payload={"content": message.content},
                tokens=message.usage,
                metadata=_turn_metadata(message),
            )

    def on_invalid(self, message: Message) -> None:
        for call_id, name, args, error in message.invalid_calls:
            meta: dict[str, Any] = {"turn_id": self.last_routing, "invalid_tool_call": True}
            if call_id is not None:
                meta["tool_call_id"] = call_id
            self.add(
                "tool",
                StepType.TOOL_CALL,
                name,
                parent_id=self.last_routing,
                input_payload={"raw_arguments": args},
                output_payload=None,
                status=StepStatus.ERROR,
                error_message=" ".join(error.split()),
                metadata=meta,
            )

    def on_routing(self, message: Message) -> None:
        called = [c.name for c in message.tool_calls] + [c[1] for c in message.invalid_calls]
        # Named by the set of tools asked for: the order of calls within one message is not an
        # order of execution (they are one concurrent turn), so a swap keeps the step's name.
        names = ",".join(sorted(set(called))) or "tool_calls"
        calls = [{"id": c.id, "name": c.name, "args": c.args} for c in message.tool_calls]
        step_id = self.add(
            "routing",
            StepType.ROUTING,
            names,
            parent_id=self.root_parent,
            input_payload={},
            output_payload={"content": message.content, "tool_calls": calls},
            tokens=message.usage,
            metadata=_turn_metadata(message),
        )
        self.last_routing = step_id
        for i, call in enumerate(message.tool_calls):
            self.pending[call.id or f"{step_id}#{i}"] = (call, step_id)

    def on_tool(self, message: Message) -> None:
        call, parent = self.pending.pop(message.tool_call_id or "", (None, None))
        name = message.name or (call.name if call else None) or "tool"
        status = StepStatus.ERROR if message.status == "error" else StepStatus.SUCCESS
        meta = _message_metadata(message)
        if message.tool_call_id is not None:
            meta["tool_call_id"] = message.tool_call_id
        if parent is not None:
            meta["turn_id"] = parent
        self.add(
            "tool",
            StepType.TOOL_CALL,
            call.name if call else name,
            parent_id=parent or self.last_routing or self.root_parent,
            input_payload=dict(call.args) if call else {},
            output_payload=as_payload(message.content),
            status=status,
            error_message=message.error,
            metadata=meta,
        )

    def flush_abandoned(self) -> None:
        for call_id, (call, parent) in list(self.pending.items()):
            self.add(
                "tool",
                StepType.TOOL_CALL,
                call.name,
                parent_id=parent,
                input_payload=dict(call.args),
                output_payload=None,
                status=StepStatus.ABANDONED,
                metadata={
                    "tool_call_id": call_id,
                    "turn_id": parent,
                    "note": "no tool result recorded",
                },
            )
        self.pending.clear()


def conversation_steps(
    messages: Iterable[Message],
    *,
    name_prefix: str = "",
    id_prefix: str = "",
    parent_id: str | None = None,
    start_index: int = 0,
) -> list[TraceStep]:
    """Map a normalized conversation to trace steps (see the module docstring).

    `name_prefix` is put before every step name (e.g. `"Researcher/"`), `id_prefix` before every
    step id, `parent_id` becomes the parent of routing and response steps, and step indices
    start at `start_index` — so several conversations can be combined into one trace.
    """
    builder = _Builder(name_prefix, id_prefix, parent_id, start_index)
    for message in messages:
        if message.role == "ai":
            builder.on_ai(message)
        elif message.role == "tool":
            builder.on_tool(message)
    builder.flush_abandoned()
    return builder.steps


def _turn_metadata(message: Message) -> dict[str, Any]:
    """An AI message's metadata, with the model that wrote it (`None` when unnamed)."""
    meta = _message_metadata(message)
    meta["model"] = meta.get("model_name")
    return meta


def _message_metadata(message: Message) -> dict[str, Any]:
    meta = dict(message.metadata)
    if message.id is not None:
        meta["message_id"] = message.id
    if message.name is not None:
        meta["message_name"] = message.name
    return meta
