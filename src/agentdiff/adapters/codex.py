"""The `codex` adapter: Codex CLI rollout files.

The Codex CLI writes one JSON Lines rollout per session under
`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (`$CODEX_HOME/sessions/...` when set). Each
line is `{"timestamp", "type", "payload"}`.

Mapping:

- `session_meta` → the trace id, CLI version and working directory;
- `turn_context` → the model of the turns that follow (`metadata["model"]`);
- a user `message` (not the CLI's own `<environment_context>` / instructions) → routing
  `user prompt`; the first one is `task_input`;
- the output items of one model response (up to its `token_count`) → one llm_call named by
  the model; an assistant `message` is its output text (the last one is `final_output`);
- `reasoning` → thought under its llm_call (the summary text);
- `function_call` / `custom_tool_call` (`exec_command`, `shell`, `apply_patch`, MCP tools) →
  tool_call under its llm_call, `metadata["turn_id"]` = the llm step;
- `function_call_output` / `custom_tool_call_output` → that call's output; a non-zero exit code
  (structured `metadata.exit_code`, or the output's own `Process exited with code N` line) →
  error with the command's output as the message; so is a call the CLI's `item_completed`
  event marks `failed` or `declined` (an `apply_patch` that did not apply has no exit code);
- `event_msg` `error` → thought `error` with status error;
- `event_msg` `token_count` → the usage of the response it closes: the difference of the
  cumulative `total_token_usage` from the previous one (never a sum of totals).

Prompt tokens are OpenAI's `input_tokens` (cached ones included); `cached_input_tokens` and
`reasoning_output_tokens` are kept in `metadata["usage"]`. A call never answered is `abandoned`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from agentdiff.adapters._kit.payloads import as_payload, parse_json_string
from agentdiff.adapters._kit.shapes import identifier, mapping, text
from agentdiff.adapters._kit.steps import StepList
from agentdiff.adapters._kit.tokens import count, sum_usage
from agentdiff.adapters.base import BaseAdapter
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep
from agentdiff.timeparse import duration_ms, iso_utc, parse_iso, timing_metadata

__all__ = ["CodexAdapter"]

_KINDS = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_CLI_TEXT = ("<environment_context>", "<user_instructions>", "<permissions", "# AGENTS.md")
_EXIT = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d{1,10})(?!\d)")
"""The exit code an output's header gives (longer digit runs are no exit code: unknown)."""
_MAX_EXIT = 2**31
_USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
_SNIFF = 5
_MAX_ERROR = 500
_FAILED_ITEMS = ("failed", "declined")
"""`item_completed` statuses of a call that did not succeed."""


@dataclass
class _Builder(StepList):
    """Steps in rollout order, the open response and what the rollout said so far."""

    calls: dict[str, tuple[int, datetime | None]] = field(default_factory=dict)
    answered: dict[str, tuple[int, str, int | None]] = field(default_factory=dict)
    """Each answered call's id → its step's position, its output text and exit code."""
    failed_items: set[str] = field(default_factory=set)
    """Ids of the items the CLI marked failed (`item_completed`) before their output came."""
    turn: int | None = None
    turn_start: datetime | None = None
    last_time: datetime | None = None
    model: str | None = None
    prompt_id: str | None = None
    prompts: list[str] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    final_text: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    where: str = ""
    """The JSON path of the record being read (`[12]`: the 13th record of the rollout)."""
    meta_where: str = "session_meta"

    def __post_init__(self) -> None:
        super().__init__()


def _llm(builder: _Builder, when: datetime | None, item_id: str | None = None) -> TraceStep:
    """The llm_call of the response being read, opened by its first output item."""
    if builder.turn is None:
        meta: dict[str, Any] = timing_metadata(builder.last_time, when)
        if builder.model:
            meta["model"] = builder.model
        step = builder.add(
            f"response/{item_id}" if item_id else None,
            StepType.LLM_CALL,
            builder.model or "model",
            builder.prompt_id,
            output_payload={},
            latency_ms=duration_ms(builder.last_time, when),
            metadata=meta,
        )
        builder.turn, builder.turn_start = step.step_index, builder.last_time
    step = builder.steps[builder.turn]
    meta = {**(step.metadata or {}), **timing_metadata(builder.turn_start, when)}
    builder.update(builder.turn, metadata=meta, latency_ms=duration_ms(builder.turn_start, when))
    return builder.steps[builder.turn]


def _text(content: Any) -> str:
    if not isinstance(content, list):
        return str(content or "")
    return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))


