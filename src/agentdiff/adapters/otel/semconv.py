"""What one OTel span means as an agent step: OpenInference and OTel GenAI conventions.

`describe_span(span)` reads one decoded `OtelSpan` and returns a `SpanFacts` (step type, name,
payloads, tokens, error) or `None` when the span carries neither convention (an HTTP or DB client
span, framework internals). The `openinference` adapter turns these into `TraceStep`s.

Step types, decided in this order (first match wins):

| source | value | step type |
|---|---|---|
| `openinference.span.kind` | `LLM`, `EMBEDDING` | `llm_call` |
| | `TOOL`, `RETRIEVER`, `RERANKER` (they fetch or rank data for the agent) | `tool_call` |
| | `AGENT`, `CHAIN` | `routing` |
| | `GUARDRAIL`, `EVALUATOR`, `PROMPT` (checks and prompt rendering, not actions) | `thought` |
| | `UNKNOWN` or anything else | `routing` (kind kept in metadata) |
| `gen_ai.operation.name` | `chat`, `text_completion`, `generate_content`, `embeddings` | llm_call |
| | `execute_tool`, `retrieval` | `tool_call` |
| | `invoke_agent`, `create_agent`, `invoke_workflow`, anything else | `routing` |
| `ai.operationId` (Vercel) | `ai.*.doGenerate`, `ai.*.doStream`, `ai.*.doEmbed` | `llm_call` |
| | `ai.toolCall` | `tool_call` |
| | any other (`ai.generateText`, `ai.streamText`, ...: the call around the steps) | `routing` |
| no operation name | has `gen_ai.tool.name` / has `gen_ai.request.model` | tool / llm_call |
| | any other `gen_ai.*` attribute | `routing` |

Old and new GenAI names are both read (`gen_ai.usage.input_tokens` | `prompt_tokens`,
`gen_ai.provider.name` | `gen_ai.system`), and the pre-1.38 pydantic-ai/logfire tool attributes
`tool_arguments` / `tool_response` are read when `gen_ai.tool.call.*` are absent. The Vercel
AI SDK's own `ai.*` attributes (`ai.toolCall.*`, `ai.usage.promptTokens`, `ai.model.id`, ...)
are read beside `gen_ai.*`. An LLM step's model is `metadata["model"]`; cache, reasoning and
audio token counts go to `metadata["usage"]` (`TokenUsage` keeps the spec's fields only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentdiff.adapters._kit.payloads import parse_json_string
from agentdiff.adapters._kit.shapes import amount, text, wrong
from agentdiff.adapters._kit.tokens import KeySets, first_count, usage_from
from agentdiff.adapters.otel.span import OtelSpan, indexed_list
from agentdiff.models.trace import StepType, TokenUsage

__all__ = ["SpanFacts", "describe_span", "first", "requested_tool_calls"]

OI_KIND = "openinference.span.kind"
GENAI_OPERATION = "gen_ai.operation.name"
VERCEL_OPERATION = "ai.operationId"

OI_KIND_TYPES: dict[str, StepType] = {
    "LLM": StepType.LLM_CALL,
    "EMBEDDING": StepType.LLM_CALL,
    "TOOL": StepType.TOOL_CALL,
    "RETRIEVER": StepType.TOOL_CALL,
    "RERANKER": StepType.TOOL_CALL,
    "AGENT": StepType.ROUTING,
    "CHAIN": StepType.ROUTING,
    "GUARDRAIL": StepType.THOUGHT,
    "EVALUATOR": StepType.THOUGHT,
    "PROMPT": StepType.THOUGHT,
}
GENAI_OPERATION_TYPES: dict[str, StepType] = {
    "chat": StepType.LLM_CALL,
    "text_completion": StepType.LLM_CALL,
    "generate_content": StepType.LLM_CALL,
    "embeddings": StepType.LLM_CALL,
    "execute_tool": StepType.TOOL_CALL,
    "retrieval": StepType.TOOL_CALL,
    "invoke_agent": StepType.ROUTING,
    "create_agent": StepType.ROUTING,
    "invoke_workflow": StepType.ROUTING,
}

# Attribute keys read per field, first present wins.
NAME_KEYS: dict[StepType, tuple[str, ...]] = {
    StepType.TOOL_CALL: ("tool.name", "gen_ai.tool.name", "ai.toolCall.name"),
    StepType.LLM_CALL: (
        "llm.model_name",
        "gen_ai.response.model",
        "gen_ai.request.model",
        "embedding.model_name",
        "ai.response.model",
        "ai.model.id",
    ),
    StepType.ROUTING: (
        "agent.name",
        "graph.node.name",
        "gen_ai.agent.name",
        "gen_ai.workflow.name",
        "ai.telemetry.functionId",
    ),
    StepType.THOUGHT: (),
}
TOOL_INPUT_KEYS = (
    "gen_ai.tool.call.arguments",
    "input.value",
    "tool_arguments",
    "tool_call.function.arguments",
    "ai.toolCall.args",
)
TOOL_OUTPUT_KEYS = (
    "gen_ai.tool.call.result",
    "output.value",
    "tool_response",
    "ai.toolCall.result",
)
INPUT_KEYS = ("input.value", "gen_ai.input.messages", "ai.prompt.messages", "ai.prompt")
OUTPUT_KEYS = (
    "output.value",
    "gen_ai.output.messages",
    "final_result",
    "ai.response.text",
    "ai.response.toolCalls",
)
TOOL_CALL_ID_KEYS = ("gen_ai.tool.call.id", "tool_call.id", "tool.id", "ai.toolCall.id")
MODEL_KEYS = (
    "gen_ai.response.model",
    "llm.model_name",
    "gen_ai.request.model",
    "embedding.model_name",
    "ai.response.model",
    "ai.model.id",
)
PROVIDER_KEYS = (
    "llm.provider",
    "gen_ai.provider.name",
    "llm.system",
    "gen_ai.system",
    "ai.model.provider",
)
TOKEN_KEYS = KeySets(
    prompt=(
        "llm.token_count.prompt",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.prompt_tokens",
        "ai.usage.promptTokens",
        "ai.usage.inputTokens",
    ),
    completion=(
        "llm.token_count.completion",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.completion_tokens",
        "ai.usage.completionTokens",
        "ai.usage.outputTokens",
    ),
    total=("llm.token_count.total", "gen_ai.usage.total_tokens", "ai.usage.totalTokens"),
)
USAGE_DETAIL_KEYS: dict[str, tuple[str, ...]] = {
    "cache_read_input_tokens": (
        "llm.token_count.prompt_details.cache_read",
        "gen_ai.usage.cache_read.input_tokens",
        "ai.usage.cachedInputTokens",
        "gen_ai.usage.details.cache_read_tokens",  # pydantic-ai before the semconv names
    ),
    "cache_write_input_tokens": (
        "llm.token_count.prompt_details.cache_write",
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.usage.details.cache_write_tokens",
    ),
    "reasoning_output_tokens": (
        "llm.token_count.completion_details.reasoning",
        "gen_ai.usage.reasoning.output_tokens",
        "ai.usage.reasoningTokens",
    ),
    "audio_input_tokens": ("llm.token_count.prompt_details.audio",),
    "audio_output_tokens": ("llm.token_count.completion_details.audio",),
}
"""`metadata["usage"]` of an LLM step: the token detail `TokenUsage` has no field for."""


@dataclass(slots=True)
class SpanFacts:
    """What a span says about the agent step it records."""

    step_type: StepType
    kind: str
    """The OpenInference kind or GenAI operation (`genai:chat`), or `UNKNOWN`."""
    name: str
    input_value: Any
    output_value: Any
    tokens: TokenUsage | None = None
    error_message: str | None = None
    tool_call_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def first(attrs: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first key present (and not None) in `attrs`."""
    for key in keys:
        value = attrs.get(key)
        if value is not None and value != "":
            return value
    return None


