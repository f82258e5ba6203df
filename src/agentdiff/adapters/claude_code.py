"""The `claude_code` adapter: Claude Code session transcripts.

Claude Code writes one JSON Lines transcript per session under
`~/.claude/projects/<project>/<session>.jsonl` (`$CLAUDE_CONFIG_DIR/projects/...` when set);
newer CLIs write each sub-agent's transcript to `<session>/subagents/agent-<id>.jsonl`, which the
loader reads too when given the session file (`with_companions`). A gzip session
(`<session>.jsonl.gz`) keeps the same folder, `<session>/subagents`, whose transcripts may be
gzip too (`agent-<id>.jsonl.gz`).

Mapping:

- a user prompt (text, not a tool result, not meta) → routing `user prompt`; the first one is
  also `task_input`;
- an assistant message (one `message.id`, often several records, one per content block) →
  llm_call named by the model, `metadata["model"]`; its usage counted once per `message.id`;
- a `thinking` block → thought under its llm_call;
- a `tool_use` block → tool_call named by the tool (`Bash`, `Read`, `Edit`, `Agent`,
  `mcp__server__tool`, …) under its llm_call, `metadata["turn_id"]` = the message id;
- an API error the CLI wrote in the model's place (`isApiErrorMessage`: its retries used up)
  → a failed llm_call of the lane's latest model, the CLI's text as its message, no tokens
  (`metadata["api_error"]`, `["api_error_status"]`); never the final answer;
- a `tool_result` block → that call's output; `is_error` → status error with the result text
  (one line) as the message;
- sub-agent records (`isSidechain`) → nested under the `Agent` / `Task` call that started them
  (by `agentId`, else under the newest unanswered one);
- a `compact_boundary` system record → thought `compaction` (its `compactMetadata` as input);
  the summary the CLI then writes as a user record, meta notes and slash-command echoes
  (`/compact`) are not prompts.

`parentUuid` only chains each record to the one before it, so it is not used for the DAG.
Records are de-duplicated by `uuid` and read in time order, so resumed sessions (which copy
earlier records) and compaction keep one chronological trace; summaries, attachments, system
and bookkeeping records are skipped. Prompt tokens are input + cache read + cache creation;
the cache counts are kept in `metadata["usage"]`. A `tool_use` never answered is `abandoned`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, ClassVar

from agentdiff.adapters._kit.payloads import as_payload
from agentdiff.adapters._kit.shapes import identifier, mapping, text
from agentdiff.adapters._kit.steps import StepList
from agentdiff.adapters._kit.tokens import count, sum_usage
from agentdiff.adapters.base import BaseAdapter
from agentdiff.errors import TraceFormatError
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep
from agentdiff.naming import trace_stem
from agentdiff.timeparse import duration_ms, iso_utc, parse_iso, timing_metadata

__all__ = ["ClaudeCodeAdapter"]

_KINDS = frozenset({"user", "assistant", "summary", "system", "attachment", "queue-operation"})
_NOT_PROMPTS = ("isMeta", "isCompactSummary", "isVisibleInTranscriptOnly")
"""User records that are not the user's words: CLI notes, the compaction summary."""
_CLI_TEXT = ("<command-name>", "<local-command-", "<command-message>")
"""Slash commands (`/compact`, …) and their output, echoed into the transcript by the CLI."""
_SUB_TOOLS = frozenset({"Agent", "Task"})
_PROMPT_KEYS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
_SYNTHETIC = "<synthetic>"
"""The model the CLI names in a message it wrote itself (an interruption note, an API error)."""
_SNIFF = 64
"""Records looked at to recognise a transcript: every one up to the first conversation record
is a typed record (bookkeeping before it, such as `file-history-snapshot`, `permission-mode`,
`custom-title` or a resumed session's `summary` lines, carries no `sessionId`)."""
_MAX_ERROR = 500
_TRANSCRIPTS = ("agent-*.jsonl", "agent-*.jsonl.gz")
"""Sub-agent transcripts in `<session>/subagents`, plain or gzip (read by magic bytes)."""


