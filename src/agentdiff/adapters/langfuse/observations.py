"""Langfuse observations as one record, whatever shape they came in.

The Langfuse public API writes observations in camelCase (`GET /api/public/traces/{id}`,
`GET /api/public/v2/observations`), the Python SDK's models dump them in snake_case, and the v4
SDK sends them as OTel spans (see `otel_observations`). Each shape is read into an
`Observation` here; `steps` turns observations into canonical steps.

Token usage, in the order it is looked for: `usageDetails` (arbitrary keys; `input`/`output`/
`total` plus OpenAI- and Anthropic-style names; a total that is neither given nor prompt +
completion is the sum of every count), the legacy `usage` object, the flat
`promptTokens`/`completionTokens`/`totalTokens` of `ObservationsView`. A present but empty
`usageDetails` means "no usage reported" (unknown), not zero; counts other than input/output/
total (cache, reasoning, audio) are kept whole for `metadata["usage"]`. Cost: `costDetails.total`,
else the sum of its entries, else `calculatedTotalCost` / `totalCost` / `usage.totalCost`, else
legacy `usage.inputCost` + `usage.outputCost`. An observation without start and end times takes
its latency from `latency` (seconds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import orjson

from agentdiff.adapters._kit.payloads import parse_json_string
from agentdiff.adapters._kit.tokens import KeySets, count, usage_from
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import TokenUsage
from agentdiff.timeparse import parse_timestamp

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "Observation",
    "TraceHeader",
    "cost_from",
    "field_of",
    "json_value",
    "observation_from_api",
    "usage_details",
    "usage_extra",
]

_USAGE_KEYS = KeySets(
    prompt=("input", "prompt_tokens", "input_tokens", "promptTokens", "inputTokens"),
    completion=(
        "output",
        "completion_tokens",
        "output_tokens",
        "completionTokens",
        "outputTokens",
    ),
    total=("total", "total_tokens", "totalTokens"),
)
_COST_FALLBACK_KEYS = ("calculatedTotalCost", "totalCost")
_MAIN_USAGE_KEYS = frozenset(
    _USAGE_KEYS.prompt + _USAGE_KEYS.completion + _USAGE_KEYS.total + ("unit",)
)


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


def usage_details(details: Any, cost: float | None = None) -> TokenUsage | None:
    """`TokenUsage` from a usage dict with arbitrary keys (or its JSON) and a cost; unknown → None.

    A total neither given nor derivable from prompt + completion is the sum of every count.
    """
    details = parse_json_string(details)
    if not isinstance(details, dict):
        details = {}
    usage = usage_from(details, _USAGE_KEYS, cost=cost if cost is None or cost >= 0 else None)
    if usage is not None and usage.total_tokens is not None:
        return usage
    counts = [c for c in map(count, details.values()) if c is not None]
    if not counts:
        return usage
    known = usage or TokenUsage()
    return TokenUsage(
        prompt_tokens=known.prompt_tokens,
        completion_tokens=known.completion_tokens,
        total_tokens=sum(counts),
        estimated_cost_usd=known.estimated_cost_usd,
    )


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
    return usage_details(details, _api_cost(raw))


def _api_cost(raw: dict[str, Any]) -> float | None:
    given = cost_from(field_of(raw, "costDetails"))
    if given is not None:
        return given
    legacy = field_of(raw, "usage")
    candidates = [field_of(raw, k) for k in _COST_FALLBACK_KEYS]
    if isinstance(legacy, dict):
        candidates.append(field_of(legacy, "totalCost"))
    for value in candidates:
        if _is_number(value):
            return float(value)
    if isinstance(legacy, dict):
        parts = [field_of(legacy, k) for k in ("inputCost", "outputCost")]
        known = [float(v) for v in parts if _is_number(v)]
        return sum(known) if known else None
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def usage_extra(details: Any) -> dict[str, Any]:
    """Counts of a `usageDetails` dict (or its JSON) beyond input/output/total.

    Cache, reasoning and audio tokens, for `metadata["usage"]`.
    """
    details = parse_json_string(details)
    if not isinstance(details, dict):
        return {}
    extra = {k: count(v) for k, v in details.items() if k not in _MAIN_USAGE_KEYS}
    return {k: v for k, v in extra.items() if v is not None}


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
    usage = usage_extra(field_of(raw, "usageDetails"))
    if usage:
        extra["usage"] = usage
    start = parse_timestamp(field_of(raw, "startTime"))
    end = parse_timestamp(field_of(raw, "endTime"))
    latency = field_of(raw, "latency")
    if (start is None or end is None) and _is_number(latency) and latency >= 0:
        extra["latency_seconds"] = float(latency)
    return Observation(
        id=obs_id,
        type=str(field_of(raw, "type") or "SPAN").upper(),
        name=str(field_of(raw, "name") or field_of(raw, "type") or "observation"),
        parent_id=str(parent) if parent else None,
        trace_id=_optional_str(field_of(raw, "traceId")),
        start=start,
        end=end,
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
