"""The four JSON dialects of a LangChain-family role message, each read by one small extractor.

`extract_message(item, path)` recognises the dialect with a table (not a chain of string tests)
and returns the keyword fields of a `conversation.Message` (tool calls as `(id, name, args)`
tuples), or `None` for items that are not conversation turns (e.g. a LangGraph
`RemoveMessage`); each dialect's extractor returns those fields or `None`.
`is_message_like(item)` is the cheap sniff adapters use in `detect`.

Dialects:

- `message_to_dict`: `{"type": "ai", "data": {...model_dump()...}}`
- LangChain constructor dump: `{"lc": 1, "type": "constructor", "id": [..., "AIMessage"],
  "kwargs": {...}}`
- `model_dump()`: `{"type": "ai", "content": ..., "tool_calls": [...], ...}`
- OpenAI-style: `{"role": "assistant", "tool_calls": [{"id", "function": {"name",
  "arguments"}}]}`, `{"role": "tool", "tool_call_id", "content"}` (as written by
  `convert_to_openai_messages`; it drops ids, usage and the tool status).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agentdiff.adapters._kit.payloads import as_payload
from agentdiff.adapters._kit.shapes import identifier, mapping, text
from agentdiff.adapters._kit.tokens import KeySets, usage_from
from agentdiff.errors import TraceFormatError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from agentdiff.models.trace import TokenUsage

__all__ = ["extract_message", "is_message_like"]

Fields = dict[str, Any]

_ROLES: dict[str, str] = {
    "ai": "ai",
    "assistant": "ai",
    "AIMessageChunk": "ai",
    "human": "human",
    "user": "human",
    "HumanMessageChunk": "human",
    "system": "system",
    "developer": "system",
    "SystemMessageChunk": "system",
    "tool": "tool",
    "function": "tool",
    "ToolMessageChunk": "tool",
    "FunctionMessageChunk": "tool",
}
"""Message `type` / OpenAI `role` values → canonical role."""

_CLASS_TYPES: dict[str, str] = {
    "AIMessage": "ai",
    "AIMessageChunk": "ai",
    "HumanMessage": "human",
    "HumanMessageChunk": "human",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
    "RemoveMessage": "remove",
}
"""LangChain message class names (last element of a constructor dump's `id`) → `type`."""

_SKIPPED_TYPES = frozenset({"remove"})
"""Types that are bookkeeping, not conversation turns."""

_LANGCHAIN_ONLY_TYPES = frozenset({"chat", *_SKIPPED_TYPES})
"""LangChain `type` values that are not roles: `chat` carries its role in a `role` field."""

_TOOLNODE_ERROR = re.compile(
    r"\AError: (?P<error>.*?)\s*Please fix your mistakes\.?\s*\Z"
    r"|\AError executing tool: (?P<crewai>.*?)\s*\Z",
    re.DOTALL,
)
"""The content a framework writes back when a tool raised: LangGraph's ToolNode
(`handle_tool_errors=True`) or CrewAI ("Error executing tool: ...", the only error mark of
releases before `TaskOutput.tool_failures`)."""

_ANTHROPIC_KEYS = KeySets(("input_tokens",), ("output_tokens",), ("total_tokens",))
_OPENAI_KEYS = KeySets(("prompt_tokens",), ("completion_tokens",), ("total_tokens",))
_USAGE_SOURCES: tuple[tuple[tuple[str, ...], KeySets], ...] = (
    (("usage_metadata",), _ANTHROPIC_KEYS),
    (("response_metadata", "token_usage"), _OPENAI_KEYS),
    (("response_metadata", "usage"), _ANTHROPIC_KEYS),
    (("usage",), _OPENAI_KEYS),
)
"""Where message dicts keep token counts, first match wins: (path, the names of the counts)."""

_KEPT_RESPONSE_METADATA = ("model_name", "finish_reason", "model_provider")


def _is_constructor(item: dict[str, Any]) -> bool:
    return (
        item.get("lc") == 1
        and item.get("type") == "constructor"
        and isinstance(item.get("id"), list)
    )


def _is_known_type_dump(item: dict[str, Any]) -> bool:
    kind = item.get("type")
    known = isinstance(kind, str) and (kind in _ROLES or kind in _LANGCHAIN_ONLY_TYPES)
    return known and "content" in item


_DIALECT_RULES: tuple[tuple[str, Callable[[dict[str, Any]], bool]], ...] = (
    ("lc_constructor", _is_constructor),
    ("message_to_dict", lambda d: isinstance(d.get("data"), dict) and "type" in d),
    # before `role`: a LangChain ChatMessage dump has both `type` and `role`
    ("model_dump", _is_known_type_dump),
    ("openai", lambda d: isinstance(d.get("role"), str)),
    ("model_dump", lambda d: isinstance(d.get("type"), str) and "content" in d),
)
"""First matching rule names the dialect (a key of `_EXTRACTORS`)."""


def _dialect(item: Any) -> str | None:
    """Which dialect `item` is written in, or `None`."""
    if not isinstance(item, dict):
        return None
    return next((name for name, rule in _DIALECT_RULES if rule(item)), None)


def is_message_like(item: Any) -> bool:
    """Cheap sniff: a role message in one of the four dialects (never raises)."""
    dialect = _dialect(item)
    if dialect == "lc_constructor":
        return str(item["id"][-1]) in _CLASS_TYPES
    if dialect == "openai":
        return item["role"] in _ROLES and ("content" in item or "tool_calls" in item)
    if dialect in ("message_to_dict", "model_dump"):
        return item["type"] in _ROLES or item["type"] in _LANGCHAIN_ONLY_TYPES
    return False


def extract_message(item: Any, path: str) -> Fields | None:
    """The `Message` fields of one serialized message; `TraceFormatError` when it is none."""
    dialect = _dialect(item)
    if dialect is None:
        msg = (
            f"{path}: not a role message; expected a LangChain message dict "
            "({'type', 'data'}, {'lc': 1, ...}, {'type': 'ai', 'content'}) or {'role': ...}"
        )
        raise TraceFormatError(msg)
    return _EXTRACTORS[dialect](item, path)


def _from_message_to_dict(item: dict[str, Any], path: str) -> Fields | None:
    return _from_langchain(str(item["type"]), item["data"], f"{path}.data", "message_to_dict")


def _from_constructor(item: dict[str, Any], path: str) -> Fields | None:
    kwargs = item.get("kwargs")
    if not isinstance(kwargs, dict):
        msg = f"{path}.kwargs: expected an object with the message fields"
        raise TraceFormatError(msg)
    class_name = str(item["id"][-1]) if item["id"] else ""
    kind = kwargs.get("type") or _CLASS_TYPES.get(class_name)
    if not isinstance(kind, str):
        msg = f"{path}.id: {class_name!r} is not a LangChain message class"
        raise TraceFormatError(msg)
    return _from_langchain(kind, kwargs, f"{path}.kwargs", "lc_constructor")


def _from_model_dump(item: dict[str, Any], path: str) -> Fields | None:
    return _from_langchain(str(item["type"]), item, path, "model_dump")


def _from_langchain(kind: str, data: dict[str, Any], path: str, dialect: str) -> Fields | None:
    if kind in _SKIPPED_TYPES:
        return None
    role = _role(data.get("role") if kind == "chat" else kind, path)
    calls = tuple(_langchain_tool_calls(data.get("tool_calls"), f"{path}.tool_calls"))
    fields = _fields(role, data, calls, dialect, path)
    fields["invalid_calls"] = tuple(_invalid_tool_calls(data.get("invalid_tool_calls")))
    return fields


def _from_openai(item: dict[str, Any], path: str) -> Fields | None:
    role = _role(item["role"], path)
    calls = tuple(_openai_tool_calls(item.get("tool_calls"), f"{path}.tool_calls"))
    return _fields(role, item, calls, "openai", path)


_EXTRACTORS: dict[str, Callable[[dict[str, Any], str], Fields | None]] = {
    "message_to_dict": _from_message_to_dict,
    "lc_constructor": _from_constructor,
    "model_dump": _from_model_dump,
    "openai": _from_openai,
}


def _role(kind: Any, path: str) -> str:
    role = _ROLES.get(kind) if isinstance(kind, str) else None
    if role is None:
        msg = f"{path}: unknown message type/role {kind!r}; expected one of {', '.join(_ROLES)}"
        raise TraceFormatError(msg)
    return role


def _fields(
    role: str, data: dict[str, Any], calls: tuple[Any, ...], dialect: str, path: str
) -> Fields:
    content = _text(data.get("content"))
    status, error = _tool_status(role, data.get("status"), content)
    return {
        "role": role,
        "content": content,
        "tool_calls": calls,
        "tool_call_id": identifier(data.get("tool_call_id"), f"{path}.tool_call_id"),
        "status": status,
        "error": error,
        "usage": _usage(data, path) if role == "ai" else None,
        "id": identifier(data.get("id"), f"{path}.id"),
        "name": text(data.get("name"), f"{path}.name") or None,
        "metadata": _metadata(data, dialect),
    }


def _langchain_tool_calls(raw: Any, path: str) -> Iterator[tuple[str | None, str, dict[str, Any]]]:
    for i, call in enumerate(_list(raw, path)):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            msg = f"{path}[{i}]: expected a tool call {{'name', 'args', 'id'}}"
            raise TraceFormatError(msg)
        yield (
            identifier(call.get("id"), f"{path}[{i}].id"),
            call["name"],
            as_payload(call.get("args")),
        )


def _invalid_tool_calls(raw: Any) -> Iterator[tuple[str | None, str, str, str]]:
    """`AIMessage.invalid_tool_calls` (unparseable arguments): (id, name, raw args, error)."""
    for call in raw if isinstance(raw, list) else []:
        if isinstance(call, dict):
            name = str(call.get("name") or "invalid_tool_call")
            args = call.get("args")
            error = call.get("error") or "the model's tool call could not be parsed"
            yield _optional_str(call.get("id")), name, "" if args is None else str(args), str(error)


def _openai_tool_calls(raw: Any, path: str) -> Iterator[tuple[str | None, str, dict[str, Any]]]:
    for i, call in enumerate(_list(raw, path)):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            msg = f"{path}[{i}]: expected {{'id', 'function': {{'name', 'arguments'}}}}"
            raise TraceFormatError(msg)
        call_id = identifier(call.get("id"), f"{path}[{i}].id")
        yield call_id, function["name"], as_payload(function.get("arguments"))


def _list(raw: Any, path: str) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        msg = f"{path}: expected a list, got {type(raw).__name__}"
        raise TraceFormatError(msg)
    return raw


def _tool_status(role: str, status: Any, content: str) -> tuple[str | None, str | None]:
    """`(status, error text)` of a tool result; other roles have neither."""
    if role != "tool":
        return None, None
    match = _TOOLNODE_ERROR.match(content)
    if status == "error" or match:
        return "error", (match.group("error") or match.group("crewai") if match else content)
    return "success", None  # LangChain knows only "success" | "error"


def _text(content: Any) -> str:
    """Message content as text: strings pass, content-part lists keep their text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_part_text(part) for part in content)
    return str(content)


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and isinstance(part.get("text"), str):
        return str(part["text"])
    return ""


def _usage(data: dict[str, Any], path: str) -> TokenUsage | None:
    for keys, names in _USAGE_SOURCES:
        where = ".".join((path, *keys))
        usage = usage_from(_dig(data, keys, path), names, where)
        if usage is not None:
            return usage
    return None


def _dig(data: dict[str, Any], keys: tuple[str, ...], path: str) -> Any:
    """`data[k1][k2]...`; a missing level is `None`, a level that is no object an error."""
    value: Any = data
    for depth, key in enumerate(keys):
        value = mapping(value, ".".join((path, *keys[:depth]))).get(key)
    return value


def _metadata(data: dict[str, Any], dialect: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"dialect": dialect}
    response = data.get("response_metadata")
    if isinstance(response, dict):
        meta.update({k: response[k] for k in _KEPT_RESPONSE_METADATA if k in response})
    return meta


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)
