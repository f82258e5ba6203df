"""One step being recorded: what the agent's code sets on it, and the `TraceStep` it becomes.

A `Step` is handed out by `Run.step(...)`; the code inside sets `output`, `tokens`, `model`,
`status` or `metadata`, or calls `record_response(response)` with an LLM SDK response. When the
block ends the step takes its end time and latency, and an exception that escaped it becomes
`status="error"` with `"ExceptionType: message"` as its error message.
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone
from typing import Any

from pydantic_core import to_jsonable_python

from agentdiff.adapters._kit.payloads import as_payload
from agentdiff.limits import MAX_DEPTH, exceeds_depth
from agentdiff.models.trace import StepStatus, StepType, TokenUsage, TraceStep
from agentdiff.record.usage import model_of, usage_of

__all__ = [
    "CUT",
    "Step",
    "describe_error",
    "fit",
    "jsonable",
    "optional_payload",
    "payload",
    "step_type_of",
    "utc_now",
]


def utc_now() -> str:
    """The current time as an ISO 8601 UTC string (the `started_at`/`ended_at` convention)."""
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def step_type_of(value: StepType | str) -> StepType:
    """`value` as a `StepType`; a `ValueError` naming the allowed values when it is none."""
    try:
        return StepType(value)
    except ValueError:
        allowed = ", ".join(kind.value for kind in StepType)
        msg = f"step_type {value!r} is not a step type; choose one of: {allowed}"
        raise ValueError(msg) from None


_I64_MIN = -(2**63)
_U64_MAX = 2**64 - 1
CUT = f"[cut: nested deeper than {MAX_DEPTH} levels]"
"""What stands for a container nested past what a trace file may hold (`agentdiff.limits`)."""


def jsonable(value: Any) -> Any:
    """`value` as JSON-ready data: pydantic models, dataclasses, SDK objects; else its repr.

    Fit for a trace file (see `fit`) even when a payload wraps it in `{"value": ...}`.
    """
    return fit(_data(value), MAX_DEPTH - 1)


def payload(value: Any) -> dict[str, Any]:
    """`value` as a step's or run's payload (`as_payload`), fit for a trace file."""
    return _payload(_data(value))


def optional_payload(value: Any) -> dict[str, Any] | None:
    """Like `payload`, but a value that is `None` as JSON (unknown) stays `None`."""
    data = _data(value)
    return None if data is None else _payload(data)


def _payload(data: Any) -> dict[str, Any]:
    fitted: dict[str, Any] = fit(as_payload(data), MAX_DEPTH)
    return fitted


def fit(data: Any, limit: int) -> Any:
    r"""JSON data as a trace file can hold it and every reader reads it back.

    Containers nested past `limit` levels become `CUT`, integers past 64 bits floats, and text
    that is no valid Unicode (a lone surrogate) shows it escaped (`\ud800`). Data that needs
    none of it (orjson writes it within the limit) is returned as it is, checked at C speed.
    """
    return data if not exceeds_depth([data], limit) else _fitted(data, 1, limit)


def _data(value: Any) -> Any:
    try:
        return to_jsonable_python(value, fallback=repr, bytes_mode="base64", inf_nan_mode="null")
    except ValueError:  # nested past what pydantic's serializer recurses into
        return _fitted(value, 1, MAX_DEPTH)


def _fitted(node: Any, depth: int, limit: int) -> Any:
    """`fit` for `node` at `depth`, walked in Python (also any object pydantic converts)."""
    if isinstance(node, dict | list | tuple) and depth > limit:
        return CUT
    if isinstance(node, dict):
        return {_key(k): _fitted(v, depth + 1, limit) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_fitted(v, depth + 1, limit) for v in node]
    if node is None or isinstance(node, str | int | float):
        return _scalar(node)
    try:
        data = to_jsonable_python(node, fallback=repr, bytes_mode="base64", inf_nan_mode="null")
    except ValueError:
        return CUT
    return _fitted(data, depth, limit)


def _scalar(value: str | float | None) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if _I64_MIN <= value <= _U64_MAX else _big(value)
    return value if math.isfinite(value) else None


def _key(key: Any) -> str:
    text: str = _scalar(key if isinstance(key, str) else str(next(iter(_data({key: None})))))
    return text


def _big(number: int) -> float | str:
    try:
        return float(number)
    except OverflowError:
        return f"[an integer of {number.bit_length()} bits]"


def describe_error(exc: BaseException) -> str:
    """`"ExceptionType: message"` (the type alone when the message is empty)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Step:
    """A step in progress. Set `output`, `tokens`, `model`, `status`, `metadata` on it."""

    def __init__(
        self,
        step_id: str,
        index: int,
        step_type: StepType | str,
        name: str,
        input_payload: Any,
        parent_id: str | None,
    ) -> None:
        self.step_id = step_id
        self.index = index
        self.step_type = step_type_of(step_type)
        self.name = name
        self.input = input_payload
        self.parent_id = parent_id
        self.output: Any = None
        self.status: StepStatus | str | None = None
        """Leave `None` for "success, or error when an exception escapes"; set to override."""
        self.error_message: str | None = None
        self.tokens: TokenUsage | None = None
        self.model: str | None = None
        self.metadata: dict[str, Any] = {}
        self.started_at = utc_now()
        self.ended_at: str | None = None
        self.latency_ms: float | None = None
        self.error: BaseException | None = None
        self._clock = time.perf_counter()

    def set_usage(
        self,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        total_tokens: int | None = None,
        cost_usd: float | None = None,
    ) -> None:
        """Token counts (and cost) of this step; unknown values stay `None`, never zero."""
        if total_tokens is None and prompt_tokens is not None and completion_tokens is not None:
            total_tokens = prompt_tokens + completion_tokens
        self.tokens = TokenUsage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=total_tokens,
            estimated_cost_usd=cost_usd,
        )

    def record_response(self, response: Any, *, output: bool = False) -> None:
        """Take token usage and model from an OpenAI or Anthropic response (and it as output)."""
        self.tokens = usage_of(response) or self.tokens
        self.model = model_of(response) or self.model
        if output:
            self.output = response

    def finish(self, error: BaseException | None) -> None:
        """Stamp the end: time, latency, and the error that escaped the block (if any)."""
        self.ended_at = utc_now()
        self.latency_ms = round((time.perf_counter() - self._clock) * 1000, 3)
        if error is not None:
            self.error = error
            self.error_message = self.error_message or describe_error(error)
            if self.status is None:
                self.status = StepStatus.ERROR

    def to_trace_step(self) -> TraceStep:
        """The canonical step; a step never finished is `abandoned`."""
        status = self.status or (StepStatus.SUCCESS if self.ended_at else StepStatus.ABANDONED)
        metadata: dict[str, Any] = {"started_at": self.started_at}
        if self.ended_at:
            metadata["ended_at"] = self.ended_at
        if self.model:
            metadata["model"] = self.model
        metadata.update(jsonable(self.metadata))
        return TraceStep(
            step_id=self.step_id,
            parent_id=self.parent_id,
            step_index=self.index,
            step_type=self.step_type,
            name=self.name,
            input_payload=payload(self.input),
            output_payload=optional_payload(self.output),
            status=StepStatus(status),
            error_message=self.error_message,
            latency_ms=self.latency_ms,
            tokens=self.tokens,
            metadata=metadata,
        )
