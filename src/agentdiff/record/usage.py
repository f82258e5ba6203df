"""Token usage and model name read off LLM SDK response objects (OpenAI, Anthropic), by shape.

Nothing here imports an SDK: a response is read by its attributes (or keys, for a response
already turned into a dict), so the helpers work with whichever SDK versions are installed.

=====================================  ==========================  =========================
response                               prompt tokens               completion tokens
=====================================  ==========================  =========================
OpenAI Chat Completions                ``usage.prompt_tokens``     ``usage.completion_tokens``
OpenAI Responses                       ``usage.input_tokens``      ``usage.output_tokens``
Anthropic Messages                     ``usage.input_tokens`` +    ``usage.output_tokens``
                                       cache creation + cache read
=====================================  ==========================  =========================

Anthropic's `input_tokens` leaves out the prompt tokens written to or read from the prompt cache,
so they are added back: the prompt is everything the model read. `total_tokens` is the
response's own when it has one, else prompt + completion. Cost is never guessed here.
"""

from __future__ import annotations

from typing import Any

from agentdiff.models.trace import TokenUsage

__all__ = ["model_of", "usage_of"]

_CACHE_FIELDS = ("cache_creation_input_tokens", "cache_read_input_tokens")


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _count(obj: Any, name: str) -> int | None:
    value = _field(obj, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_of(response: Any) -> TokenUsage | None:
    """The token usage of an OpenAI or Anthropic response; `None` when it reports none."""
    usage = _field(response, "usage")
    if usage is None:
        return None
    prompt = _count(usage, "prompt_tokens")
    if prompt is None:
        prompt = _count(usage, "input_tokens")
        if prompt is not None:
            prompt += sum(_count(usage, name) or 0 for name in _CACHE_FIELDS)
    completion = _count(usage, "completion_tokens")
    if completion is None:
        completion = _count(usage, "output_tokens")
    total = _count(usage, "total_tokens")
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    found = TokenUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)
    return None if found.is_empty else found


def model_of(response: Any) -> str | None:
    """The model that answered (`response.model`), when the response names one."""
    model = _field(response, "model")
    return model if isinstance(model, str) and model else None
