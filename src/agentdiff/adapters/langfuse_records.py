"""Langfuse observations as one record, whatever shape they came in.

The Langfuse public API writes observations in camelCase (`GET /api/public/traces/{id}`,
`GET /api/public/v2/observations`), the Python SDK's models dump them in snake_case, and the v4
SDK sends them as OTel spans (see `langfuse_otlp`). Each shape is read into an `Observation`
here; `langfuse_steps` turns observations into canonical steps.

Token usage, in the order it is looked for: `usageDetails` (arbitrary keys; `input`/`output`/
`total` plus OpenAI- and Anthropic-style names), the legacy `usage` object, the flat
`promptTokens`/`completionTokens`/`totalTokens` of `ObservationsView`. A present but empty
`usageDetails` means "no usage reported" (unknown), not zero. Cost: `costDetails.total`, else the
sum of its entries, else `calculatedTotalCost` / `totalCost` / `usage.totalCost`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import orjson

from agentdiff.adapters.payloads import parse_json_string
from agentdiff.adapters.timestamps import parse_timestamp
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import TokenUsage

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "Observation",
    "TraceHeader",
    "cost_from",
    "field_of",
    "json_value",
    "observation_from_api",
    "token_usage",
    "usage_from",
]

_PROMPT_KEYS = ("input", "prompt_tokens", "input_tokens", "promptTokens", "inputTokens")
_COMPLETION_KEYS = (
    "output",
    "completion_tokens",
    "output_tokens",
    "completionTokens",
    "outputTokens",
)
_TOTAL_KEYS = ("total", "total_tokens", "totalTokens")
_COST_FALLBACK_KEYS = ("calculatedTotalCost", "totalCost")


@dataclass(slots=True)
class Observation:
    """One Langfuse observation, shape-independent."""

    id: str
    type: str
    """Upper case, as the API writes it: GENERATION, TOOL, SPAN, ..."""
    name: str
    parent_id: str | None = None
    trace_id: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    input: Any = None
    output: Any = None
    level: str = "DEFAULT"
    status_message: str | None = None
    model: str | None = None
    usage: TokenUsage | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Source fields kept in the step's metadata (model parameters, completion start, ...)."""


@dataclass(slots=True)
class TraceHeader:
    """Trace-level facts; `None` fields are taken from the root observation."""

    trace_id: str | None = None
    name: str | None = None
    input: Any = None
    output: Any = None
    version: str | None = None
    latency_ms: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@lru_cache(maxsize=256)
def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def field_of(raw: dict[str, Any], camel: str) -> Any:
    """`raw[camel]`, or the snake_case spelling of the same key."""
    if camel in raw:
        return raw[camel]
    return raw.get(_snake(camel))


def json_value(value: Any) -> Any:
    """A JSON-encoded object, array or quoted string is decoded; anything else is kept."""
    parsed = parse_json_string(value)
    if isinstance(parsed, str) and parsed.startswith('"'):
        try:
            return orjson.loads(parsed)
        except orjson.JSONDecodeError:
            return parsed
    return parsed


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return int(value)


def _first_count(details: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        count = _count(details.get(key))
        if count is not None:
            return count
    return None


def usage_from(details: Any) -> tuple[int | None, int | None, int | None]:
    """(prompt, completion, total) from a usage dict with arbitrary keys; unknown → None."""
    details = parse_json_string(details)
    if not isinstance(details, dict) or not details:
        return None, None, None
    prompt = _first_count(details, _PROMPT_KEYS)
    completion = _first_count(details, _COMPLETION_KEYS)
    total = _first_count(details, _TOTAL_KEYS)
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    elif total is None:
        counts = [c for c in map(_count, details.values()) if c is not None]
        total = sum(counts) if counts else None
    return prompt, completion, total


def cost_from(details: Any) -> float | None:
    """USD from a `costDetails` dict: its `total`, else the sum of its numeric entries."""
    details = parse_json_string(details)
    if not isinstance(details, dict) or not details:
        return None
    total = details.get("total")
    if isinstance(total, (int, float)) and not isinstance(total, bool):
        return float(total)
    values = [
        float(v)
        for v in details.values()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    ]
    return sum(values) if values else None


def _api_usage(raw: dict[str, Any]) -> TokenUsage | None:
    details = field_of(raw, "usageDetails")
    if details is None:
        details = field_of(raw, "usage")
    if details is None:
        details = {
            k: field_of(raw, k)
            for k in ("promptTokens", "completionTokens", "totalTokens")
            if field_of(raw, k) is not None
        }
    prompt, completion, total = usage_from(details)
    return _token_usage(prompt, completion, total, _api_cost(raw))


def _api_cost(raw: dict[str, Any]) -> float | None:
    details = field_of(raw, "costDetails")
    if details is not None:
        return cost_from(details)
    legacy = field_of(raw, "usage")
    candidates = [field_of(raw, k) for k in _COST_FALLBACK_KEYS]
    if isinstance(legacy, dict):
        candidates.append(field_of(legacy, "totalCost"))
    for value in candidates:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    return None


def _token_usage(
    prompt: int | None, completion: int | None, total: int | None, cost: float | None
) -> TokenUsage | None:
    usage = TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        estimated_cost_usd=cost if cost is None or cost >= 0 else None,
    )
    return None if usage.is_empty else usage


def token_usage(usage_details: Any, cost_details: Any) -> TokenUsage | None:
    """`TokenUsage` from OTel-style `usage_details` / `cost_details` values (dict or JSON)."""
    return _token_usage(*usage_from(usage_details), cost_from(cost_details))


_EXTRA_FIELDS = (
    "modelParameters",
    "completionStartTime",
    "version",
    "promptName",
    "promptVersion",
    "environment",
)


def observation_from_api(raw: Any, where: str) -> Observation:
    """An observation of the public API (camelCase or snake_case, v1 view or v2)."""
    if not isinstance(raw, dict):
        msg = f"{where}: expected an observation object, got {type(raw).__name__}"
        raise TraceFormatError(msg)
    obs_id = field_of(raw, "id")
    if not isinstance(obs_id, str) or not obs_id:
        msg = f"{where}.id: every observation needs a string id"
        raise TraceFormatError(msg)
    parent = field_of(raw, "parentObservationId")
    extra = {_snake(k): field_of(raw, k) for k in _EXTRA_FIELDS if field_of(raw, k) is not None}
    return Observation(
        id=obs_id,
        type=str(field_of(raw, "type") or "SPAN").upper(),
        name=str(field_of(raw, "name") or field_of(raw, "type") or "observation"),
        parent_id=str(parent) if parent else None,
        trace_id=_optional_str(field_of(raw, "traceId")),
        start=parse_timestamp(field_of(raw, "startTime")),
        end=parse_timestamp(field_of(raw, "endTime")),
        input=json_value(field_of(raw, "input")),
        output=json_value(field_of(raw, "output")),
        level=str(field_of(raw, "level") or "DEFAULT").upper(),
        status_message=_optional_str(field_of(raw, "statusMessage")),
        model=_optional_str(field_of(raw, "model") or field_of(raw, "providedModelName")),
        usage=_api_usage(raw),
        extra=extra,
    )


def _optional_str(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)