def first_text(span: OtelSpan, keys: tuple[str, ...]) -> str | None:
    """`first`, for attributes that hold text (names, ids, models).

    A number is written as text; an object, array or boolean is an error naming its path.
    """
    for key in keys:
        value = span.attributes.get(key)
        if value is None or value == "":
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return text(value, f"{span.attributes_path}.{key}")
    return None


def classify(attrs: dict[str, Any]) -> tuple[StepType, str] | None:
    """Step type and kind label, or `None` for spans of neither convention."""
    oi_kind = attrs.get(OI_KIND)
    if oi_kind is not None:
        kind = str(oi_kind).upper()
        return OI_KIND_TYPES.get(kind, StepType.ROUTING), kind
    operation = attrs.get(GENAI_OPERATION)
    if operation is not None:
        return GENAI_OPERATION_TYPES.get(str(operation), StepType.ROUTING), f"genai:{operation}"
    vercel = attrs.get(VERCEL_OPERATION)
    if isinstance(vercel, str) and vercel.startswith("ai."):
        return _vercel_type(vercel), f"vercel:{vercel}"
    return _genai_fallback(attrs)


def _genai_fallback(attrs: dict[str, Any]) -> tuple[StepType, str] | None:
    """GenAI attributes without an operation name; `None` when there are none."""
    if not any(key.startswith("gen_ai.") for key in attrs):
        return None
    if "gen_ai.tool.name" in attrs:
        return StepType.TOOL_CALL, "genai:execute_tool"
    if "gen_ai.request.model" in attrs:
        return StepType.LLM_CALL, "genai:chat"
    return StepType.ROUTING, "genai:invoke_agent" if "gen_ai.agent.name" in attrs else "UNKNOWN"


