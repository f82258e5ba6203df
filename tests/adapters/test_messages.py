"""The shared conversation engine on hand-built messages in all four dialects.

The message shapes copy what langchain-core 1.8 writes (see tests/fixtures/real/langgraph/).
One conversation: a human question, an AI message asking for two tools in parallel (one of them
fails inside ToolNode), a retry of the failed call, and a final answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentdiff.adapters.messages import (
    Message,
    conversation_steps,
    is_message_like,
    normalize_messages,
    sum_usage,
)
from agentdiff.errors import AgentDiffError, TraceFormatError
from agentdiff.models.trace import StepStatus, StepType

TOOLNODE_ERROR = "Error: ValueError('weather service timeout')\n Please fix your mistakes."

# (type, fields) in model_dump form; the dialect builders below re-serialize them.
CONVERSATION: list[tuple[str, dict[str, Any]]] = [
    ("system", {"content": "You are a weather bot.", "id": "sys-1"}),
    ("human", {"content": "Weather in Paris?", "id": "h-1"}),
    (
        "ai",
        {
            "content": "",
            "id": "ai-1",
            "name": "weather_agent",
            "tool_calls": [
                {"name": "geocode", "args": {"city": "Paris"}, "id": "call_a", "type": "tool_call"},
                {
                    "name": "get_weather",
                    "args": {"lat": 48.85, "lon": 2.35},
                    "id": "call_b",
                    "type": "tool_call",
                },
            ],
            "usage_metadata": {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110},
            "response_metadata": {
                "token_usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
                "model_name": "scripted-chat-1",
            },
        },
    ),
    (
        "tool",
        {
            "content": '{"lat": 48.85, "lon": 2.35}',
            "id": "t-1",
            "name": "geocode",
            "tool_call_id": "call_a",
            "status": "success",
        },
    ),
    (
        "tool",
        {
            "content": TOOLNODE_ERROR,
            "id": "t-2",
            "name": "get_weather",
            "tool_call_id": "call_b",
            "status": "error",
        },
    ),
    (
        "ai",
        {
            "content": [{"type": "text", "text": "Retrying."}],
            "id": "ai-2",
            "tool_calls": [
                {
                    "name": "get_weather",
                    "args": {"lat": 48.85, "lon": 2.35},
                    "id": "call_c",
                    "type": "tool_call",
                }
            ],
            "response_metadata": {
                "token_usage": {"prompt_tokens": 150, "completion_tokens": 12, "total_tokens": 162}
            },
        },
    ),
    (
        "tool",
        {"content": '{"temp_c": 18}', "id": "t-3", "name": "get_weather", "tool_call_id": "call_c"},
    ),
    (
        "ai",
        {
            "content": "It is 18 °C in Paris.",
            "id": "ai-3",
            "usage_metadata": {"input_tokens": 200, "output_tokens": 20, "total_tokens": 220},
        },
    ),
]

CLASS_NAMES = {
    "system": "SystemMessage",
    "human": "HumanMessage",
    "ai": "AIMessage",
    "tool": "ToolMessage",
}
OPENAI_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


def as_model_dump(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "additional_kwargs": {}, "response_metadata": {}, **fields}


def as_message_to_dict(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "data": as_model_dump(kind, fields)}


def as_constructor(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", CLASS_NAMES[kind]],
        "kwargs": {"type": kind, **fields},
    }


def as_openai(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """What convert_to_openai_messages writes: no ids, no usage, no tool status."""
    import json

    out: dict[str, Any] = {"role": OPENAI_ROLES[kind], "content": fields["content"]}
    if "tool_calls" in fields:
        out["tool_calls"] = [
            {
                "type": "function",
                "id": c["id"],
                "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
            }
            for c in fields["tool_calls"]
        ]
    for key in ("name", "tool_call_id"):
        if key in fields:
            out[key] = fields[key]
    return out


DIALECTS = {
    "model_dump": as_model_dump,
    "message_to_dict": as_message_to_dict,
    "lc_constructor": as_constructor,
    "openai": as_openai,
}


def serialized(dialect: str) -> list[dict[str, Any]]:
    return [DIALECTS[dialect](kind, dict(fields)) for kind, fields in CONVERSATION]


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_every_dialect_reads_the_same_conversation(dialect: str) -> None:
    messages = normalize_messages(serialized(dialect))
    assert [m.role for m in messages] == [
        "system",
        "human",
        "ai",
        "tool",
        "tool",
        "ai",
        "tool",
        "ai",
    ]
    assert all(m.metadata["dialect"] == dialect for m in messages)
    assert messages[2].tool_calls[1].name == "get_weather"
    assert messages[2].tool_calls[1].args == {"lat": 48.85, "lon": 2.35}
    assert messages[5].content == "Retrying."
    assert messages[4].status == "error"
    assert messages[4].error == "ValueError('weather service timeout')"


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_steps_parents_and_statuses(dialect: str) -> None:
    steps = conversation_steps(normalize_messages(serialized(dialect)))
    assert [(s.step_type, s.name) for s in steps] == [
        (StepType.ROUTING, "geocode,get_weather"),
        (StepType.TOOL_CALL, "geocode"),
        (StepType.TOOL_CALL, "get_weather"),
        (StepType.ROUTING, "get_weather"),
        (StepType.TOOL_CALL, "get_weather"),
        (StepType.RESPONSE, "final_answer"),
    ]
    assert [s.step_index for s in steps] == list(range(6))
    routing1, geo, weather_err, routing2, weather_ok, answer = steps
    # parallel calls from one AI message share one parent
    assert geo.parent_id == weather_err.parent_id == routing1.step_id
    assert weather_ok.parent_id == routing2.step_id
    assert routing1.parent_id is None
    assert answer.parent_id is None
    assert geo.input_payload == {"city": "Paris"}
    assert geo.output_payload == {"lat": 48.85, "lon": 2.35}
    assert weather_err.status is StepStatus.ERROR
    assert weather_err.error_message == "ValueError('weather service timeout')"
    assert weather_ok.status is StepStatus.SUCCESS
    assert weather_ok.error_message is None
    assert answer.output_payload == {"content": "It is 18 °C in Paris."}
    assert all(s.tokens is None for s in steps if s.step_type is StepType.TOOL_CALL)


@pytest.mark.parametrize("dialect", ["model_dump", "message_to_dict", "lc_constructor"])
def test_tokens_once_per_ai_message(dialect: str) -> None:
    messages = normalize_messages(serialized(dialect))
    steps = conversation_steps(messages)
    # the first AI message carries usage in two places; it is counted once
    assert [s.tokens.total_tokens for s in steps if s.tokens] == [110, 162, 220]
    total = sum_usage(messages)
    assert total is not None
    assert (total.prompt_tokens, total.completion_tokens, total.total_tokens) == (450, 42, 492)
    assert total.estimated_cost_usd is None


def test_openai_dialect_has_no_usage_and_that_is_unknown_not_zero() -> None:
    messages = normalize_messages(serialized("openai"))
    assert sum_usage(messages) is None
    assert all(s.tokens is None for s in conversation_steps(messages))


def test_repeated_messages_are_kept_once() -> None:
    raw = serialized("message_to_dict")
    messages = normalize_messages([*raw[:4], raw[2], raw[3], *raw[4:]])
    assert [m.id for m in messages] == [m.id for m in normalize_messages(raw)]
    assert sum_usage(messages) == sum_usage(normalize_messages(raw))


def test_unanswered_tool_call_is_abandoned() -> None:
    messages = normalize_messages(serialized("model_dump")[:4])  # call_b never answered
    steps = conversation_steps(messages)
    assert [(s.name, s.status) for s in steps if s.step_type is StepType.TOOL_CALL] == [
        ("geocode", StepStatus.SUCCESS),
        ("get_weather", StepStatus.ABANDONED),
    ]


def test_prefixes_parent_and_start_index_for_combining_conversations() -> None:
    messages = normalize_messages(serialized("model_dump"))
    steps = conversation_steps(
        messages, name_prefix="Researcher/", id_prefix="task0/", parent_id="task-0", start_index=3
    )
    assert steps[0].name == "Researcher/geocode,get_weather"
    assert steps[0].parent_id == "task-0"
    assert steps[-1].parent_id == "task-0"
    assert steps[1].parent_id == steps[0].step_id
    assert all(s.step_id.startswith("task0/") for s in steps)
    assert [s.step_index for s in steps] == list(range(3, 9))


def test_remove_message_and_chat_message() -> None:
    raw = [
        {"type": "remove", "content": "", "id": "x"},
        {"type": "chat", "role": "assistant", "content": "hi", "id": "c"},
    ]
    assert normalize_messages(raw) == [
        Message(role="ai", content="hi", id="c", metadata={"dialect": "model_dump"})
    ]


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({"type": "ai"}, "messages: expected a list"),
        ([{"foo": 1}], "messages[0]: not a role message"),
        ([{"type": "robot", "content": "x"}], "messages[0]: unknown message type"),
        (
            [{"type": "ai", "data": {"content": "", "tool_calls": [{"args": {}}]}}],
            "messages[0].data.tool_calls[0]",
        ),
        (
            [{"lc": 1, "type": "constructor", "id": ["x", "AIMessage"], "kwargs": None}],
            "messages[0].kwargs",
        ),
        (
            [{"role": "assistant", "content": None, "tool_calls": [{"id": "a"}]}],
            "messages[0].tool_calls[0]",
        ),
    ],
)
def test_malformed_messages_name_the_json_path(raw: Any, where: str) -> None:
    with pytest.raises(TraceFormatError) as info:
        normalize_messages(raw)
    assert isinstance(info.value, AgentDiffError)
    assert where in str(info.value)


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (as_message_to_dict("ai", {"content": ""}), True),
        (as_constructor("tool", {"content": ""}), True),
        (as_model_dump("human", {"content": "q"}), True),
        ({"role": "user", "content": "q"}, True),
        ({"lc": 1, "type": "constructor", "id": ["langchain", "chat_models", "ChatOpenAI"]}, False),
        ({"type": "span", "content": "x"}, False),
        ({"role": "admin", "content": "x"}, False),
        ({"name": "x", "context": {}, "attributes": {}}, False),
        ("text", False),
        (None, False),
    ],
)
def test_is_message_like(item: Any, expected: bool) -> None:
    assert is_message_like(item) is expected
