"""Capture real Codex CLI rollout files offline: the real CLI against a scripted model.

Run through `scripts/capture/capture.sh codex` (from `make fixtures`, never `make test`). The
pinned `@openai/codex` CLI (a native binary shipped inside its npm package) is installed into
`.capture-node/` and run as `codex exec --skip-git-repo-check
--dangerously-bypass-approvals-and-sandbox` in a temporary project, with a temporary
`CODEX_HOME` whose `config.toml` names a custom model provider: an in-process Responses API
(streaming) on 127.0.0.1 that answers by the shape of each request (the count of calls already
in its `input`), never by call order. The tools are Codex's own (`exec_command` running real
shell commands, the freeform `apply_patch`), run for real in the temporary project; analytics
are off. The rollout lands in `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`.

For each scenario (identical, detour, loop, error_retry, reworded) and side it writes, under
`<root>/codex/<scenario>/`:

- `<side>.rollout.jsonl`: the rollout exactly as the CLI wrote it, except that the temporary
  folder is rewritten to `/home/user` (so the project is `/home/user/project`);
- `<side>.facts.json`: what happened, recorded in the scripted server (each response's calls,
  reasoning and usage) and from the tool side (each call's output as the CLI sent it back).
"""

from __future__ import annotations

import json
import re
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

SOURCE = "codex"
PACKAGE, CLI_VERSION = "@openai/codex", "0.171.0"
MODEL = "gpt-5.5"
PATCH = (
    "*** Begin Patch\n*** Update File: app/config.py\n@@\n"
    ' """Configuration loading."""\n+# Loaded once at start-up.\n*** End Patch\n'
)

Call = tuple[str, str, Any]
"""(kind, name, arguments): kind is `function` (JSON arguments) or `custom` (free text)."""
Turn = tuple[str, list[Call] | str]
"""(reasoning summary, calls or the final answer)."""


def _shell(cmd: str) -> Call:
    return ("function", "exec_command", {"cmd": cmd, "yield_time_ms": 2000})


RG = _shell("rg -n 'def parse_config' .")
LS = _shell("ls app tests")
READ = _shell("sed -n '1,40p' app/config.py")
PATCHED = ("custom", "apply_patch", PATCH)
WC = _shell("wc -l app/config.py")
SCRIPTS: dict[str, list[Turn]] = {
    "baseline": [
        ("Search for the definition and list the files.", [RG, LS]),
        ("Read the module.", [READ]),
        ("Count its lines.", [WC]),
        ("Note when the config is loaded.", [PATCHED]),
        ("Answer.", ANSWER),
    ],
    "detour": [
        ("Search for the definition and list the files.", [RG, LS]),
        ("Also look for every use.", [_shell("rg -n 'parse_config' app tests")]),
        ("Read the module.", [READ]),
        ("Count its lines.", [WC]),
        ("Note when the config is loaded.", [PATCHED]),
        ("Answer.", ANSWER),
    ],
    "loop": [
        ("Search for the definition and list the files.", [RG, LS]),
        ("Read the module.", [READ]),
        *[("Run the config check.", [_shell("python3 app/check.py")])] * 4,
        ("Answer.", LOOP_ANSWER),
    ],
    "error_retry": [
        ("Search for the definition and list the files.", [RG, LS]),
        ("Read the module.", [READ]),
        ("Count its lines.", [_shell("wc -l app/confg.py")]),
        ("Fix the path and count again.", [WC]),
        ("Note when the config is loaded.", [PATCHED]),
        ("Answer.", ANSWER),
    ],
    "reworded": [
        ("Search for the definition and list the files.", [RG, LS]),
        ("Read the module.", [READ]),
        ("Count its lines.", [WC]),
        ("Note when the config is loaded.", [PATCHED]),
        ("Answer.", REWORDED),
    ],
}
CALL_TYPES = ("function_call", "custom_tool_call")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")


class Recorder(ScriptRecorder):
    """What the scripted server saw and answered, for the facts file."""

    def __init__(self) -> None:
        super().__init__()
        self.outputs: dict[str, Any] = {}


REC = Recorder()


