"""Totals per side and the deltas between them. Unknown stays `None`; never a sum of nested spans.

- **latency**: the trace's `total_latency_ms`, else wall clock (max `ended_at` − min
  `started_at`), else the sum of the root steps' latencies, else unknown.
- **tokens**: the trace's `total_tokens` fields when given, else the sum over LLM steps.
- **cost**: the trace's cost, else the sum of LLM-step costs, else estimated from tokens and the
  model name (`cost_estimated=True`), else unknown.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import partial
from operator import attrgetter, is_not

from agentdiff.diff.pricing import ModelPrice, estimate_cost
from agentdiff.models.report import Delta, Deltas, StepRef, Summary
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep

__all__ = ["MODEL_KEYS", "deltas", "summarize"]

MODEL_KEYS = (
    "model",
    "model_name",
    "llm.model_name",
    "gen_ai.response.model",
    "gen_ai.request.model",
    "ls_model_name",
)
"""Step metadata keys that may name the model of an LLM step (first found wins); an LLM step
without any falls back to its own name (adapters often name LLM steps after the model)."""


def summarize(
    trace: AgentTrace,
    prices: Mapping[str, ModelPrice],
    wall_clock: tuple[float, float] | None,
    refs: Sequence[StepRef] | None = None,
    retries: int = 0,
) -> Summary:
    """The totals of one trace; `wall_clock` = (earliest start, latest end) in epoch seconds.

    `errors` counts failed attempts (status `error` or `retry`); `retries` is given by the
    caller: the failed attempts that were attempted again (`recovery.later_attempts`).

    `refs`, the `StepRef`s of the trace's steps when the caller has them, are counted instead
    of the steps (the same types and statuses; small records are faster to walk).
    """
    counted: Sequence[StepRef | TraceStep] = trace.steps if refs is None else refs
    # attrgetter on `_value_` counts plain strings at C speed (enum hashing is Python-level)
    counts = Counter(map(_TYPE_OF, counted))
    statuses = Counter(map(_STATUS_OF, counted))
    llm_steps = _llm_steps(trace)
    usages: list[TokenUsage] = list(map(_TOKENS, llm_steps))
    prompt, completion, total = _tokens(trace.total_tokens, usages)
    cost, estimated = _cost(trace, llm_steps, usages, prices)
    return Summary(
        trace_id=trace.trace_id,
        agent_name=trace.agent_name,
        source_format=(trace.metadata or {}).get("source_format"),
        steps=len(trace.steps),
        tool_calls=counts[StepType.TOOL_CALL.value],
        llm_calls=counts[StepType.LLM_CALL.value],
        errors=statuses[StepStatus.ERROR.value] + statuses[StepStatus.RETRY.value],
        retries=retries,
        abandoned=statuses[StepStatus.ABANDONED.value],
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cost_usd=cost,
        cost_estimated=estimated,
        latency_ms=_latency(trace, wall_clock),
    )


_TYPE_OF = attrgetter("step_type._value_")
_STATUS_OF = attrgetter("status._value_")
_TOKENS = attrgetter("tokens")
_PROMPT = attrgetter("prompt_tokens")
_COMPLETION = attrgetter("completion_tokens")
_TOTAL = attrgetter("total_tokens")
_COST = attrgetter("estimated_cost_usd")
_KNOWN = partial(is_not, None)
"""`_KNOWN(v)`: v is not None, at C speed (in `filter`)."""


def _llm_steps(trace: AgentTrace) -> list[TraceStep]:
    return [
        s for s in trace.steps if s.tokens is not None and s.step_type is not StepType.TOOL_CALL
    ]


def _sum(values: list[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _tokens(
    given: TokenUsage | None, usages: list[TokenUsage]
) -> tuple[int | None, int | None, int | None]:
    """Each total from `given` when it has it, else summed over the LLM steps' `usages`."""
    prompt: int | None
    completion: int | None
    if given and given.prompt_tokens is not None:
        prompt = given.prompt_tokens
    else:
        prompt = _sum(list(map(_PROMPT, usages)))
    if given and given.completion_tokens is not None:
        completion = given.completion_tokens
    else:
        completion = _sum(list(map(_COMPLETION, usages)))
    if given and given.total_tokens is not None:
        return prompt, completion, given.total_tokens
    totals = list(map(_TOTAL, usages))
    if None in totals:
        totals = [
            u.total_tokens
            if u.total_tokens is not None
            else _add(u.prompt_tokens, u.completion_tokens)
            for u in usages
        ]
    return prompt, completion, _sum(totals)


