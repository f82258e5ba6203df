"""Canonical trace JSON decoded straight into the models: the generic adapter's fast path.

`decode_canonical(raw)` checks the bytes against typed structs that carry the model's constraints
(msgspec, at C speed, no intermediate dicts) and builds `AgentTrace`, `TraceStep` and
`TokenUsage` without validating them a second time. It returns `None` for anything it is not
sure of (a syntax error, a wrong type, an unknown key, a payload too deep, an integer past 64
bits, a duplicate step id or a parent cycle), and the loader then takes the ordinary route
(orjson, detection, pydantic validation), which gives the usual error message naming the file,
or the same trace.

Built this way a step is also smaller: its field dict shares its keys with every other step's
(a split dict, a third of the size), steps with the same keys given share one fields-set (the
models copy it before an assignment changes it), repeated names and parent ids are one string.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType
from msgspec.structs import asdict, astuple

from agentdiff.limits import MAX_DEPTH, exceeds_depth
from agentdiff.models.compact import Store
from agentdiff.models.trace import (
    MAX_AMOUNT,
    MAX_COUNT,
    MAX_INDEX,
    AgentTrace,
    StepStatus,
    StepType,
    TokenUsage,
    TraceStep,
    check_graph,
)

__all__ = ["decode_canonical"]

_Count = Annotated[int, Meta(ge=0, le=MAX_COUNT)]
_Amount = Annotated[float, Meta(ge=0, le=MAX_AMOUNT)]
_Payload = dict[str, Any]


class _Usage(Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    prompt_tokens: _Count | UnsetType | None = UNSET
    completion_tokens: _Count | UnsetType | None = UNSET
    total_tokens: _Count | UnsetType | None = UNSET
    estimated_cost_usd: _Amount | UnsetType | None = UNSET


class _Step(Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    step_id: str
    parent_id: str | UnsetType | None = UNSET
    step_index: Annotated[int, Meta(ge=0, le=MAX_INDEX)]
    step_type: StepType
    name: str
    input_payload: _Payload | UnsetType = UNSET
    output_payload: _Payload | UnsetType | None = UNSET
    status: StepStatus | UnsetType = UNSET
    error_message: str | UnsetType | None = UNSET
    latency_ms: _Amount | UnsetType | None = UNSET
    tokens: _Usage | UnsetType | None = UNSET
    metadata: _Payload | UnsetType | None = UNSET


class _Trace(Struct, kw_only=True, forbid_unknown_fields=True, gc=False):
    schema_version: str | UnsetType = UNSET
    trace_id: str
    agent_name: str
    agent_version: str | UnsetType | None = UNSET
    task_input: _Payload | UnsetType = UNSET
    final_output: _Payload | UnsetType | None = UNSET
    steps: list[_Step]
    total_latency_ms: _Amount | UnsetType | None = UNSET
    total_tokens: _Usage | UnsetType | None = UNSET
    metadata: _Payload | UnsetType | None = UNSET


class _Unsure(Exception):  # noqa: N818 - a signal, not an error: the ordinary route decides
    """The decoded trace needs the ordinary route (a duplicate step id)."""


class _Decoder:
    """One decoding: the builders, the names and ids it shares, and whether parents come first."""

    def __init__(self) -> None:
        self.usage = Store(TokenUsage, UNSET)
        self.step = Store(TraceStep, UNSET)
        self.trace = Store(AgentTrace, UNSET)
        self.names: dict[str, str] = {}
        self.ids: dict[str, str] = {}
        self.ordered = True
        """Every parent so far came before its children (then no cycle or dangling parent)."""

    def steps(self, decoded: list[_Step]) -> list[TraceStep]:
        """The steps, each struct let go once its step is built."""
        names, ids, store, usage = self.names, self.ids, self.step, self.usage
        steps: list[TraceStep] = []
        for i, struct in enumerate(decoded):
            decoded[i] = None  # type: ignore[call-overload]
            values = astuple(struct)
            if UNSET in values:
                filled = asdict(struct)
                fields_set = store.fill(filled)
                values = tuple(filled.values())
            else:
                fields_set = store.by_missing[()]
            step_id, parent, index, kind, name, given, out, status, error, ms, tokens, meta = values
            if step_id in ids:
                raise _Unsure
            ids[step_id] = step_id
            if parent is not None:
                known = ids.get(parent, parent)
                self.ordered = self.ordered and known is not parent
                parent = known
            if tokens is not None:
                tokens = usage.build(asdict(tokens))
            name = names.setdefault(name, name)
            held = store.template.copy()
            held["step_id"], held["parent_id"], held["step_index"] = step_id, parent, index
            held["step_type"], held["name"], held["input_payload"] = kind, name, given
            held["output_payload"], held["status"], held["error_message"] = out, status, error
            held["latency_ms"], held["tokens"], held["metadata"] = ms, tokens, meta
            steps.append(store.adopt(held, fields_set))
        return steps

    def whole(self, decoded: _Trace) -> AgentTrace:
        """The trace (its graph checked as validation would, unless parents come first)."""
        steps = self.steps(decoded.steps)
        decoded.steps = []
        values = asdict(decoded)
        values["steps"] = steps
        if isinstance(decoded.total_tokens, _Usage):
            values["total_tokens"] = self.usage.build(asdict(decoded.total_tokens))
        trace: AgentTrace = self.trace.build(values)
        return trace if self.ordered else check_graph(trace)


_DECODER: msgspec.json.Decoder[_Trace] | None = None


def _decoder() -> msgspec.json.Decoder[_Trace]:
    global _DECODER  # noqa: PLW0603 - built on first use: compiling the types costs start-up time
    if _DECODER is None:
        _DECODER = msgspec.json.Decoder(_Trace)
    return _DECODER


def decode_canonical(raw: bytes | memoryview) -> AgentTrace | None:
    """The trace in canonical JSON `raw`, or `None` when the ordinary route must decide."""
    try:
        decoded = _decoder().decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    try:
        trace = _Decoder().whole(decoded)
    except (_Unsure, ValueError):
        return None
    if _too_deep_or_odd(trace):
        return None
    return trace


def _too_deep_or_odd(trace: AgentTrace) -> bool:
    """True when a payload nests past `MAX_DEPTH` or holds what orjson would not write."""
    values: list[Any] = [trace.task_input, trace.final_output, trace.metadata]
    for step in trace.steps:
        values += (step.input_payload, step.output_payload, step.metadata)
    return exceeds_depth(values, MAX_DEPTH)