def _turn_index(items: list[dict[str, Any]], script: list[Turn]) -> int:
    """Which scripted turn comes next, from the calls already made in the request's input."""
    made = sum(1 for item in items if item.get("type") in CALL_TYPES)
    done = 0
    for index, (_, plan) in enumerate(script):
        if isinstance(plan, str) or done + len(plan) > made:
            return index
        done += len(plan)
    return len(script) - 1


def _is_main(items: list[dict[str, Any]]) -> bool:
    return any(
        part.get("text") == TASK
        for item in items
        if item.get("type") == "message" and item.get("role") == "user"
        for part in item.get("content", [])
        if isinstance(part, dict)
    )


def _usage(items: list[dict[str, Any]], turn: int) -> dict[str, Any]:
    size = len(json.dumps(items))
    prompt, cached, output, reasoning = 40 + size // 400, 0 if turn == 0 else 6000, 25, 8
    return {
        "input_tokens": prompt + cached,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": output + 4 * turn,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": prompt + cached + output + 4 * turn,
    }


def _item(kind: str, name: str, arguments: Any) -> dict[str, Any]:
    call_id = REC.next_id("call")
    if kind == "custom":
        return {
            "type": "custom_tool_call",
            "id": REC.next_id("ctc"),
            "status": "completed",
            "call_id": call_id,
            "name": name,
            "input": arguments,
        }
    return {
        "type": "function_call",
        "id": REC.next_id("fc"),
        "status": "completed",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }


def _output_items(summary: str, plan: list[Call] | str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {
            "type": "reasoning",
            "id": REC.next_id("rs"),
            "summary": [{"type": "summary_text", "text": summary}],
            "encrypted_content": None,
        }
    ]
    if isinstance(plan, str):
        items.append(
            {
                "type": "message",
                "id": REC.next_id("msg"),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": plan, "annotations": []}],
            }
        )
    else:
        items += [_item(*call) for call in plan]
    return items


def _events(body: dict[str, Any]) -> list[tuple[str, Any]]:
    items = body.get("input", [])
    for item in items:
        if item.get("type") in OUTPUT_TYPES:
            REC.outputs.setdefault(item["call_id"], item.get("output"))
    main = _is_main(items)
    script = SCRIPTS[REC.variant] if main else [("Reply.", "OK")]
    turn = _turn_index(items, script) if main else 0
    summary, plan = script[turn]
    output = _output_items(summary, plan)
    usage = _usage(items, turn)
    response = {
        "id": REC.next_id("resp"),
        "object": "response",
        "created_at": 0,
        "status": "in_progress",
        "model": body.get("model"),
        "output": [],
    }
    events: list[tuple[str, Any]] = [
        ("response.created", {"type": "response.created", "response": response})
    ]
    for index, item in enumerate(output):
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": item},
            )
        )
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    done = {**response, "status": "completed", "output": output, "usage": usage}
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    if main:
        with REC.lock:
            REC.responses.append(
                {
                    "response_id": response["id"],
                    "usage": usage,
                    "reasoning": summary,
                    "items": output,
                }
            )
    return events


class ScriptedResponses(JsonHandler):
    """The OpenAI Responses API (streaming), answering by request shape."""

    def do_POST(self) -> None:  # noqa: N802 (http.server names)
        self.send_events(_events(self.read_json()))


def _config(base_url: str) -> str:
    return (
        f'model = "{MODEL}"\nmodel_provider = "scripted"\n\n'
        "[model_providers.scripted]\n"
        f'name = "Scripted"\nbase_url = "{base_url}"\nwire_api = "responses"\n'
        'env_key = "SCRIPTED_API_KEY"\n\n[analytics]\nenabled = false\n'
    )


