"""OpenAI Agents SDK `span_data` → step fields, and a span's token usage.

One mapper per span type; the table is in `adapter`'s docstring.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from agentdiff.adapters._kit.payloads import as_optional_payload, as_payload
from agentdiff.adapters._kit.tokens import KeySets, usage_from
from agentdiff.models.trace import StepType, TokenUsage

__all__ = ["MAPPERS", "Mapped", "tokens_of", "unknown"]

_LITERAL_LIMIT = 100_000
_USAGE_KEYS = KeySets(
    prompt=("input_tokens", "prompt_tokens"),
    completion=("output_tokens", "completion_tokens"),
    total=("total_tokens", "details.total_tokens"),
)
Mapped = tuple[StepType, str, dict[str, Any], dict[str, Any] | None]
"""(step type, name, input payload, output payload)."""


def _agent(d: dict[str, Any]) -> Mapped:
    inputs: dict[str, Any] = {k: d[k] for k in ("handoffs", "tools", "output_type") if k in d}
    return StepType.ROUTING, str(d.get("name") or "agent"), inputs, None


def _guardrail(d: dict[str, Any]) -> Mapped:
    output = {"triggered": d.get("triggered")}
    return StepType.ROUTING, str(d.get("name") or "guardrail"), {}, output


def _handoff(d: dict[str, Any]) -> Mapped:
    source, target = d.get("from_agent"), d.get("to_agent")
    return (
        StepType.ROUTING,
        f"handoff {source} → {target}",
        {"from_agent": source},
        {"to_agent": target},
    )


def _plumbing(d: dict[str, Any]) -> Mapped:
    rest = {k: v for k, v in d.items() if k not in ("type", "result", "output")}
    out = {k: d[k] for k in ("result", "output") if d.get(k) is not None}
    return StepType.ROUTING, str(d.get("type")), rest, out or None


def _messages(value: Any) -> dict[str, Any] | None:
    return {"messages": value} if isinstance(value, list) else as_optional_payload(value)


def _generation(d: dict[str, Any]) -> Mapped:
    name = str(d.get("model") or "generation")
    return StepType.LLM_CALL, name, _messages(d.get("input")) or {}, _messages(d.get("output"))


def _response(d: dict[str, Any]) -> Mapped:
    out = {"response_id": d["response_id"]} if d.get("response_id") else None
    return StepType.LLM_CALL, "response", _messages(d.get("input")) or {}, out


def _audio(d: dict[str, Any]) -> Mapped:
    """Transcription / speech: audio blobs (`{"data", "format"}`) keep only their format."""

    def strip(value: Any) -> Any:
        return {k: v for k, v in value.items() if k != "data"} if isinstance(value, dict) else value

    name = str(d.get("model") or d.get("type"))
    inputs, output = as_payload(strip(d.get("input"))), as_optional_payload(strip(d.get("output")))
    return StepType.LLM_CALL, name, inputs, output


def _function(d: dict[str, Any]) -> Mapped:
    output = _python_literal(as_optional_payload(d.get("output")))
    return StepType.TOOL_CALL, str(d.get("name") or "function"), as_payload(d.get("input")), output


def _custom(d: dict[str, Any]) -> Mapped:
    return StepType.THOUGHT, str(d.get("name") or "custom"), as_payload(d.get("data")), None


def unknown(d: dict[str, Any]) -> Mapped:
    """A span type this adapter does not know: a `thought` named after the type."""
    rest = {k: v for k, v in d.items() if k != "type"}
    return StepType.THOUGHT, str(d.get("type") or "unknown"), rest, None


MAPPERS: dict[str, Callable[[dict[str, Any]], Mapped]] = {
    "agent": _agent,
    "guardrail": _guardrail,
    "handoff": _handoff,
    "speech_group": _plumbing,
    "mcp_tools": _plumbing,
    "generation": _generation,
    "response": _response,
    "transcription": _audio,
    "speech": _audio,
    "function": _function,
    "custom": _custom,
}


def _python_literal(payload: dict[str, Any] | None) -> dict[str, Any] | None:
    """The SDK stores tool outputs with `str()`: read a dict/list repr back as data."""
    text = payload.get("value") if payload is not None and len(payload) == 1 else None
    if not isinstance(text, str) or text[:1] not in "{[" or len(text) > _LITERAL_LIMIT:
        return payload
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return payload
    return as_payload(value)


def tokens_of(usage: Any) -> TokenUsage | None:
    """`usage` of a span (any SDK version, sanitized or not); None when nothing is known."""
    if not isinstance(usage, dict):
        return None
    details = usage.get("details")
    nested = details.get("total_tokens") if isinstance(details, dict) else None
    return usage_from({**usage, "details.total_tokens": nested}, _USAGE_KEYS)
