"""LangSmith runs → `TraceStep`s and the trace: ordering, payloads, tokens and errors.

Tokens of an LLM run, first place that holds counts: the run's own `prompt_tokens` /
`completion_tokens` / `total_tokens` (server records), its run-level `usage_metadata`,
`outputs.usage_metadata`, the generation message's `usage_metadata`, `llm_output.token_usage`,
`extra.metadata.usage_metadata`. Cost: `total_cost`, else `prompt_cost` + `completion_cost`, else
the same in `usage_metadata` (`total_cost`, `input_cost` + `output_cost`). Token detail beyond the
spec's fields (cache, reasoning) goes to `metadata["usage"]`; the model (`ls_model_name`,
`invocation_params.model`) to `metadata["model"]`; a tool run gets `metadata["turn_id"]`, the id
of the LLM run whose message requested it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

from agentdiff.adapters._kit.ordering import parents_first
from agentdiff.adapters._kit.payloads import as_optional_payload, as_payload, parse_json_string
from agentdiff.adapters._kit.shapes import text, wrong
from agentdiff.adapters._kit.tokens import KeySets, sum_usage, usage_from
from agentdiff.adapters.langsmith.runs import Run, trace_of
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import (
    MAX_AMOUNT,
    AgentTrace,
    StepStatus,
    StepType,
    TokenUsage,
    TraceStep,
)
from agentdiff.timeparse import duration_ms, timing_metadata

__all__ = ["build_trace"]

_STEP_TYPES = {
    "tool": StepType.TOOL_CALL,
    "retriever": StepType.TOOL_CALL,
    "llm": StepType.LLM_CALL,
    "prompt": StepType.LLM_CALL,
    "embedding": StepType.LLM_CALL,
}
_TRACEBACK = "Traceback (most recent call last):"
_TOKEN_KEYS = KeySets(
    prompt=("input_tokens", "prompt_tokens"),
    completion=("output_tokens", "completion_tokens"),
    total=("total_tokens",),
)
_NEVER = datetime.max.replace(tzinfo=timezone.utc)


# ---------------------------------------------------------------- payloads, tokens, errors


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tool_input(inputs: Any) -> dict[str, Any]:
    """The tool's real arguments: `{"input": "<json or text>"}` is unwrapped."""
    if isinstance(inputs, dict) and set(inputs) == {"input"}:
        parsed = parse_json_string(inputs["input"])
        return parsed if isinstance(parsed, dict) else {"input": parsed}
    return as_payload(inputs)


def _tool_output(outputs: Any) -> dict[str, Any] | None:
    """A ToolMessage `{"output": {"type": "tool", "content": ...}}` → its content."""
    value = (
        outputs.get("output")
        if isinstance(outputs, dict) and set(outputs) == {"output"}
        else outputs
    )
    if isinstance(value, dict) and value.get("type") == "tool" and "content" in value:
        value = value["content"]
    return None if value in (None, {}) else as_optional_payload(value)


def _usage_candidates(run: Run) -> list[tuple[Any, str]]:
    """Where an LLM run may carry its usage, most specific first (each with its JSON path)."""
    raw = run.raw
    outputs, at_outputs = _dict(raw.get("outputs")), run.at("outputs")
    meta = _dict(_dict(raw.get("extra")).get("metadata"))
    at_meta = f"{run.at('extra')}.metadata"
    llm_output = _dict(outputs.get("llm_output"))
    return [
        (raw, run.path),
        (raw.get("usage_metadata"), run.at("usage_metadata")),
        (outputs.get("usage_metadata"), f"{at_outputs}.usage_metadata"),
        *_generation_usages(outputs, at_outputs),
        (llm_output.get("token_usage"), f"{at_outputs}.llm_output.token_usage"),
        (llm_output.get("usage"), f"{at_outputs}.llm_output.usage"),
        (meta.get("usage_metadata"), f"{at_meta}.usage_metadata"),
        (meta.get("usage"), f"{at_meta}.usage"),
    ]


def _generation_usages(outputs: dict[str, Any], where: str) -> list[tuple[Any, str]]:
    found = []
    generations = outputs.get("generations")
    for g, group in enumerate(generations if isinstance(generations, list) else []):
        nested = isinstance(group, list)
        for n, gen in enumerate(group if nested else [group]):
            message = gen.get("message") if isinstance(gen, dict) else None
            if isinstance(message, dict):
                at = f"{where}.generations[{g}]{f'[{n}]' if nested else ''}.message"
                kwargs = _dict(message.get("kwargs"))
                if message.get("usage_metadata") is not None:
                    found.append((message["usage_metadata"], f"{at}.usage_metadata"))
                else:
                    found.append((kwargs.get("usage_metadata"), f"{at}.kwargs.usage_metadata"))
    return found[:1]


