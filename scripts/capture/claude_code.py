"""Capture real Claude Code session transcripts offline: the real CLI against a scripted model.

Run through `scripts/capture/capture.sh claude_code` (from `make fixtures`, never `make test`).
The pinned `@anthropic-ai/claude-code` CLI is installed from npm into `.capture-node/` and run
non-interactively (`claude -p` with `--allowedTools`, `IS_SANDBOX=1` as root) in a temporary
project, with `ANTHROPIC_BASE_URL` pointed at an in-process Anthropic Messages API (streaming)
on 127.0.0.1 that answers by the shape of each request, never by call order: a request whose
first user turn holds the task prompt is the main agent, one holding the sub-agent's prompt is
the sub-agent, anything else (titles, checks) gets a short text. The tools are Claude Code's own
(Grep, Glob, Read, Bash, Agent) running for real in the temporary project. Telemetry, update
checks and non-essential traffic are off; `CLAUDE_CONFIG_DIR` is a temporary folder, so the
transcript lands in `<config>/projects/<project>/<session>.jsonl` (+ `<session>/subagents/`).

For each scenario (identical, detour, loop, error_retry, reworded) and side it writes, under
`<root>/claude_code/<scenario>/`:

- `<side>.session.jsonl`: the session transcript exactly as the CLI wrote it, except that the
  temporary project path is rewritten to `/home/user/project` and the config path to
  `/home/user/.claude`;
- `<side>.session/subagents/agent-*.jsonl` beside it (the CLI's own layout) when the CLI wrote sub-agent transcripts there;
- `<side>.facts.json`: what happened, recorded in the scripted server (each model response's
  tool calls and usage) and from the tool side (each tool_result the CLI sent back).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from coding_common import (
    ANSWER,
    HOME_ALIAS,
    LOOP_ANSWER,
    REWORDED,
    SCENARIOS,
    SIDES,
    TASK,
    JsonHandler,
    ScriptRecorder,
    error_line,
    install_cli,
    make_project,
    scrub,
    variant_of,
    write_json,
)

SOURCE = "claude_code"
PACKAGE, CLI_VERSION = "@anthropic-ai/claude-code", "2.1.332"
MODEL = "claude-sonnet-4-5"
SUBAGENT_PROMPT = "List the test files of this project."
PROJECT_ALIAS = f"{HOME_ALIAS}/project"
CONFIG_ALIAS = f"{HOME_ALIAS}/.claude"

Call = tuple[str, dict[str, Any]]
Turn = list[Call] | str


def _turns(project: str) -> dict[str, list[Turn]]:
    """The main agent's script per variant: each turn is a list of tool calls or a final text."""
    grep: Call = ("Grep", {"pattern": "def parse_config", "path": project})
    glob: Call = ("Glob", {"pattern": "**/*.py", "path": project})
    read: Call = ("Read", {"file_path": f"{project}/app/config.py"})
    wc: Call = ("Bash", {"command": "wc -l app/config.py", "description": "Count lines"})
    sub: Call = (
        "Agent",
        {
            "description": "Find tests",
            "prompt": SUBAGENT_PROMPT,
            "subagent_type": "Explore",
            "run_in_background": False,
        },
    )
    detour: Call = ("Grep", {"pattern": "parse_config", "path": project, "output_mode": "content"})
    check: Call = ("Bash", {"command": "python3 app/check.py", "description": "Run config check"})
    typo: Call = ("Bash", {"command": "wc -l app/confg.py", "description": "Count lines"})
    return {
        "baseline": [[grep, glob], [read], [sub], [wc], ANSWER],
        "detour": [[grep, glob], [detour], [read], [sub], [wc], ANSWER],
        "loop": [[grep, glob], [read], [sub], [check], [check], [check], [check], LOOP_ANSWER],
        "error_retry": [[grep, glob], [read], [sub], [typo], [wc], ANSWER],
        "reworded": [[grep, glob], [read], [sub], [wc], REWORDED],
    }