def _is_record(item: Any) -> bool:
    return isinstance(item, dict) and "sessionId" in item and item.get("type") in _KINDS


@dataclass
class _Call:
    """One `tool_use` block, waiting for its result."""

    step: TraceStep
    started: datetime | None


@dataclass
class _Builder(StepList):
    """Steps in the order they happened, with the links the transcript needs."""

    messages: dict[str, TraceStep] = field(default_factory=dict)
    calls: dict[str, _Call] = field(default_factory=dict)
    sub_parents: dict[str, str] = field(default_factory=dict)
    call_steps: dict[str, str] = field(default_factory=dict)
    prompt_id: str | None = None
    prompts: list[str] = field(default_factory=list)
    last_time: dict[str, datetime | None] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    """Each lane's latest model (what a request the CLI gave up on was calling)."""
    final_text: str | None = None
    where: str = ""
    """The JSON path of the record being read (`[12]`: the 13th line of the transcript)."""

    def __post_init__(self) -> None:
        super().__init__()


def _lane(record: dict[str, Any]) -> str:
    """Which conversation a record belongs to: the main thread or one sub-agent."""
    return str(record.get("agentId") or "main") if record.get("isSidechain") else "main"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _usage(usage: Any, where: str) -> tuple[TokenUsage | None, dict[str, Any]]:
    if usage is None:
        return None, {}
    usage = mapping(usage, where)
    counts = {key: count(usage.get(key), f"{where}.{key}") for key in _PROMPT_KEYS}
    detail = {k: v for k, v in counts.items() if v is not None}
    prompt = sum(detail.values()) if detail else None
    completion = count(usage.get("output_tokens"), f"{where}.output_tokens")
    total = None if prompt is None or completion is None else prompt + completion
    return TokenUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=total
    ), detail


def _parent_for(builder: _Builder, lane: str) -> str | None:
    if lane == "main":
        return builder.prompt_id
    call = builder.sub_parents.get(lane)
    return builder.call_steps.get(call, None) if call else _open_sub_call(builder)


def _open_sub_call(builder: _Builder) -> str | None:
    """An inline sidechain without an agent id nests under the newest unanswered sub-agent call."""
    for call in reversed(list(builder.calls.values())):
        if call.step.name in _SUB_TOOLS:
            return call.step.step_id
    return None


def _on_user(builder: _Builder, record: dict[str, Any], when: datetime | None) -> None:
    lane = _lane(record)
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    blocks = content if isinstance(content, list) else []
    results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
    if results:
        for block in results:
            _on_result(builder, block, record.get("toolUseResult"), when)
    elif lane == "main" and _is_prompt(record, _text_of(content)):
        text = _text_of(content)
        builder.prompts.append(text)
        step = builder.add(
            record.get("uuid"),
            StepType.ROUTING,
            "user prompt",
            None,
            input_payload={"prompt": text},
            metadata={"uuid": record.get("uuid"), **timing_metadata(when, when)},
        )
        builder.prompt_id = step.step_id
    builder.last_time[lane] = when


def _is_prompt(record: dict[str, Any], text: str) -> bool:
    return not any(record.get(flag) for flag in _NOT_PROMPTS) and not text.lstrip().startswith(
        _CLI_TEXT
    )


def _on_system(builder: _Builder, record: dict[str, Any], when: datetime | None) -> None:
    """A compaction: the CLI summarised the conversation so far (one chronological trace)."""
    if record.get("subtype") != "compact_boundary" or _lane(record) != "main":
        return
    meta = record.get("compactMetadata")
    builder.add(
        record.get("uuid"),
        StepType.THOUGHT,
        "compaction",
        builder.prompt_id,
        input_payload=meta if isinstance(meta, dict) else {},
        output_payload={"content": str(record.get("content") or "")},
        metadata=timing_metadata(when, when),
    )