def _num(value: Any, where: str) -> Decimal | None:
    """A cost: a number or numeric text (kept exact); anything else is an error naming it."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise wrong(where, "a cost in USD (a number)", value)
    try:
        found = Decimal(str(value))
    except InvalidOperation:
        raise wrong(where, "a cost in USD (a number)", value) from None
    if not found.is_finite() or abs(found) > MAX_AMOUNT:
        raise wrong(where, "a cost in USD of at most 10^15", value)
    return found


def _cost(run: Run) -> float | None:
    usage = _dict(run.raw.get("usage_metadata"))
    for place, at, keys in (
        (run.raw, run.at, ("total_cost", "prompt_cost", "completion_cost")),
        (
            usage,
            lambda key: f"{run.at('usage_metadata')}.{key}",
            ("total_cost", "input_cost", "output_cost"),
        ),
    ):
        total, prompt, completion = (_num(place.get(k), at(k)) for k in keys)
        if total is None and prompt is not None and completion is not None:
            total = prompt + completion
        if total is not None and total >= 0:
            return float(total)
    return None


_DETAIL_KEYS = ("input_token_details", "output_token_details")
_SERVER_DETAIL_KEYS = ("prompt_token_details", "completion_token_details")


def _usage_detail(run: Run) -> dict[str, Any]:
    """Cache, reasoning and audio counts, wherever the run's usage keeps them."""
    for candidate, _ in _usage_candidates(run):
        place = _dict(candidate)
        keys = _SERVER_DETAIL_KEYS if place is run.raw else _DETAIL_KEYS
        detail = {k: place[k] for k in keys if isinstance(place.get(k), dict) and place[k]}
        if detail:
            return detail
    return {}


def _model(run: dict[str, Any]) -> str | None:
    extra = _dict(run.get("extra"))
    for value in (
        _dict(extra.get("metadata")).get("ls_model_name"),
        _dict(extra.get("invocation_params")).get("model"),
        _dict(extra.get("invocation_params")).get("model_name"),
    ):
        if isinstance(value, str) and value:
            return value
    return None


def requested_calls(runs: list[Run]) -> dict[str, str]:
    """Tool-call id → the id of the LLM run whose message requested it."""
    found: dict[str, str] = {}
    for run in runs:
        if _STEP_TYPES.get(str(run.raw.get("run_type"))) is not StepType.LLM_CALL:
            continue
        generations = _dict(run.raw.get("outputs")).get("generations")
        for group in generations if isinstance(generations, list) else []:
            for gen in group if isinstance(group, list) else [group]:
                message = _dict(_dict(gen).get("message"))
                body = _dict(message.get("kwargs")) or message
                calls = body.get("tool_calls")
                for call in calls if isinstance(calls, list) else []:
                    if isinstance(call, dict) and call.get("id"):
                        found[str(call["id"])] = run.run_id
    return found


def _tokens(run: Run) -> TokenUsage | None:
    """The first place that holds counts wins; nothing is added across places."""
    cost = _cost(run)
    for place, where in _usage_candidates(run):
        usage = usage_from(place, _TOKEN_KEYS, where)
        if usage is not None:
            return usage.model_copy(update={"estimated_cost_usd": cost})
    return TokenUsage(estimated_cost_usd=cost) if cost is not None else None


def _error(value: Any) -> tuple[str, str] | None:
    """(one-line message, full text) of a run's `error`.

    LangChain writes `repr(exception)` and then the traceback; the message is the traceback's
    exception, every line of it (a pydantic `ValidationError` spans several), else the repr.
    """
    if not value:
        return None
    text = str(value)
    head, _, trace = text.partition(_TRACEBACK)
    message = _raised(trace.splitlines()) or " ".join(head.split()) or text
    return message, text


def _raised(lines: list[str]) -> str:
    """The exception a traceback ends with, on one line: from its `Type: message` line on.

    That line is the first unindented one after the last frame (`  File ...` and its source
    lines); a traceback of another layout gives its last line.
    """
    frames = [i for i, line in enumerate(lines) if line.startswith("  File ")]
    after = lines[frames[-1] + 1 :] if frames else []
    start = next((i for i, line in enumerate(after) if line[:1].strip()), None)
    if start is not None:
        return " ".join(" ".join(after[start:]).split())
    rest = [line.strip() for line in lines if line.strip()]
    return rest[-1] if rest else ""