FOLLOWUP = "Thanks. How many lines does app/main.py have?"
FOLLOWUP_TURNS: list[Turn] = [
    [("Bash", {"command": "wc -l app/main.py", "description": "Count lines"})],
    "app/main.py has 3 lines.",
]
COMPACT_SUMMARY = (
    "<analysis>The user asked where parse_config is defined and how long its file is.</analysis>\n"
    "<summary>parse_config is defined in app/config.py (9 lines); tests are in tests/.</summary>"
)
RESUMED = ((TASK, "baseline"), ("/compact", "baseline"), (FOLLOWUP, "baseline"))
"""The resumed session: the task, a compaction, then a follow-up in the same session."""

SUB_TURNS: list[Turn] = [
    [("Glob", {"pattern": "tests/**/*.py"})],
    "The only test file is tests/test_config.py.",
]


class Recorder(ScriptRecorder):
    """What the scripted server saw and answered, for the facts file."""

    def __init__(self) -> None:
        super().__init__()
        self.project = ""
        self.results: dict[str, dict[str, Any]] = {}
        self.compactions = 0


REC = Recorder()


def _user_texts(messages: list[dict[str, Any]]) -> str:
    parts = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(b.get("text", "") for b in content if b.get("type") == "text")
    return "\n".join(parts)


def _tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        block
        for message in messages
        if message.get("role") == "user" and isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def _assistant_turns(messages: list[dict[str, Any]]) -> int:
    return sum(1 for m in messages if m.get("role") == "assistant")


def _record_results(messages: list[dict[str, Any]]) -> None:
    for block in _tool_results(messages):
        content = block.get("content")
        if isinstance(content, list):
            content = "\n".join(c.get("text", "") for c in content if c.get("type") == "text")
        REC.results.setdefault(
            block["tool_use_id"], {"is_error": bool(block.get("is_error")), "content": content}
        )


def _since_followup(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The messages from the resumed session's follow-up prompt on, if it is there."""
    for index, message in enumerate(messages):
        if message.get("role") == "user" and FOLLOWUP in _user_texts([message]):
            return messages[index:]
    return None


def _plan(body: dict[str, Any]) -> tuple[str, list[Call] | str]:
    """Who is asking (main, sub or side) and what to answer, from the request's shape."""
    messages = body.get("messages", [])
    tools = {t.get("name") for t in body.get("tools", [])}
    text = _user_texts(messages[:2])
    if "<summary>" in _user_texts(messages[-1:]):
        return "compaction", COMPACT_SUMMARY
    followup = _since_followup(messages)
    if followup is not None and "Bash" in tools:
        return "main", FOLLOWUP_TURNS[min(_assistant_turns(followup), len(FOLLOWUP_TURNS) - 1)]
    if TASK in text and "Bash" in tools:
        script = _turns(REC.project)[REC.variant]
        return "main", script[min(_assistant_turns(messages), len(script) - 1)]
    if SUBAGENT_PROMPT in text and tools:
        return "sub", SUB_TURNS[min(_assistant_turns(messages), len(SUB_TURNS) - 1)]
    return "side", "OK"


def _usage(role: str, body: dict[str, Any]) -> dict[str, int]:
    """Deterministic token counts from the request's size (cache fields as Anthropic reports)."""
    size = len(json.dumps(body.get("messages", [])))
    if role == "side":
        return {
            "input_tokens": 40,
            "output_tokens": 2,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
    turns = _assistant_turns(body.get("messages", []))
    return {
        "input_tokens": 12 + size // 400,
        "output_tokens": 30 + 7 * turns,
        "cache_read_input_tokens": 0 if turns == 0 else 9000 + 150 * turns,
        "cache_creation_input_tokens": 9000 if turns == 0 else 150,
    }


def _events(role: str, body: dict[str, Any], plan: list[Call] | str) -> list[tuple[str, Any]]:
    usage = _usage(role, body)
    msg_id = REC.next_id("msg")
    start_usage = {**usage, "output_tokens": 1}
    events: list[tuple[str, Any]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        ),
    ]
    calls: list[dict[str, Any]] = []
    if isinstance(plan, str):
        events += [
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": plan},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ]
        stop = "end_turn"
    else:
        for index, (name, arguments) in enumerate(plan):
            call_id = REC.next_id("toolu")
            calls.append({"id": call_id, "name": name, "arguments": arguments})
            events += [
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {
                            "type": "tool_use",
                            "id": call_id,
                            "name": name,
                            "input": {},
                        },
                    },
                ),
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {
                            "type": "input_json_delta",
                            "partial_json": json.dumps(arguments),
                        },
                    },
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        stop = "tool_use"
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    if role == "compaction":
        with REC.lock:
            REC.compactions += 1
    if role not in ("side", "compaction"):
        with REC.lock:
            REC.responses.append(
                {
                    "agent": role,
                    "message_id": msg_id,
                    "usage": usage,
                    "tool_calls": calls,
                    "text": plan if isinstance(plan, str) else None,
                }
            )
    return events