def _vercel_type(operation: str) -> StepType:
    if operation == "ai.toolCall":
        return StepType.TOOL_CALL
    if operation.endswith((".doGenerate", ".doStream", ".doEmbed")):
        return StepType.LLM_CALL
    return StepType.ROUTING


def describe_span(span: OtelSpan) -> SpanFacts | None:
    """The agent-step view of `span`; `None` when it carries no OpenInference/GenAI attribute."""
    attrs = span.attributes
    classified = classify(attrs)
    if classified is None:
        return None
    step_type, kind = classified
    is_tool = step_type is StepType.TOOL_CALL
    facts = SpanFacts(
        step_type=step_type,
        kind=kind,
        name=_name(span, step_type, kind),
        input_value=first(attrs, TOOL_INPUT_KEYS if is_tool else INPUT_KEYS),
        output_value=first(attrs, TOOL_OUTPUT_KEYS if is_tool else OUTPUT_KEYS),
        error_message=error_message(span),
        tool_call_id=first_text(span, TOOL_CALL_ID_KEYS) if is_tool else None,
    )
    if step_type is StepType.LLM_CALL:
        facts.tokens = token_usage(attrs, span.attributes_path)
        facts.input_value = _wrap_messages(facts.input_value) or _messages(
            attrs, "llm.input_messages"
        )
        facts.output_value = _wrap_messages(facts.output_value) or _messages(
            attrs, "llm.output_messages"
        )
        facts.extra = {
            k: v
            for k, v in (
                ("model", first_text(span, MODEL_KEYS)),
                ("provider", first(attrs, PROVIDER_KEYS)),
                ("usage", usage_detail(attrs, span.attributes_path)),
            )
            if v
        }
    return facts


_NUMBERED_KINDS = frozenset(("genai:agent_step",))
"""Kinds whose span names carry a counter (the Vercel AI SDK's "step 3"): named by kind, so the
same step is not renamed by an extra step before it."""


def _name(span: OtelSpan, step_type: StepType, kind: str) -> str:
    if kind in _NUMBERED_KINDS:
        return kind.removeprefix("genai:")
    return first_text(span, NAME_KEYS[step_type]) or span.name or kind