# ---------------------------------------------------------------- steps and the trace


def _order(runs: list[Run]) -> list[Run]:
    """Parents first; siblings by `dotted_order` when every run has one, else by start time."""
    if all(isinstance(r.raw.get("dotted_order"), str) for r in runs):
        return parents_first(
            runs, id_of=_run_id, parent_of=_parent_id, key=lambda r: r.raw["dotted_order"]
        )
    return parents_first(
        runs, id_of=_run_id, parent_of=_parent_id, key=lambda r: r.started or _NEVER
    )


def _run_id(run: Run) -> str:
    return run.run_id


def _parent_id(run: Run) -> str | None:
    return run.parent_id


def _step(run: Run, index: int, turns: dict[str, str]) -> TraceStep:
    raw, run_type = run.raw, str(run.raw["run_type"])
    step_type = _STEP_TYPES.get(run_type, StepType.ROUTING)
    tool = step_type is StepType.TOOL_CALL
    error = _error(raw.get("error"))
    failed = error is not None or raw.get("status") == "error"
    meta: dict[str, Any] = {"run_type": run_type, **timing_metadata(run.started, run.ended)}
    extra = _dict(raw.get("extra"))
    meta.update({k: extra[k] for k in ("tool_call_id",) if extra.get(k)})
    if tool and str(extra.get("tool_call_id")) in turns:
        meta["turn_id"] = turns[str(extra["tool_call_id"])]
    if step_type is StepType.LLM_CALL:
        meta["model"] = _model(raw)
        detail = _usage_detail(run)
        if detail:
            meta["usage"] = detail
    run_meta = _dict(extra.get("metadata"))
    meta.update(
        {
            k: run_meta[k]
            for k in ("langgraph_node", "langgraph_step", "ls_model_name")
            if run_meta.get(k) is not None
        }
    )
    if error is not None:
        meta["error_detail"] = error[1]
    if raw.get("tags"):
        meta["tags"] = raw["tags"]
    return TraceStep(
        step_id=run.run_id,
        parent_id=run.parent_id,
        step_index=index,
        step_type=step_type,
        name=text(raw.get("name"), run.at("name")) or run_type,
        input_payload=_tool_input(raw.get("inputs")) if tool else as_payload(raw.get("inputs")),
        output_payload=_tool_output(raw.get("outputs"))
        if tool
        else as_optional_payload(raw.get("outputs")),
        status=StepStatus.ERROR if failed else StepStatus.SUCCESS,
        error_message=error[0] if error else ("error" if failed else None),
        latency_ms=duration_ms(run.started, run.ended),
        tokens=_tokens(run) if step_type is StepType.LLM_CALL else None,
        metadata=meta,
    )


def _final_text(outputs: Any) -> dict[str, Any] | None:
    """The root's answer: the last AI message's text when outputs hold messages."""
    messages = outputs.get("messages") if isinstance(outputs, dict) else None
    for message in reversed(messages if isinstance(messages, list) else []):
        body = message.get("kwargs", message) if isinstance(message, dict) else {}
        if (
            body.get("type") in ("ai", "AIMessage")
            and isinstance(body.get("content"), str)
            and body["content"]
        ):
            return {"output": body["content"]}
    return as_optional_payload(outputs) if outputs else None


def build_trace(runs: list[Run]) -> AgentTrace:
    """The `AgentTrace` of one trace's runs."""
    if not runs:
        raise TraceFormatError("runs: empty; expected at least the root run")
    ordered = _order(runs)
    ids = {r.run_id for r in runs}
    root = next((r for r in ordered if r.parent_id is None or r.parent_id not in ids), ordered[0])
    turns = requested_calls(ordered)
    steps = [_step(run, i, turns) for i, run in enumerate(ordered)]
    by_id = {r.run_id: r.raw for r in runs}
    raw = root.raw
    meta = {k: raw[k] for k in ("session_name", "session_id") if raw.get(k)}
    return AgentTrace(
        trace_id=trace_of(raw, by_id) or root.run_id,
        agent_name=text(raw.get("name"), root.at("name")) or "langsmith",
        task_input=as_payload(raw.get("inputs")),
        final_output=_final_text(raw.get("outputs")),
        steps=steps,
        total_latency_ms=duration_ms(root.started, root.ended),
        total_tokens=sum_usage(s.tokens for s in steps),
        metadata=meta,
    )