def _on_message(builder: _Builder, item: dict[str, Any], when: datetime | None) -> None:
    text = _text(item.get("content"))
    if item.get("role") == "assistant":
        llm = _llm(builder, when, item.get("id"))
        builder.update(llm.step_index, output_payload={"text": text})
        builder.final_text = text
    elif item.get("role") == "user" and not text.lstrip().startswith(_CLI_TEXT):
        builder.prompts.append(text)
        step = builder.add(
            item.get("id"),
            StepType.ROUTING,
            "user prompt",
            None,
            input_payload={"prompt": text},
            metadata=timing_metadata(when, when),
        )
        builder.prompt_id = step.step_id


def _on_reasoning(builder: _Builder, item: dict[str, Any], when: datetime | None) -> None:
    llm = _llm(builder, when, item.get("id"))
    summary = _text(item.get("summary"))
    builder.add(
        item.get("id"),
        StepType.THOUGHT,
        "reasoning",
        llm.step_id,
        output_payload={"summary": summary},
        metadata=timing_metadata(when, when),
    )


def _on_call(builder: _Builder, item: dict[str, Any], when: datetime | None) -> None:
    llm = _llm(builder, when, item.get("id"))
    if item.get("type") == "custom_tool_call":
        arguments: dict[str, Any] = {"input": item.get("input")}
    else:
        arguments = as_payload(item.get("arguments", item.get("action")))
    call_id = str(item.get("call_id") or item.get("id"))
    step = builder.add(
        call_id,
        StepType.TOOL_CALL,
        str(item.get("name") or item.get("type")),
        llm.step_id,
        input_payload=arguments,
        status=StepStatus.ABANDONED,
        metadata={"call_id": call_id, "turn_id": llm.step_id, **timing_metadata(when, None)},
    )
    builder.calls[call_id] = (step.step_index, when)


def _on_output(builder: _Builder, item: dict[str, Any], when: datetime | None) -> None:
    found = builder.calls.pop(str(item.get("call_id")), None)
    if found is None:
        return
    index, started = found
    call_id = str(item.get("call_id"))
    output = parse_json_string(item.get("output"))
    text = output.get("output") if isinstance(output, dict) else output
    code = _exit_code(output, str(text))
    builder.answered[call_id] = (index, str(text), code)
    failed = (code is not None and code != 0) or call_id in builder.failed_items
    step = builder.steps[index]
    builder.update(
        index,
        output_payload=as_payload(output),
        status=StepStatus.ERROR if failed else StepStatus.SUCCESS,
        error_message=_error_text(str(text), code) if failed else None,
        latency_ms=duration_ms(started, when),
        metadata={**(step.metadata or {}), **timing_metadata(started, when), "exit_code": code},
    )


def _exit_code(output: Any, text: str) -> int | None:
    """The exit code from structured metadata (older CLIs) or the output's own header line."""
    meta = output.get("metadata") if isinstance(output, dict) else None
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    if isinstance(code, int) and not isinstance(code, bool) and abs(code) <= _MAX_EXIT:
        return code
    match = _EXIT.search(text)
    return int(match.group(1)) if match else None


def _error_text(text: str, code: int | None) -> str:
    body = " ".join(text.split("Output:", 1)[-1].split())
    return (body if code is None or code == 0 else f"exit code {code}: {body}")[:_MAX_ERROR]


def _on_item_completed(builder: _Builder, payload: dict[str, Any]) -> None:
    """The CLI's own verdict on an item: a call it marks `failed` or `declined` failed.

    Some failures carry no exit code (`apply_patch verification failed: ...`); this record may
    come before or after the call's output.
    """
    item = payload.get("item")
    if not isinstance(item, dict) or item.get("status") not in _FAILED_ITEMS:
        return
    call_id = str(item.get("id"))
    answered = builder.answered.get(call_id)
    if answered is None:
        builder.failed_items.add(call_id)
        return
    index, words, code = answered
    if builder.steps[index].status is not StepStatus.ERROR:
        message = _error_text(words, code) or str(item["status"])
        builder.update(index, status=StepStatus.ERROR, error_message=message)


def _on_token_count(builder: _Builder, payload: dict[str, Any]) -> None:
    at = f"{builder.where}.payload.info"
    info = mapping(payload.get("info"), at)
    totals = mapping(info.get("total_token_usage"), f"{at}.total_token_usage")
    last = mapping(info.get("last_token_usage"), f"{at}.last_token_usage")
    if totals:
        where = f"{at}.total_token_usage"
        now = {k: count(totals.get(k), f"{where}.{k}") or 0 for k in _USAGE_KEYS}
        usage = {k: max(now[k] - builder.totals.get(k, 0), 0) for k in _USAGE_KEYS}
        builder.totals = now
    elif last:
        where = f"{at}.last_token_usage"
        usage = {k: count(last.get(k), f"{where}.{k}") or 0 for k in _USAGE_KEYS}
    else:
        return
    if builder.turn is None or not any(usage.values()):
        return
    step = builder.steps[builder.turn]
    builder.update(
        builder.turn,
        tokens=TokenUsage(
            prompt_tokens=usage["input_tokens"],
            completion_tokens=usage["output_tokens"],
            total_tokens=usage["input_tokens"] + usage["output_tokens"],
        ),
        metadata={**(step.metadata or {}), "usage": usage},
    )
    builder.turn = None


