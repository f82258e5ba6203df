"""A scripted, in-process OpenAI Chat Completions server on 127.0.0.1 (ephemeral port), offline.

The real `openai` SDK talks to it over HTTP exactly as it would to the API; only the model is a
script. It plays a weather assistant that reads its system prompt: with the baseline prompt it
geocodes, fetches the weather and answers; when the prompt asks it to confirm with a web search
it also calls `web_search` first (the "prompt change" candidate). Usage is reported like the API
does (prompt tokens grow with the conversation), so token deltas are real.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "gpt-4o-mini-scripted"
PARIS = {"lat": 48.8566, "lon": 2.3522}
ANSWER = "It is 18.0 °C and partly cloudy in Paris right now."
CONFIRMED = "It is 18.0 °C and partly cloudy in Paris right now (confirmed by a web search)."
BASE_PLAN: list[Any] = [
    ("geocode", {"city": "Paris"}),
    ("get_weather", PARIS),
    ANSWER,
]
SEARCH_PLAN: list[Any] = [
    ("geocode", {"city": "Paris"}),
    ("web_search", {"query": "Paris weather right now"}),
    ("get_weather", PARIS),
    CONFIRMED,
]


def _plan(messages: list[dict[str, Any]]) -> list[Any]:
    system = str(messages[0].get("content", "")) if messages else ""
    return SEARCH_PLAN if "web search" in system.lower() else BASE_PLAN


def _completion(request: dict[str, Any], number: int) -> dict[str, Any]:
    messages = request.get("messages", [])
    turn = _plan(messages)[sum(1 for m in messages if m.get("role") == "tool")]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if isinstance(turn, str):
        message["content"], finish = turn, "stop"
    else:
        name, arguments = turn
        message["tool_calls"] = [
            {
                "id": f"call_{number:04d}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ]
        finish = "tool_calls"
    prompt = max(1, len(json.dumps(messages)) // 4)
    completion = max(1, len(json.dumps(message)) // 4)
    return {
        "id": f"chatcmpl-scripted-{number:04d}",
        "object": "chat.completion",
        "created": 1_767_225_600 + number,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    calls = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        with self.lock:
            type(self).calls += 1
            number = type(self).calls
        payload = json.dumps(_completion(body, number)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


@contextmanager
def scripted_openai() -> Iterator[str]:
    """Serve the scripted model; yields the base URL for `openai.OpenAI(base_url=...)`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