def run_side(cli: Path, base_url: str, variant: str, out: Path, side: str) -> None:
    """Run one `codex exec` of the real CLI and keep its rollout and facts."""
    with tempfile.TemporaryDirectory() as tmp:
        home, project, codex_home = Path(tmp, "home"), Path(tmp, "project"), Path(tmp, ".codex")
        make_project(project)
        home.mkdir()
        codex_home.mkdir()
        (codex_home / "config.toml").write_text(_config(base_url), encoding="utf-8")
        REC.variant, REC.responses, REC.outputs = variant, [], {}
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(home),
            "CODEX_HOME": str(codex_home),
            "SCRIPTED_API_KEY": "sk-scripted-offline",
        }
        done = subprocess.run(
            [
                str(cli),
                "exec",
                "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox",
                TASK,
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        rollouts = sorted(codex_home.glob("sessions/*/*/*/rollout-*.jsonl"))
        if done.returncode != 0 or len(rollouts) != 1:
            raise SystemExit(f"{variant}: codex exited {done.returncode}, rollouts {rollouts}")
        pairs = [(Path(tmp), HOME_ALIAS)]
        text = scrub(rollouts[0].read_text(encoding="utf-8"), pairs)
        (out / f"{side}.rollout.jsonl").write_text(text, encoding="utf-8")
        write_json(out / f"{side}.facts.json", _facts(variant, side, rollouts[0].name, pairs))


def _facts(variant: str, side: str, rollout: str, pairs: list[tuple[Path, str]]) -> dict[str, Any]:
    calls, answer = [], None
    for response in REC.responses:
        for item in response["items"]:
            if item["type"] in CALL_TYPES:
                custom = item["type"] == "custom_tool_call"
                output = REC.outputs.get(item["call_id"])
                calls.append(
                    {
                        "call_id": item["call_id"],
                        "name": item["name"],
                        "arguments": {"input": item["input"]}
                        if custom
                        else json.loads(item["arguments"]),
                        "output": scrub(output, pairs) if isinstance(output, str) else output,
                        "error": _failure(output),
                    }
                )
            elif item["type"] == "message":
                answer = item["content"][0]["text"]
    usage = [r["usage"] for r in REC.responses]
    prompt = sum(u["input_tokens"] for u in usage)
    completion = sum(u["output_tokens"] for u in usage)
    return {
        "source": SOURCE,
        "variant": variant,
        "side": side,
        "rollout": rollout,
        "agent_name": "codex",
        "model": MODEL,
        "llm_calls": len(REC.responses),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cost_usd": None,
        "tool_calls": calls,
        "reasoning": [r["reasoning"] for r in REC.responses],
        "model_turns": len(REC.responses),
        "usage": {
            "input_tokens": sum(u["input_tokens"] for u in usage),
            "cached_input_tokens": sum(u["input_tokens_details"]["cached_tokens"] for u in usage),
            "output_tokens": sum(u["output_tokens"] for u in usage),
            "reasoning_tokens": sum(u["output_tokens_details"]["reasoning_tokens"] for u in usage),
            "total_tokens": sum(u["total_tokens"] for u in usage),
        },
        "final_output": answer,
        "produced_by": {PACKAGE: CLI_VERSION},
    }


def _failure(output: Any) -> str | None:
    """The failing command's last output line when the tool reported a non-zero exit code."""
    if not isinstance(output, str):
        return None
    code = re.search(r"(?:Process exited with code|Exit code:)\s*(-?\d+)", output)
    return error_line(output) if code and code.group(1) != "0" else None


def main(fixtures_root: str) -> None:
    root = Path(__file__).resolve().parents[2]
    cli = install_cli(root, PACKAGE, CLI_VERSION, "codex")
    server = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedResponses)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    target = Path(fixtures_root) / SOURCE
    try:
        for scenario in SCENARIOS:
            out = target / scenario
            out.mkdir(parents=True, exist_ok=True)
            for side in SIDES:
                run_side(cli, base_url, variant_of(scenario, side), out, side)
                print(f"{SOURCE}/{scenario}/{side}: ok")
    finally:
        server.shutdown()
    write_json(
        target / "manifest.json",
        {
            "source": SOURCE,
            "capture_script": "scripts/capture/codex.py",
            "produced_by": {PACKAGE: CLI_VERSION},
            "shapes": {
                "rollout": {
                    "adapter": "codex",
                    "file": "<side>.rollout.jsonl",
                    "emulated": False,
                    "description": "the CLI's own rollout file ($CODEX_HOME/sessions/Y/M/D/rollout-*.jsonl)",
                }
            },
        },
    )


if __name__ == "__main__":
    main(sys.argv[1])