def _on_result(builder: _Builder, block: dict[str, Any], rich: Any, when: datetime | None) -> None:
    call = builder.calls.pop(str(block.get("tool_use_id")), None)
    if call is None:
        return
    text = _text_of(block.get("content"))
    output: dict[str, Any] = {"content": text}
    if isinstance(rich, dict):
        output["result"] = rich
    failed = bool(block.get("is_error"))
    index = call.step.step_index
    builder.update(
        index,
        output_payload=output,
        status=StepStatus.ERROR if failed else StepStatus.SUCCESS,
        error_message=" ".join(text.split())[:_MAX_ERROR] if failed else None,
        latency_ms=duration_ms(call.started, when),
        metadata={**(call.step.metadata or {}), **timing_metadata(call.started, when)},
    )


def _on_assistant(builder: _Builder, record: dict[str, Any], when: datetime | None) -> None:
    lane = _lane(record)
    message = record.get("message")
    if not isinstance(message, dict):
        message = {}
    if record.get("isApiErrorMessage") is True:
        _on_api_error(builder, record, message, lane, when)
        return
    key = f"{lane}:{message.get('id') or record.get('uuid')}"
    llm = builder.messages.get(key)
    if llm is None:
        llm = _new_turn(builder, message, lane, when)
        builder.messages[key] = llm
    else:
        _extend_turn(builder, llm, when)
        llm = builder.steps[llm.step_index]
    blocks = message.get("content")
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict):
            _on_block(builder, block, llm, message, when)


def _on_api_error(
    builder: _Builder,
    record: dict[str, Any],
    message: dict[str, Any],
    lane: str,
    when: datetime | None,
) -> None:
    """The CLI gave up on a model request (its retries used up) and wrote why in the model's place.

    A failed llm_call of the model the lane last called (so it prices at $0: no tokens were
    billed), with the CLI's text as its message; its text is no answer.
    """
    words = " ".join(_text_of(message.get("content")).split())
    started = builder.last_time.get(lane)
    error: dict[str, Any] = {"api_error": record.get("error")}
    status = record.get("apiErrorStatus")
    if isinstance(status, int) and not isinstance(status, bool):
        error["api_error_status"] = status
    model = builder.models.get(lane)
    metadata = _turn_metadata(message, lane, started, when, model, before_model=error)
    builder.add(
        message.get("id") or record.get("uuid"),
        StepType.LLM_CALL,
        model or "assistant",
        _parent_for(builder, lane),
        output_payload={},
        status=StepStatus.ERROR,
        error_message=(words or f"API error {record.get('error') or ''}".strip())[:_MAX_ERROR],
        tokens=TokenUsage(prompt_tokens=0, completion_tokens=0, total_tokens=0),
        latency_ms=duration_ms(started, when),
        metadata=metadata,
    )


def _new_turn(
    builder: _Builder,
    message: dict[str, Any],
    lane: str,
    when: datetime | None,
) -> TraceStep:
    tokens, detail = _usage(message.get("usage"), f"{builder.where}.message.usage")
    started = builder.last_time.get(lane)
    model = text(message.get("model"), f"{builder.where}.message.model")
    if model and model != _SYNTHETIC:
        builder.models[lane] = model
    metadata = _turn_metadata(
        message, lane, started, when, model, after_model={"usage": detail} if detail else {}
    )
    return builder.add(
        message.get("id"),
        StepType.LLM_CALL,
        str(model or "assistant"),
        _parent_for(builder, lane),
        output_payload={},
        tokens=tokens,
        latency_ms=duration_ms(started, when),
        metadata=metadata,
    )


