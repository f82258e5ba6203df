"""The `langfuse` adapter: Langfuse API exports and Langfuse-flavoured OTel spans.

Shapes it reads (and what `detect` claims, cheaply and without overlap with other adapters):

| shape          | claimed when                                                                   |
|----------------|--------------------------------------------------------------------------------|
| trace          | a dict with an `observations` list and an `id` (`GET /api/public/traces/{id}`, |
|                | camelCase or the SDK's snake_case)                                             |
| download       | `{"trace": {...}, "observations": [...]}`: the trace as the UI's download and  |
|                | the API give it, observations beside the trace (the trace has an `id`)          |
| v2 page        | `{"data": [...]}` whose first items carry `traceId` + `type` and no `object`    |
|                | (OpenAI ingest items carry `"object": "trace"`/`"trace.span"`)                 |
| v2 list        | a bare list (or JSON Lines) whose first items carry `traceId`/`trace_id`,      |
|                | `type` and `startTime`/`start_time`                                            |
| otlp           | OTLP/JSON (or SDK span JSON) whose sampled attribute keys include `langfuse.*` |
|                | (plain OpenInference OTLP has none)                                           |

v2 lists and OTLP may hold several traces: `trace_ids` / `select_trace` pick one. Mapping rules
are in `steps`, field reading in `observations` and `otel_observations`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from agentdiff.adapters._kit.shapes import identifier, text
from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.langfuse.observations import (
    Observation,
    TraceHeader,
    field_of,
    field_path,
    json_value,
    latency_seconds,
    observation_from_api,
)
from agentdiff.adapters.langfuse.otel_observations import observations_from_otlp
from agentdiff.adapters.langfuse.steps import build_trace
from agentdiff.adapters.otel import documents
from agentdiff.adapters.otel.otlp_json import is_otlp
from agentdiff.adapters.otel.span_json import is_span_json
from agentdiff.errors import MultipleTracesError, TraceFormatError

if TYPE_CHECKING:
    from collections.abc import Callable

    from agentdiff.models.trace import AgentTrace

__all__ = ["LangfuseAdapter"]

_SAMPLE = 3
_TRACE_META = (
    "sessionId",
    "userId",
    "tags",
    "release",
    "environment",
    "timestamp",
    "totalCost",
    "metadata",
)
_V2_META = ("sessionId", "userId", "tags", "release", "environment")


def _is_trace(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("observations"), list) and "id" in data


def _is_download(data: Any) -> bool:
    """`{"trace": {"id", ...}, "observations": [...]}` (the trace without observations inside)."""
    if not isinstance(data, dict) or not isinstance(data.get("observations"), list):
        return False
    trace = data.get("trace")
    if not (isinstance(trace, dict) and "id" in trace and "object" not in trace):
        return False
    items = data["observations"]
    return not items or all(_looks_like_observation(i, need_start=False) for i in items[:_SAMPLE])


def _trace_from_download(data: dict[str, Any]) -> AgentTrace:
    return _trace_from_api({**data["trace"], "observations": data["observations"]}, "trace")


def _looks_like_observation(item: Any, *, need_start: bool) -> bool:
    if not isinstance(item, dict) or "object" in item or "type" not in item:
        return False
    if field_of(item, "traceId") is None:
        return False
    return not need_start or field_of(item, "startTime") is not None


def _is_v2_page(data: Any) -> bool:
    items = data.get("data") if isinstance(data, dict) else None
    return (
        isinstance(items, list)
        and bool(items)
        and all(_looks_like_observation(i, need_start=False) for i in items[:_SAMPLE])
    )


def _is_v2_list(data: Any) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and all(_looks_like_observation(i, need_start=True) for i in data[:_SAMPLE])
    )


def _is_langfuse_otel(data: Any) -> bool:
    if not (is_otlp(data) or is_span_json(data)):
        return False
    return any(key.startswith("langfuse.") for key in documents.sample_attribute_keys(data))


def _v2_items(data: Any) -> list[Any]:
    return list(data["data"]) if isinstance(data, dict) else list(data)


def _v2_parts(data: Any, trace_ids: list[str]) -> list[tuple[str, Any]]:
    """Each of `trace_ids` with the observations of that trace, in the shape of `data`."""
    groups: dict[str, list[Any]] = {trace_id: [] for trace_id in trace_ids}
    for item in _v2_items(data):
        if isinstance(item, dict):
            group = groups.get(str(field_of(item, "traceId")))
            if group is not None:
                group.append(item)
    if isinstance(data, dict):
        return [(trace_id, {**data, "data": items}) for trace_id, items in groups.items()]
    return list(groups.items())


def _trace_from_api(data: dict[str, Any], at: str = "") -> AgentTrace:
    """A trace object (at JSON path `at`) with its `observations` (a top-level list)."""
    observations = [
        observation_from_api(o, f"observations[{i}]") for i, o in enumerate(data["observations"])
    ]

    def read(camel: str, reader: Any = text) -> Any:
        return reader(field_of(data, camel), field_path(data, at, camel))

    latency = read("latency", latency_seconds)
    header = TraceHeader(
        trace_id=read("id", identifier),
        name=read("name"),
        input=json_value(field_of(data, "input")),
        output=json_value(field_of(data, "output")),
        version=read("version"),
        latency_ms=latency * 1000 if latency is not None else None,
        metadata=_picked(data, _TRACE_META),
    )
    return build_trace(header, observations)


def _picked(raw: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    picked = {k: field_of(raw, k) for k in keys}
    return {k: v for k, v in picked.items() if v not in (None, [], {})}


def _trace_from_v2(data: Any) -> AgentTrace:
    items = _v2_items(data)
    where = "data" if isinstance(data, dict) else ""
    observations = [observation_from_api(o, f"{where}[{i}]") for i, o in enumerate(items)]
    if not observations:
        msg = f"{where or '[]'}: the observations list is empty; expected at least one"
        raise TraceFormatError(msg)
    _check_single_trace(observations)
    named = [(i, o) for i, o in enumerate(items) if field_of(o, "traceName")]
    name = (
        text(
            field_of(named[0][1], "traceName"),
            field_path(named[0][1], f"{where}[{named[0][0]}]", "traceName"),
        )
        if named
        else None
    )
    header = TraceHeader(
        trace_id=observations[0].trace_id,
        name=name,
        metadata=_picked(items[0], _V2_META),
    )
    return build_trace(header, observations)


def _trace_from_otel(data: Any) -> AgentTrace:
    header, observations = observations_from_otlp(data)
    if not observations:
        msg = "resourceSpans: no spans found; expected the spans of one Langfuse trace"
        raise TraceFormatError(msg)
    _check_single_trace(observations)
    return build_trace(header, observations)


def _check_single_trace(observations: list[Observation]) -> None:
    ids = list(dict.fromkeys(o.trace_id for o in observations if o.trace_id))
    if len(ids) > 1:
        msg = f"the document holds {len(ids)} traces: {', '.join(ids)}"
        raise MultipleTracesError(msg, hint="pick one with --trace-id ID (trace_id=...)")


_SHAPES: tuple[tuple[Callable[[Any], bool], Callable[[Any], AgentTrace]], ...] = (
    (_is_trace, _trace_from_api),
    (_is_download, _trace_from_download),
    (_is_v2_page, _trace_from_v2),
    (_is_v2_list, _trace_from_v2),
    (_is_langfuse_otel, _trace_from_otel),
)


class LangfuseAdapter(BaseAdapter):
    """Langfuse trace / v2 observations API JSON and Langfuse OTLP spans."""

    name: ClassVar[str] = "langfuse"
    description: ClassVar[str] = (
        "Langfuse GET trace JSON (camel/snake case), v2 observations, Langfuse OTLP"
    )

    @classmethod
    def detect(cls, data: Any) -> bool:
        """Claim the shapes of the module table; never raises."""
        try:
            return any(claims(data) for claims, _ in _SHAPES)
        except Exception:  # noqa: BLE001 - detection must never raise
            return False

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Build the trace from whichever shape `data` is."""
        for claims, parse in _SHAPES:
            if claims(data):
                return parse(data)
        msg = (
            "not a Langfuse document: expected a trace with `observations` (or {trace, "
            "observations}), a v2 observations list (`data`), or OTLP spans with langfuse.* "
            "attributes"
        )
        raise TraceFormatError(msg)

    @classmethod
    def trace_ids(cls, data: Any) -> list[str]:
        """Distinct trace ids of a v2 list or OTLP document, in order of appearance."""
        if _is_v2_page(data) or _is_v2_list(data):
            where = "data" if isinstance(data, dict) else ""
            ids = (
                identifier(field_of(o, "traceId"), field_path(o, f"{where}[{i}]", "traceId"))
                for i, o in enumerate(_v2_items(data))
                if isinstance(o, dict)
            )
            return list(dict.fromkeys(i for i in ids if i))
        return documents.trace_ids(data) if _is_langfuse_otel(data) else []

    @classmethod
    def select_trace(cls, data: Any, trace_id: str) -> Any:
        """The observations (or spans) of `trace_id` only, in the same shape."""
        if _is_v2_page(data) or _is_v2_list(data):
            return _v2_parts(data, [trace_id])[0][1]
        return documents.select_trace(data, trace_id)

    @classmethod
    def split_traces(cls, data: Any) -> list[tuple[str, Any]]:
        """Each trace id with its observations (or spans), in the same shape, in one pass."""
        if _is_v2_page(data) or _is_v2_list(data):
            return _v2_parts(data, cls.trace_ids(data))
        return documents.split_traces(data) if _is_langfuse_otel(data) else []
