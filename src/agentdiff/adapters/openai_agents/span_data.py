"""OpenAI Agents SDK `span_data` → step fields, and a span's token usage.

One mapper per span type (given the span's `span_data` and its JSON path); the table is in
`adapter`'s docstring. A name field that is not a string is an error naming its path.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from agentdiff.adapters._kit.payloads import as_optional_payload, as_payload
from agentdiff.adapters._kit.shapes import key_path, mapping, text
from agentdiff.adapters._kit.tokens import KeySets, count, usage_from
from agentdiff.models.trace import StepType, TokenUsage

__all__ = ["MAPPERS", "Mapped", "tokens_of", "unknown"]

_LITERAL_LIMIT = 100_000
_USAGE_KEYS = KeySets(
    prompt=("input_tokens", "prompt_tokens"),
    completion=("output_tokens", "completion_tokens"),
    total=("total_tokens",),
)
Mapped = tuple[StepType, str, dict[str, Any], dict[str, Any] | None]
"""(step type, name, input payload, output payload)."""


def name_of(d: dict[str, Any], key: str, where: str, default: str) -> str:
    """`d[key]` (a string; `default` when absent or empty), else an error naming its path."""
    return text(d.get(key), key_path(where, key)) or default


def _agent(d: dict[str, Any], where: str) -> Mapped:
    inputs: dict[str, Any] = {k: d[k] for k in ("handoffs", "tools", "output_type") if k in d}
    return StepType.ROUTING, name_of(d, "name", where, "agent"), inputs, None


def _guardrail(d: dict[str, Any], where: str) -> Mapped:
    output = {"triggered": d.get("triggered")}
    return StepType.ROUTING, name_of(d, "name", where, "guardrail"), {}, output


def _handoff(d: dict[str, Any], _where: str) -> Mapped:
    source, target = d.get("from_agent"), d.get("to_agent")
    return (
        StepType.ROUTING,
        f"handoff {source} → {target}",
        {"from_agent": source},
        {"to_agent": target},
    )


def _plumbing(d: dict[str, Any], _where: str) -> Mapped:
    rest = {k: v for k, v in d.items() if k not in ("type", "result", "output")}
    out = {k: d[k] for k in ("result", "output") if d.get(k) is not None}
    return StepType.ROUTING, str(d.get("type")), rest, out or None


def _messages(value: Any) -> dict[str, Any] | None:
    return {"messages": value} if isinstance(value, list) else as_optional_payload(value)


def _generation(d: dict[str, Any], where: str) -> Mapped:
    name = name_of(d, "model", where, "generation")
    return StepType.LLM_CALL, name, _messages(d.get("input")) or {}, _messages(d.get("output"))


def _response(d: dict[str, Any], _where: str) -> Mapped:
    out = {"response_id": d["response_id"]} if d.get("response_id") else None
    return StepType.LLM_CALL, "response", _messages(d.get("input")) or {}, out


def _audio(d: dict[str, Any], where: str) -> Mapped:
    """Transcription / speech: audio blobs (`{"data", "format"}`) keep only their format."""

    def strip(value: Any) -> Any:
        return {k: v for k, v in value.items() if k != "data"} if isinstance(value, dict) else value

    name = name_of(d, "model", where, str(d.get("type")))
    inputs, output = as_payload(strip(d.get("input"))), as_optional_payload(strip(d.get("output")))
    return StepType.LLM_CALL, name, inputs, output


def _function(d: dict[str, Any], where: str) -> Mapped:
    output = _python_literal(as_optional_payload(d.get("output")))
    name = name_of(d, "name", where, "function")
    return StepType.TOOL_CALL, name, as_payload(d.get("input")), output


def _custom(d: dict[str, Any], where: str) -> Mapped:
    return StepType.THOUGHT, name_of(d, "name", where, "custom"), as_payload(d.get("data")), None


def unknown(d: dict[str, Any], where: str) -> Mapped:
    """A span type this adapter does not know: a `thought` named after the type."""
    rest = {k: v for k, v in d.items() if k != "type"}
    return StepType.THOUGHT, name_of(d, "type", where, "unknown"), rest, None


MAPPERS: dict[str, Callable[[dict[str, Any], str], Mapped]] = {
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


def tokens_of(usage: Any, where: str) -> TokenUsage | None:
    """`usage` (at `where`) of a span, any SDK version, sanitized or not; None if nothing known.

    Older SDKs put the total under `details.total_tokens`.
    """
    counts = mapping(usage, where)
    at = key_path(where, "details")
    nested = count(mapping(counts.get("details"), at).get("total_tokens"), f"{at}.total_tokens")
    if counts.get("total_tokens") is None and nested is not None:
        counts = {**counts, "total_tokens": nested}
    return usage_from(counts, _USAGE_KEYS, where)
