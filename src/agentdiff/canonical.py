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

import gc
from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType
from msgspec.structs import asdict, astuple

from agentdiff.limits import MAX_DEPTH, exceeds_depth
from agentdiff.models.compact import shared_store
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
    with_source_format,
)

__all__ = ["decode_canonical"]

_Count = Annotated[int, Meta(ge=0, le=MAX_COUNT)]
_Amount = Annotated[float, Meta(ge=0, le=MAX_AMOUNT)]
_Int64 = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]
_Payload = dict[str, bool | _Int64 | float | str | list[Any] | dict[str, Any] | None]
"""A payload's own values are checked as they are decoded: an int past 64 bits steps aside
(orjson, the ordinary route, would read it as a float). What nests deeper is checked after
(`_Decoder.too_deep`), and only in the payloads that nest at all."""


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
    """The decoded trace needs the ordinary route (a duplicate step id, a payload too deep)."""


class _Decoder:
    """One decoding: the builders, the names and ids it shares, and whether parents come first.

    `steps` is the hot loop of loading (it runs once per step of every file a suite or a
    comparison reads): a bytecode or a C call per field is measurable there. So each optional
    field is tested for `UNSET` with `is` (a rich comparison, as `UNSET in values` does, costs
    ~4x more), the left-out fields make a bit mask that picks the shared fields-set, and the
    instances are made in C-level loops once every step's values are known.
    """

    def __init__(self) -> None:
        self.usage = shared_store(TokenUsage, UNSET)
        self.step = shared_store(TraceStep, UNSET)
        self.trace = shared_store(AgentTrace, UNSET)
        self.names: dict[str, str] = {}
        self.ids: dict[str, str] = {}
        self.ordered = True
        """Every parent so far came before its children (then no cycle or dangling parent)."""
        self.nested: list[tuple[Any, ...]] = []
        """The payloads (input, output, metadata) of the steps where one nests: see `too_deep`."""

    def steps(self, decoded: list[_Step]) -> list[TraceStep]:  # noqa: C901, PLR0912 - see class
        """The steps, each struct let go once its values are taken."""
        names, ids, nested = self.names, self.ids, self.nested
        fields_sets = self.step.fields_sets(_STEP_OPTIONAL)
        unset, tracked = UNSET, gc.is_tracked
        ordered = True
        steps: list[TraceStep] = self.step.blanks(len(decoded))
        shapes: list[set[str]] = []
        tokens_of: list[tuple[dict[str, Any], _Usage]] = []
        for i, struct in enumerate(decoded):
            decoded[i] = None  # type: ignore[call-overload]
            step_id, parent, index, kind, name, given, out, status, error, ms, tokens, meta = (
                astuple(struct)
            )
            missing = 0
            if parent is unset:
                parent, missing = None, 1
            if given is unset:
                given, missing = {}, missing | 2
            if out is unset:
                out, missing = None, missing | 4
            if status is unset:
                status, missing = StepStatus.SUCCESS, missing | 8
            if error is unset:
                error, missing = None, missing | 16
            if ms is unset:
                ms, missing = None, missing | 32
            if tokens is unset:
                tokens, missing = None, missing | 64
            if meta is unset:
                meta, missing = None, missing | 128
            if parent is not None:  # looked up before the step's own id: `a` under `a` is a cycle
                known = ids.get(parent, parent)
                ordered = ordered and known is not parent
                parent = known
            ids[step_id] = step_id  # a repeated id is caught once after the loop
            if tracked(given) or tracked(out) or tracked(meta):  # see `too_deep`
                nested.append((given, out, meta))
            held = steps[i].__dict__
            held["step_id"], held["parent_id"], held["step_index"] = step_id, parent, index
            held["step_type"], held["name"] = kind, names.setdefault(name, name)
            held["input_payload"], held["output_payload"], held["status"] = given, out, status
            held["error_message"], held["latency_ms"], held["tokens"] = error, ms, tokens
            held["metadata"] = meta
            if tokens is not None:
                tokens_of.append((held, tokens))
            shapes.append(fields_sets[missing] or self.step.fields_set_of(_STEP_OPTIONAL, missing))
        if len(ids) != len(steps):
            raise _Unsure  # a duplicate step id: validation names it
        self.ordered = ordered
        if tokens_of:
            self._add_usages(tokens_of)
        self.step.settle(steps, shapes)
        return steps

    def _add_usages(self, tokens_of: list[tuple[dict[str, Any], _Usage]]) -> None:
        """Each step's token usage, into its field dict `held` (instances made in one go)."""
        fields_sets, unset = self.usage.fields_sets(_USAGE), UNSET
        usages: list[TokenUsage] = self.usage.blanks(len(tokens_of))
        shapes: list[set[str]] = []
        for i, (_, struct) in enumerate(tokens_of):
            prompt, completion, total, cost = astuple(struct)
            missing = 0
            if prompt is unset:
                prompt, missing = None, 1
            if completion is unset:
                completion, missing = None, missing | 2
            if total is unset:
                total, missing = None, missing | 4
            if cost is unset:
                cost, missing = None, missing | 8
            held = usages[i].__dict__
            held["prompt_tokens"], held["completion_tokens"] = prompt, completion
            held["total_tokens"], held["estimated_cost_usd"] = total, cost
            shapes.append(fields_sets[missing] or self.usage.fields_set_of(_USAGE, missing))
        self.usage.settle(usages, shapes)
        for (step, _), usage in zip(tokens_of, usages, strict=True):
            step["tokens"] = usage

    def whole(self, decoded: _Trace, source: str | None = None) -> AgentTrace:
        """The trace (its graph checked as validation would, unless parents come first).

        With `source`, `metadata["source_format"]` says it, as the loader's own marking would:
        set before the trace is built when no graph warning can follow it (assigning it after
        goes through pydantic's `__setattr__`, which cost as much as a step).
        """
        steps = self.steps(decoded.steps)
        decoded.steps = []
        values = asdict(decoded)
        values["steps"] = steps
        if isinstance(decoded.total_tokens, _Usage):
            values["total_tokens"] = self.usage.build(asdict(decoded.total_tokens))
        if self.too_deep((values["task_input"], values["final_output"], values["metadata"])):
            raise _Unsure
        if source is not None and self.ordered:
            values["metadata"] = with_source_format(values["metadata"], source)
        trace: AgentTrace = self.trace.build(values)
        if self.ordered:
            return trace
        trace = check_graph(trace)  # may add a warning to the metadata: the source goes after
        if source is not None:
            trace.metadata = with_source_format(trace.metadata, source)
        return trace

    def too_deep(self, own: tuple[Any, ...]) -> bool:
        """True when a payload nests past `MAX_DEPTH` or holds what orjson would not write.

        The payloads are the steps' and the trace's `own` (task input, final output, metadata,
        `UNSET` if left out). Only payloads holding a list or a dict can: CPython's cyclic GC
        tracks just those dicts (a dict holding only strings, numbers, booleans and nulls is
        left untracked, and its numbers were checked as they were decoded: `_Payload`), so
        orjson's check (`exceeds_depth`, which writes all it is given) runs on those rows alone,
        one a step (a level more than its payloads nest).
        """
        rows = self.nested
        if any(map(gc.is_tracked, own)):
            rows.append(own)
        return bool(rows) and exceeds_depth(rows, MAX_DEPTH + 1)


_STEP_OPTIONAL = (
    "parent_id",
    "input_payload",
    "output_payload",
    "status",
    "error_message",
    "latency_ms",
    "tokens",
    "metadata",
)
"""The step fields a document may leave out, in the order of the bits of `missing`."""
_USAGE = ("prompt_tokens", "completion_tokens", "total_tokens", "estimated_cost_usd")


_DECODER: msgspec.json.Decoder[_Trace] | None = None


def _decoder() -> msgspec.json.Decoder[_Trace]:
    global _DECODER  # noqa: PLW0603 - built on first use: compiling the types costs start-up time
    if _DECODER is None:
        _DECODER = msgspec.json.Decoder(_Trace)
    return _DECODER


def decode_canonical(raw: bytes | memoryview, source: str | None = None) -> AgentTrace | None:
    """The trace in canonical JSON `raw`, or `None` when the ordinary route must decide.

    With `source` (an adapter's name), `metadata["source_format"]` says it (see `whole`).
    """
    try:
        decoded = _decoder().decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    try:
        return _Decoder().whole(decoded, source)
    except (_Unsure, ValueError):
        return None
