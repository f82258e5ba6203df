"""Token usage and model from the real OpenAI and Anthropic SDK response objects."""

from __future__ import annotations

import pytest

from agentdiff.models.trace import TokenUsage
from agentdiff.record import model_of, record_run, usage_of

openai_types = pytest.importorskip("openai.types")
anthropic_types = pytest.importorskip("anthropic.types")


def chat_completion():
    return openai_types.chat.ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "hi"},
                }
            ],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
        }
    )


def responses_response():
    # model_construct: the Responses schema's required fields change between SDK versions
    usage = openai_types.responses.ResponseUsage.model_construct(
        input_tokens=200, output_tokens=40, total_tokens=240
    )
    return openai_types.responses.Response.model_construct(model="gpt-4.1", usage=usage)


def anthropic_message():
    return anthropic_types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "hi"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 10,
                "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 1000,
                "output_tokens": 25,
            },
        }
    )


def test_openai_chat_completion():
    response = chat_completion()
    assert usage_of(response) == TokenUsage(
        prompt_tokens=120, completion_tokens=30, total_tokens=150
    )
    assert model_of(response) == "gpt-4o-mini-2024-07-18"


def test_openai_responses_api():
    assert usage_of(responses_response()) == TokenUsage(
        prompt_tokens=200, completion_tokens=40, total_tokens=240
    )


def test_anthropic_message_counts_cached_prompt_tokens():
    response = anthropic_message()
    assert usage_of(response) == TokenUsage(
        prompt_tokens=1110, completion_tokens=25, total_tokens=1135
    )
    assert model_of(response) == "claude-sonnet-4-5"


def test_dict_responses_and_missing_usage():
    assert usage_of({"usage": {"prompt_tokens": 3, "completion_tokens": 4}}) == TokenUsage(
        prompt_tokens=3, completion_tokens=4, total_tokens=7
    )
    assert usage_of({"model": "m"}) is None
    assert usage_of({"usage": {}}) is None
    assert model_of({"model": ""}) is None


def test_record_response_sets_tokens_model_and_output():
    with record_run("agent") as run, run.step("llm_call", "chat") as step:
        step.record_response(chat_completion(), output=True)
    recorded = run.trace.steps[0]
    assert recorded.tokens is not None and recorded.tokens.total_tokens == 150
    assert recorded.metadata["model"] == "gpt-4o-mini-2024-07-18"
    assert recorded.output_payload["choices"][0]["message"]["content"] == "hi"