def usage_detail(attrs: dict[str, Any], where: str) -> dict[str, int]:
    """Cache, reasoning and audio token counts of an LLM span (`USAGE_DETAIL_KEYS`).

    `where` is the JSON path of its attributes.
    """
    found = {name: first_count(attrs, keys, where) for name, keys in USAGE_DETAIL_KEYS.items()}
    return {name: value for name, value in found.items() if value is not None}


def error_message(span: OtelSpan) -> str | None:
    """Why an ERROR span failed, as one line.

    The status message when it is one line; otherwise (some instrumentors append the whole
    traceback to it) the `exception` event's message, else the status message's first line;
    with no status message, the `exception` event or `exception.message` / `error.type`.
    """
    if span.status_code != "ERROR":
        return None
    status = str(span.status_message or "").strip()
    if status and "\n" not in status:
        return status
    event_message = next(
        (
            str(m)
            for e in span.events
            if e.get("name") == "exception"
            and (m := (e.get("attributes") or {}).get("exception.message"))
        ),
        None,
    )
    return (
        event_message
        or (status.splitlines()[0] if status else None)
        or _str_or_none(first(span.attributes, ("exception.message", "error.type")))
    )


def token_usage(attrs: dict[str, Any], where: str) -> TokenUsage | None:
    """Tokens and cost of an LLM span (its attributes at `where`); unknown fields stay `None`."""
    return usage_from(attrs, TOKEN_KEYS, where, cost=_cost(attrs, where))


def _cost(attrs: dict[str, Any], where: str) -> float | None:
    total = _amount(attrs, "llm.cost.total", where)
    if total is not None:
        return total
    parts = [_amount(attrs, k, where) for k in ("llm.cost.prompt", "llm.cost.completion")]
    known = [p for p in parts if p is not None]
    return sum(known) if known else None


def requested_tool_calls(span: OtelSpan) -> list[dict[str, Any]]:
    """Tool calls an LLM span asked for: `[{"id", "name", "arguments"}]`, in order."""
    attrs = span.attributes
    calls = [
        {
            "id": call.get("tool_call.id"),
            "name": call.get("tool_call.function.name"),
            "arguments": parse_json_string(call.get("tool_call.function.arguments")),
        }
        for message in indexed_list(attrs, "llm.output_messages")
        for call in indexed_list(message, "message.tool_calls")
    ]
    messages = _as_list(parse_json_string(attrs.get("gen_ai.output.messages")))
    calls.extend(
        {
            "id": part.get("id"),
            "name": part.get("name"),
            "arguments": parse_json_string(part.get("arguments")),
        }
        for message in messages
        if isinstance(message, dict)
        for part in _as_list(message.get("parts"))
        if isinstance(part, dict) and part.get("type") == "tool_call"
    )
    calls.extend(
        {
            "id": call.get("toolCallId"),
            "name": call.get("toolName"),
            "arguments": parse_json_string(call.get("input", call.get("args"))),
        }
        for call in _as_list(parse_json_string(attrs.get("ai.response.toolCalls")))
        if isinstance(call, dict)
    )
    return calls


def _wrap_messages(value: Any) -> Any:
    """A GenAI message list (JSON string or list) becomes `{"messages": [...]}`."""
    parsed = parse_json_string(value)
    return {"messages": parsed} if isinstance(parsed, list) else value


def _messages(attrs: dict[str, Any], prefix: str) -> dict[str, Any] | None:
    messages = indexed_list(attrs, prefix)
    return {"messages": messages} if messages else None


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _amount(attrs: dict[str, Any], key: str, where: str) -> float | None:
    """A cost attribute: a number or numeric text; anything else is an error naming it."""
    value = attrs.get(key)
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise wrong(f"{where}.{key}", "a cost in USD (a number)", attrs[key]) from None
    return amount(value, f"{where}.{key}")
