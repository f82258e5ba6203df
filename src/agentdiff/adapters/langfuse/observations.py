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
its latency from `latency` (seconds). A count, cost, id, name or time of the wrong JSON type is an
error naming its JSON path (`observations[3].usageDetails.input: expected a token count, ...`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import orjson

from agentdiff.adapters._kit.payloads import parse_json_string
from agentdiff.adapters._kit.shapes import (
    amount,
    identifier,
    key_path,
    mapping,
    number,
    text,
    timestamp,
    wrong,
)
from agentdiff.adapters._kit.tokens import KeySets, count, usage_from
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import MAX_AMOUNT, TokenUsage

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "Observation",
    "TraceHeader",
    "cost_from",
    "field_of",
    "field_path",
    "json_value",
    "latency_seconds",
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
_NOT_COUNTS = frozenset(
    ("unit", "inputCost", "outputCost", "totalCost", "input_cost", "output_cost", "total_cost")
)
"""Keys of a (legacy) usage object that are not token counts."""


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


def field_path(raw: dict[str, Any], where: str, camel: str) -> str:
    """The JSON path of `field_of(raw, camel)` (`raw` being the object at `where`)."""
    return key_path(where, camel if camel in raw or _snake(camel) not in raw else _snake(camel))


def json_value(value: Any) -> Any:
    """A JSON-encoded object, array or quoted string is decoded; anything else is kept."""
    parsed = parse_json_string(value)
    if isinstance(parsed, str) and parsed.startswith('"'):
        try:
            return orjson.loads(parsed)
        except orjson.JSONDecodeError:
            return parsed
    return parsed


def usage_details(details: Any, where: str, cost: float | None = None) -> TokenUsage | None:
    """`TokenUsage` from a usage dict at `where` (arbitrary keys, or its JSON) and a cost.

    Unknown → None.
    A total neither given nor derivable from prompt + completion is the sum of every top-level
    count; a nested object (OpenAI's `completion_tokens_details`) breaks a count down and is not
    added again.
    """
    details = mapping(parse_json_string(details), where)
    usage = usage_from(
        details, _USAGE_KEYS, where, cost=cost if cost is None or cost >= 0 else None
    )
    if usage is not None and "input" in details:
        usage = _with_buckets(usage, details, where)
    if usage is not None and usage.total_tokens is not None:
        return usage
    counts = [
        c
        for k, v in details.items()
        if k not in _NOT_COUNTS
        and not isinstance(v, dict)
        and (c := count(v, key_path(where, k))) is not None
    ]
    if not counts:
        return usage
    known = usage or TokenUsage()
    return TokenUsage(
        prompt_tokens=known.prompt_tokens,
        completion_tokens=known.completion_tokens,
        total_tokens=sum(counts),
        estimated_cost_usd=known.estimated_cost_usd,
    )


_INPUT_BUCKETS = ("cache_read_input_tokens", "cache_creation_input_tokens")
"""Anthropic's cache counts, which Langfuse keeps beside `input` (they are not part of it)."""


def _with_buckets(usage: TokenUsage, details: dict[str, Any], where: str) -> TokenUsage:
    """Langfuse's usage buckets put back into the prompt and completion they were taken from.

    Langfuse keeps `usageDetails` as exclusive buckets that add up to `total`: `input` is the
    prompt without its cached part (`input_cached_tokens`, `input_cache_read`, ...: every
    `input_*` key, and Anthropic's cache counts), `output` the completion without its
    `output_*` parts (with no `total`, Langfuse adds the buckets up). Here, as for every source,
    cached tokens are part of the prompt. Buckets that do not add up to a given total (they
    break `input` down instead) are left as they are.
    """
    inputs = _bucket_sum(details, where, lambda k: k.startswith("input_") or k in _INPUT_BUCKETS)
    outputs = _bucket_sum(details, where, lambda k: k.startswith("output_"))
    prompt, completion, total = usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
    if not (inputs or outputs) or prompt is None or completion is None:
        return usage
    whole = prompt + completion + inputs + outputs
    if any(key in details for key in _USAGE_KEYS.total) and total != whole:
        return usage
    return usage.model_copy(
        update={
            "prompt_tokens": prompt + inputs,
            "completion_tokens": completion + outputs,
            "total_tokens": whole,
        }
    )


def _bucket_sum(details: dict[str, Any], where: str, picked: Callable[[str], bool]) -> int:
    counts = (count(v, key_path(where, k)) for k, v in details.items() if picked(str(k)))
    return sum(c for c in counts if c is not None)


def cost_from(details: Any, where: str) -> float | None:
    """USD from a `costDetails` dict at `where`: its `total`, else the sum of its entries."""
    details = mapping(parse_json_string(details), where)
    total = amount(details.get("total"), key_path(where, "total"))
    if total is not None:
        return total
    values = [amount(v, key_path(where, k)) for k, v in details.items()]
    known = [v for v in values if v is not None]
    return _bounded(sum(known), where, details) if known else None


def latency_seconds(value: Any, where: str) -> float | None:
    """The API's `latency` (seconds): a number whose milliseconds stay within 10^15."""
    found = number(value, where)
    if found is not None and abs(found) * 1000 > MAX_AMOUNT:
        raise wrong(where, "a latency of at most 10^12 seconds", value)
    return found


def _bounded(total: float, where: str, parts: Any) -> float:
    """A sum of costs, refused (naming `where`) past 10^15 like each of its parts."""
    if abs(total) > MAX_AMOUNT:
        raise wrong(where, "costs adding up to at most 10^15", parts)
    return total


def _api_usage(raw: dict[str, Any], where: str) -> TokenUsage | None:
    for key in ("usageDetails", "usage"):
        if field_of(raw, key) is not None:
            return usage_details(
                field_of(raw, key), field_path(raw, where, key), _api_cost(raw, where)
            )
    details = {
        k: field_of(raw, k)
        for k in ("promptTokens", "completionTokens", "totalTokens")
        if field_of(raw, k) is not None
    }
    return usage_details(details, where, _api_cost(raw, where))


def _api_cost(raw: dict[str, Any], where: str) -> float | None:
    given = cost_from(field_of(raw, "costDetails"), field_path(raw, where, "costDetails"))
    if given is not None:
        return given
    at = field_path(raw, where, "usage")
    legacy = mapping(field_of(raw, "usage"), at)
    candidates = [(field_of(raw, k), field_path(raw, where, k)) for k in _COST_FALLBACK_KEYS]
    candidates.append((field_of(legacy, "totalCost"), field_path(legacy, at, "totalCost")))
    for value, path in candidates:
        if (found := amount(value, path)) is not None:
            return found
    parts = [
        amount(field_of(legacy, k), field_path(legacy, at, k)) for k in ("inputCost", "outputCost")
    ]
    known = [v for v in parts if v is not None]
    return _bounded(sum(known), at, legacy) if known else None


def usage_extra(details: Any, where: str) -> dict[str, Any]:
    """Counts of a `usageDetails` dict (or its JSON) at `where` beyond input/output/total.

    Cache, reasoning and audio tokens, for `metadata["usage"]`.
    """
    details = mapping(parse_json_string(details), where)
    return _counts({k: v for k, v in details.items() if k not in _MAIN_USAGE_KEYS}, where, "")


def _counts(details: dict[str, Any], where: str, prefix: str) -> dict[str, Any]:
    """The counts of `details` at `where`, their keys prefixed with `prefix`.

    A nested object (OpenAI's `completion_tokens_details`, as the Langfuse SDK records it in
    OTLP) is flattened to dotted keys such as `completion_tokens_details.reasoning_tokens`.
    """
    found: dict[str, Any] = {}
    for key, value in details.items():
        path = key_path(where, key)
        if isinstance(value, dict):
            found |= _counts(value, path, f"{prefix}{key}.")
        elif (number := count(value, path)) is not None:
            found[f"{prefix}{key}"] = number
    return found


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

    def read(camel: str, reader: Any = text) -> Any:
        return reader(field_of(raw, camel), field_path(raw, where, camel))

    extra = {_snake(k): field_of(raw, k) for k in _EXTRA_FIELDS if field_of(raw, k) is not None}
    usage = usage_extra(field_of(raw, "usageDetails"), field_path(raw, where, "usageDetails"))
    if usage:
        extra["usage"] = usage
    start, end = read("startTime", timestamp), read("endTime", timestamp)
    latency = read("latency", latency_seconds)
    if (start is None or end is None) and latency is not None and latency >= 0:
        extra["latency_seconds"] = latency
    kind = read("type") or "SPAN"
    return Observation(
        id=obs_id,
        type=kind.upper(),
        name=read("name") or read("type") or "observation",
        parent_id=read("parentObservationId", identifier),
        trace_id=read("traceId", identifier),
        start=start,
        end=end,
        input=json_value(field_of(raw, "input")),
        output=json_value(field_of(raw, "output")),
        level=(read("level") or "DEFAULT").upper(),
        status_message=read("statusMessage") or None,
        model=read("model") or read("providedModelName") or None,
        usage=_api_usage(raw, where),
        extra=extra,
    )