class ScriptedMessages(JsonHandler):
    """The Anthropic Messages API, streaming or not, answering by request shape."""

    def do_POST(self) -> None:  # noqa: N802 (http.server names)
        body = self.read_json()
        if "count_tokens" in self.path:
            self.send_json({"input_tokens": 100})
            return
        _record_results(body.get("messages", []))
        role, plan = _plan(body)
        events = _events(role, body, plan)
        if body.get("stream"):
            self.send_events(events)
        else:
            self.send_json(_collapse(events))


def _collapse(events: list[tuple[str, Any]]) -> dict[str, Any]:
    """The non-streaming body equivalent to a stream of events."""
    message = dict(events[0][1]["message"])
    content: list[dict[str, Any]] = []
    for name, data in events[1:]:
        if name == "content_block_start":
            content.append(dict(data["content_block"]))
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                content[-1]["text"] += delta["text"]
            else:
                content[-1]["input"] = json.loads(delta["partial_json"])
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"] = {**message["usage"], **data["usage"]}
    message["content"] = content
    return message


def _scrub(text: str, project: Path, config: Path) -> str:
    return scrub(
        text, [(config, CONFIG_ALIAS), (project, PROJECT_ALIAS), (project.parent, HOME_ALIAS)]
    )


def run_side(
    cli: Path,
    base_url: str,
    variant: str,
    out: Path,
    stem: str,
    prompts: tuple[tuple[str, str], ...] = (),
) -> None:
    """Run one session of the real CLI (resumed for each further prompt); keep what it wrote."""
    prompts = prompts or ((TASK, variant),)
    with tempfile.TemporaryDirectory() as tmp:
        project, config, home = Path(tmp, "project"), Path(tmp, "config"), Path(tmp, "home")
        make_project(project)
        home.mkdir()
        REC.variant, REC.project, REC.responses, REC.results = variant, str(project), [], {}
        REC.compactions = 0
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(config),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sk-ant-scripted-offline",
            "ANTHROPIC_MODEL": MODEL,
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "IS_SANDBOX": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        result: dict[str, Any] = {}
        for prompt, script in prompts:
            REC.variant = script
            resume = ["--resume", str(result["session_id"])] if result else []
            done = subprocess.run(
                [
                    str(cli),
                    "-p",
                    *resume,
                    prompt,
                    "--allowedTools",
                    "Bash,Grep,Glob,Read,Agent",
                    "--output-format",
                    "json",
                ],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            result = json.loads(done.stdout.strip().splitlines()[-1])
        sessions = sorted(config.glob("projects/*/*.jsonl"))
        if len(sessions) != 1:
            raise SystemExit(f"{variant}: expected one session file, found {sessions}")
        session = sessions[0]
        (out / f"{stem}.session.jsonl").write_text(
            _scrub(session.read_text(encoding="utf-8"), project, config), encoding="utf-8"
        )
        subagents = session.with_suffix("") / "subagents"
        if subagents.is_dir():
            target = out / f"{stem}.session" / "subagents"  # the CLI's layout: <session>/subagents/
            shutil.rmtree(target.parent, ignore_errors=True)
            target.mkdir(parents=True)
            for file in sorted(subagents.glob("*.jsonl")):
                (target / file.name).write_text(
                    _scrub(file.read_text(encoding="utf-8"), project, config), encoding="utf-8"
                )
        facts = _facts(variant, stem, result, session.stem, project, config)
        facts["prompts"] = [p for p, _ in prompts if not p.startswith("/")]
        facts["compaction_calls"] = REC.compactions
        write_json(out / f"{stem}.facts.json", facts)


def _facts(
    variant: str, side: str, result: dict[str, Any], session_id: str, project: Path, config: Path
) -> dict[str, Any]:
    calls = []
    for response in REC.responses:
        for call in response["tool_calls"]:
            outcome = REC.results.get(call["id"], {})
            content = outcome.get("content")
            calls.append(
                {
                    "thread": response["agent"],
                    "id": call["id"],
                    "name": call["name"],
                    "arguments": json.loads(_scrub(json.dumps(call["arguments"]), project, config)),
                    "is_error": outcome.get("is_error"),
                    "error": error_line(content) if outcome.get("is_error") else None,
                    "result": _scrub(content, project, config)
                    if isinstance(content, str)
                    else None,
                }
            )
    usage = [r["usage"] for r in REC.responses]
    totals = {key: sum(u[key] for u in usage) for key in usage[0]}
    cache = ("cache_read_input_tokens", "cache_creation_input_tokens")
    prompt = totals["input_tokens"] + sum(totals[k] for k in cache)
    return {
        "source": SOURCE,
        "variant": variant,
        "side": side,
        "session_id": session_id,
        "agent_name": "claude-code",
        "model": MODEL,
        "llm_calls": len(REC.responses),
        "prompt_tokens": prompt,
        "completion_tokens": totals["output_tokens"],
        "total_tokens": prompt + totals["output_tokens"],
        "cost_usd": None,
        "tool_calls": calls,
        "model_turns": {
            "main": sum(r["agent"] == "main" for r in REC.responses),
            "sub": sum(r["agent"] == "sub" for r in REC.responses),
        },
        "usage": totals,
        "final_output": result.get("result"),
        "cli_result": {k: result.get(k) for k in ("num_turns", "is_error", "total_cost_usd")},
        "produced_by": {PACKAGE: CLI_VERSION},
    }


def main(fixtures_root: str) -> None:
    root = Path(__file__).resolve().parents[2]
    cli = install_cli(root, PACKAGE, CLI_VERSION, "claude")
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedMessages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}"
    target = Path(fixtures_root) / SOURCE
    try:
        for scenario in SCENARIOS:
            out = target / scenario
            out.mkdir(parents=True, exist_ok=True)
            for side in SIDES:
                run_side(cli, base_url, variant_of(scenario, side), out, side)
                print(f"{SOURCE}/{scenario}/{side}: ok")
        resumed = Path(fixtures_root) / "claude_code_sessions"
        resumed.mkdir(parents=True, exist_ok=True)
        run_side(cli, base_url, "baseline", resumed, "resumed", RESUMED)
        print(f"{SOURCE} resumed and compacted session: ok")
    finally:
        server.shutdown()
    manifest = {
        "source": SOURCE,
        "capture_script": "scripts/capture/claude_code.py",
        "produced_by": {PACKAGE: CLI_VERSION},
        "shapes": {
            "session": {
                "adapter": "claude_code",
                "file": "<side>.session.jsonl",
                "emulated": False,
                "description": "the CLI's own session transcript (~/.claude/projects/<p>/<s>.jsonl)"
                " with sub-agent transcripts in <side>.session/subagents/",
            }
        },
    }
    write_json(target / "manifest.json", manifest)


if __name__ == "__main__":
    main(sys.argv[1])