def _add(a: int | None, b: int | None) -> int | None:
    return a + b if a is not None and b is not None else None


def _cost(
    trace: AgentTrace,
    steps: list[TraceStep],
    usages: list[TokenUsage],
    prices: Mapping[str, ModelPrice],
) -> tuple[float | None, bool]:
    if trace.total_tokens and trace.total_tokens.estimated_cost_usd is not None:
        return trace.total_tokens.estimated_cost_usd, False
    given = list(filter(_KNOWN, map(_COST, usages)))
    if given:
        return math.fsum(given), False
    return _estimate(steps, usages, prices)


def _estimate(
    steps: list[TraceStep], usages: list[TokenUsage], prices: Mapping[str, ModelPrice]
) -> tuple[float | None, bool]:
    """Tokens summed per model, each model priced once; any unpriceable step → unknown."""
    prompts, completions = list(map(_PROMPT, usages)), list(map(_COMPLETION, usages))
    if None in prompts or None in completions:
        return None, False
    per_model: dict[str | None, list[int]] = {}
    for model, prompt, completion in zip(map(_model, steps), prompts, completions, strict=True):
        sums = per_model.setdefault(model, [0, 0])
        sums[0] += prompt
        sums[1] += completion
    if not per_model:
        return None, False
    costs = [estimate_cost(model, p, c, prices) for model, (p, c) in per_model.items()]
    if any(cost is None for cost in costs):
        return None, False
    return math.fsum(c for c in costs if c is not None), True


_MODEL_KEY_SET = frozenset(MODEL_KEYS)


def _model(step: TraceStep) -> str | None:
    meta = step.metadata
    if meta and not _MODEL_KEY_SET.isdisjoint(meta):
        for key in MODEL_KEYS:
            value = meta.get(key)
            if isinstance(value, str) and value:
                return value
    return step.name if step.step_type is StepType.LLM_CALL else None


def _latency(trace: AgentTrace, wall_clock: tuple[float, float] | None) -> float | None:
    if trace.total_latency_ms is not None:
        return trace.total_latency_ms
    if wall_clock is not None and wall_clock[1] >= wall_clock[0]:
        return round((wall_clock[1] - wall_clock[0]) * 1000.0, 3)
    ids = {s.step_id for s in trace.steps}
    roots = [
        s.latency_ms for s in trace.steps if s.parent_id not in ids and s.latency_ms is not None
    ]
    return math.fsum(roots) if roots else None


def _delta(baseline: float | None, candidate: float | None) -> Delta:
    if baseline is None or candidate is None:
        return Delta(baseline=baseline, candidate=candidate, delta=None, pct=None)
    change = candidate - baseline
    pct = (change / baseline * 100.0) if baseline else None
    return Delta(baseline=baseline, candidate=candidate, delta=change, pct=pct)


def deltas(b: Summary, c: Summary) -> Deltas:
    """Candidate minus baseline for every measure."""
    return Deltas(
        steps=_delta(b.steps, c.steps),
        tool_calls=_delta(b.tool_calls, c.tool_calls),
        llm_calls=_delta(b.llm_calls, c.llm_calls),
        errors=_delta(b.errors, c.errors),
        prompt_tokens=_delta(b.prompt_tokens, c.prompt_tokens),
        completion_tokens=_delta(b.completion_tokens, c.completion_tokens),
        total_tokens=_delta(b.total_tokens, c.total_tokens),
        cost_usd=_delta(b.cost_usd, c.cost_usd),
        latency_ms=_delta(b.latency_ms, c.latency_ms),
    )