def _turn_metadata(
    message: dict[str, Any],
    lane: str,
    started: datetime | None,
    when: datetime | None,
    model: str | None,
    *,
    before_model: dict[str, Any] | None = None,
    after_model: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An llm_call's metadata: its message id, timing, `before_model`, model, `after_model`, lane.

    The model and the lane (`agent_id`, a subagent's) only when there is one.
    """
    metadata: dict[str, Any] = {
        "message_id": message.get("id"),
        **timing_metadata(started, when),
        **(before_model or {}),
    }
    if model:
        metadata["model"] = model
    metadata.update(after_model or {})
    if lane != "main":
        metadata["agent_id"] = lane
    return metadata


def _extend_turn(builder: _Builder, llm: TraceStep, when: datetime | None) -> None:
    """A later record of the same message: the turn lasted until it."""
    meta = dict(llm.metadata or {})
    started = parse_iso(meta["started_at"]) if "started_at" in meta else None
    meta.update(timing_metadata(started, when))
    builder.update(llm.step_index, latency_ms=duration_ms(started, when), metadata=meta)


def _on_block(
    builder: _Builder,
    block: dict[str, Any],
    llm: TraceStep,
    message: dict[str, Any],
    when: datetime | None,
) -> None:
    kind = block.get("type")
    if kind == "text":
        text = str(block.get("text", ""))
        output = dict(builder.steps[llm.step_index].output_payload or {})
        output["text"] = (output.get("text", "") + "\n" + text).strip()
        builder.update(llm.step_index, output_payload=output)
        if not (llm.metadata or {}).get("agent_id"):
            builder.final_text = text
    elif kind == "thinking":
        builder.add(
            f"{llm.step_id}/thinking",
            StepType.THOUGHT,
            "thinking",
            llm.step_id,
            input_payload={},
            output_payload={"thinking": block.get("thinking", "")},
            metadata=timing_metadata(when, when),
        )
    elif kind == "tool_use":
        _on_tool_use(builder, block, llm, message, when)


def _on_tool_use(
    builder: _Builder,
    block: dict[str, Any],
    llm: TraceStep,
    message: dict[str, Any],
    when: datetime | None,
) -> None:
    step = builder.add(
        block.get("id"),
        StepType.TOOL_CALL,
        str(block.get("name") or "tool"),
        llm.step_id,
        input_payload=as_payload(block.get("input")),
        status=StepStatus.ABANDONED,
        metadata={
            "tool_use_id": block.get("id"),
            "turn_id": message.get("id") or llm.step_id,
            **timing_metadata(when, None),
        },
    )
    builder.calls[str(block.get("id"))] = _Call(step, when)
    builder.call_steps[str(block.get("id"))] = step.step_id


_HANDLERS = {"user": _on_user, "assistant": _on_assistant, "system": _on_system}


def _records(data: list[Any]) -> list[tuple[datetime | None, int, dict[str, Any]]]:
    """Conversation records, de-duplicated by uuid, in time order (stable for equal times)."""
    seen: set[str] = set()
    out = []
    for position, record in enumerate(data):
        kind = record.get("type") if isinstance(record, dict) else None
        if not isinstance(kind, str) or kind not in _HANDLERS:
            continue
        uuid = str(record.get("uuid") or position)
        if uuid in seen:
            continue
        seen.add(uuid)
        out.append((_time(record, position), position, record))
    out.sort(key=lambda item: (item[0] is None, item[0] or datetime.min, item[1]))  # noqa: DTZ901
    return out


def _check_ids(record: dict[str, Any], where: str) -> None:
    """The ids and names the steps are built from are text; anything else is named here."""
    for key in ("uuid", "agentId"):
        text(record.get(key), f"{where}.{key}")
    message = record.get("message")
    if not isinstance(message, dict):
        return
    for key in ("id", "model"):
        text(message.get(key), f"{where}.message.{key}")
    content = message.get("content")
    for i, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict):
            for key in ("id", "name", "tool_use_id", "type"):
                text(block.get(key), f"{where}.message.content[{i}].{key}")


def _time(record: dict[str, Any], position: int) -> datetime | None:
    return parse_iso(text(record.get("timestamp"), f"[{position}].timestamp"))


def _link_subagents(builder: _Builder, data: list[Any]) -> None:
    """Sub-agent lanes named by `agentId` nest under the call whose result names that agent."""
    for record in data:
        rich = record.get("toolUseResult") if isinstance(record, dict) else None
        if not isinstance(rich, dict) or not rich.get("agentId"):
            continue
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                builder.sub_parents[str(rich["agentId"])] = str(block.get("tool_use_id"))


def _subagent_folder(session: Path) -> Path:
    """`<session>/subagents` of `<session>.jsonl`, `<session>.jsonl.gz` (any trace ending, case).

    The session's name without its trace ending and any `.gz` (`s.jsonl.gz` → `s`); a name with
    another ending loses its last suffix only.
    """
    return session.with_name(trace_stem(session.name) or session.stem) / "subagents"


_SESSION_ENDINGS = (".jsonl", ".jsonl.gz")
"""The endings of a session file `<session>` whose `<session>/subagents` holds transcripts."""


def session_of(transcript: Path) -> Path | None:
    """The session file a sub-agent transcript is read with, when it is one (checked on disk).

    `<s>/subagents/agent-*.jsonl[.gz]` beside a session file `<s>.jsonl` or `<s>.jsonl.gz`:
    that file (its path from `transcript` made absolute). None otherwise.
    """
    path = Path(os.path.normpath(transcript.absolute()))  # `.` and `..` by their names
    folder = path.parent
    if folder.name != "subagents" or not any(fnmatchcase(path.name, p) for p in _TRANSCRIPTS):
        return None
    session = folder.parent
    if not session.name:
        return None
    for ending in _SESSION_ENDINGS:
        found = session.with_name(session.name + ending)
        if found.is_file():
            return found
    return None


def build_trace(data: list[Any]) -> AgentTrace:
    """The session's trace (see the module docstring for the mapping)."""
    records = _records(data)
    if not records:
        raise TraceFormatError("a Claude Code transcript with no user or assistant records")
    builder = _Builder()
    _link_subagents(builder, data)
    for when, position, record in records:
        builder.where = f"[{position}]"
        _check_ids(record, builder.where)
        _HANDLERS[str(record["type"])](builder, record, when)
    return _finish(builder, records)


def _finish(
    builder: _Builder, records: list[tuple[datetime | None, int, dict[str, Any]]]
) -> AgentTrace:
    first, at = records[0][2], f"[{records[0][1]}]"
    times = [when for when, _, _ in records if when is not None]
    total = sum_usage(s.tokens for s in builder.steps)
    return AgentTrace(
        trace_id=str(identifier(first.get("sessionId"), f"{at}.sessionId")),
        agent_name="claude-code",
        agent_version=text(first.get("version"), f"{at}.version"),
        task_input={"prompt": builder.prompts[0]} if builder.prompts else {},
        final_output={"text": builder.final_text} if builder.final_text is not None else None,
        steps=builder.steps,
        total_latency_ms=duration_ms(times[0], times[-1]) if times else None,
        total_tokens=total,
        metadata={
            "source_format": "claude_code",
            "cwd": first.get("cwd"),
            "started_at": iso_utc(times[0]) if times else None,
        },
    )


class ClaudeCodeAdapter(BaseAdapter):
    """Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`)."""

    name: ClassVar[str] = "claude_code"
    aliases: ClassVar[tuple[str, ...]] = ("claude-code", "claude")
    description: ClassVar[str] = "Claude Code session transcripts (JSON Lines, with sub-agents)"

    @classmethod
    def detect(cls, data: Any) -> bool:
        """A list of typed records with a conversation record among the first `_SNIFF`.

        A conversation record carries `sessionId` and a transcript record type.
        """
        if not isinstance(data, list) or not data:
            return False
        for item in data[:_SNIFF]:
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                return False
            if _is_record(item):
                return True
        return False

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Build the trace of one session (with its sub-agents' records appended, if any)."""
        if not isinstance(data, list):
            raise TraceFormatError("a Claude Code transcript must be a JSON Lines list of records")
        return build_trace(data)

    @classmethod
    def companions(cls, path: Path, data: Any) -> list[Path]:
        """The `<session>/subagents/agent-*.jsonl[.gz]` transcripts beside a session file."""
        folder = _subagent_folder(path)
        if not isinstance(data, list) or not folder.is_dir():
            return []
        return sorted(file for pattern in _TRANSCRIPTS for file in folder.glob(pattern))

    @classmethod
    def part_of(cls, path: Path) -> Path | None:
        """The session `<s>.jsonl[.gz]` of a `<s>/subagents/agent-*.jsonl[.gz]` (`session_of`)."""
        return session_of(path)

    @classmethod
    def with_companions(cls, data: Any, records: list[Any]) -> Any:
        """The session's records, then its sub-agents'."""
        return [*data, *records]