def _on_event(builder: _Builder, payload: dict[str, Any], when: datetime | None) -> None:
    kind = payload.get("type")
    if kind == "token_count":
        _on_token_count(builder, payload)
    elif kind == "item_completed":
        _on_item_completed(builder, payload)
    elif kind in ("error", "stream_error"):
        message = str(payload.get("message") or kind)
        builder.add(
            None,
            StepType.THOUGHT,
            "error",
            builder.prompt_id,
            status=StepStatus.ERROR,
            error_message=message[:_MAX_ERROR],
            metadata=timing_metadata(when, when),
        )


_ITEM_TEXTS = ("id", "call_id", "type", "role", "name")
"""Item fields steps are built from: text (ids included), else an error naming the field."""


def _on_item(builder: _Builder, item: dict[str, Any], when: datetime | None) -> None:
    for key in _ITEM_TEXTS:
        text(item.get(key), f"{builder.where}.payload.{key}")
    kind = item.get("type")
    if not isinstance(kind, str):
        return
    if kind == "message":
        _on_message(builder, item, when)
    elif kind == "reasoning":
        _on_reasoning(builder, item, when)
    elif kind in _CALLS:
        _on_call(builder, item, when)
    elif kind in _OUTPUTS:
        _on_output(builder, item, when)


def _when(record: dict[str, Any], where: str) -> datetime | None:
    return parse_iso(text(record.get("timestamp"), f"{where}.timestamp"))


def _on_record(builder: _Builder, record: dict[str, Any]) -> None:
    when = _when(record, builder.where)
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return
    kind = record.get("type")
    if kind == "session_meta" and not builder.meta:
        builder.meta, builder.meta_where = payload, f"{builder.where}.payload"
    elif kind == "turn_context" and payload.get("model"):
        builder.model = text(payload["model"], f"{builder.where}.payload.model")
    elif kind == "response_item":
        _on_item(builder, payload, when)
    elif kind == "event_msg":
        _on_event(builder, payload, when)
    if when is not None:
        builder.last_time = when


def build_trace(data: list[Any]) -> AgentTrace:
    """The rollout's trace (see the module docstring for the mapping)."""
    builder = _Builder()
    times = []
    for i, record in enumerate(data):
        if isinstance(record, dict):
            builder.where = f"[{i}]"
            _on_record(builder, record)
            times.append(_when(record, builder.where))
    if not builder.meta and not builder.steps:
        raise TraceFormatError("a Codex rollout with no session_meta and no items")
    known = [t for t in times if t is not None]
    return AgentTrace(
        trace_id=_session_id(builder.meta, builder.meta_where) or "codex",
        agent_name="codex",
        agent_version=builder.meta.get("cli_version"),
        task_input={"prompt": builder.prompts[0]} if builder.prompts else {},
        final_output={"text": builder.final_text} if builder.final_text is not None else None,
        steps=builder.steps,
        total_latency_ms=duration_ms(known[0], known[-1]) if known else None,
        total_tokens=sum_usage(s.tokens for s in builder.steps),
        metadata={
            "source_format": "codex",
            "cwd": builder.meta.get("cwd"),
            "started_at": iso_utc(known[0]) if known else None,
            "model": builder.model,
        },
    )


def _session_id(meta: dict[str, Any], where: str) -> str | None:
    for key in ("id", "session_id"):
        found = identifier(meta.get(key), f"{where}.{key}")
        if found:
            return found
    return None


class CodexAdapter(BaseAdapter):
    """Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)."""

    name: ClassVar[str] = "codex"
    aliases: ClassVar[tuple[str, ...]] = ("codex_cli", "codex-cli")
    description: ClassVar[str] = "Codex CLI rollout files (JSON Lines session logs)"

    @classmethod
    def detect(cls, data: Any) -> bool:
        """A list of `{timestamp, type, payload}` records opening with rollout record types."""
        if not isinstance(data, list) or not data:
            return False
        head = data[:_SNIFF]
        return all(
            isinstance(item, dict) and "timestamp" in item and isinstance(item.get("payload"), dict)
            for item in head
        ) and any(item.get("type") in _KINDS for item in head)

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Build the trace of one rollout."""
        if not isinstance(data, list):
            raise TraceFormatError("a Codex rollout must be a JSON Lines list of records")
        return build_trace(data)
