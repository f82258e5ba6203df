"""What the coding-agent capture scripts (claude_code.py, codex.py) share.

The temporary project both CLIs work in, the task, the pinned npm install of a CLI into
`.capture-node/` (never used by `make test`), path scrubbing, and a tiny server-sent-events
writer for the scripted model servers. Nothing here talks to a network beyond 127.0.0.1.
"""

from __future__ import annotations

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

TASK = "Where is parse_config defined, and how many lines does that file have?"
HOME_ALIAS = "/home/user"
SCENARIOS = ("identical", "detour", "loop", "error_retry", "reworded")
SIDES = ("baseline", "candidate")

PROJECT_FILES = {
    "app/__init__.py": "",
    "app/config.py": (
        '"""Configuration loading."""\n\nimport json\n\n\n'
        "def parse_config(path):\n"
        '    """Read a JSON config file."""\n'
        "    with open(path) as handle:\n"
        "        return json.load(handle)\n"
    ),
    "app/main.py": "from app.config import parse_config\n\nprint(parse_config('config.json'))\n",
    "app/check.py": "import sys\n\nsys.exit('config check failed: missing key \"region\"')\n",
    "tests/test_config.py": "def test_placeholder():\n    assert True\n",
}
LINES = PROJECT_FILES["app/config.py"].count("\n")
ANSWER = f"parse_config is defined in app/config.py, which has {LINES} lines."
LOOP_ANSWER = 'The config check keeps failing: missing key "region".'
REWORDED = f"You'll find parse_config in app/config.py; the file is {LINES} lines long."


def variant_of(scenario: str, side: str) -> str:
    """The script a side plays: the baseline's, or the scenario's own change."""
    return "baseline" if side == "baseline" or scenario == "identical" else scenario


def make_project(folder: Path) -> None:
    """The small Python project the agent works on."""
    for rel, text in PROJECT_FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")


def install_cli(root: Path, package: str, version: str, binary: str) -> Path:
    """The pinned CLI from npm, in a folder of its own beside the checkout."""
    folder = root / ".capture-node"
    path = folder / "node_modules" / ".bin" / binary
    if not path.exists():
        folder.mkdir(exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(folder),
                "--no-audit",
                "--no-fund",
                f"{package}@{version}",
            ],
            check=True,
        )
    return path


def scrub(text: str, pairs: list[tuple[Path, str]]) -> str:
    """Temporary paths (also in the dash-mangled form CLIs use for folders) → stable aliases."""
    for real, alias in pairs:
        text = text.replace(str(real), alias)
        text = text.replace(str(real).replace("/", "-"), alias.replace("/", "-"))
    return text


def error_line(text: str | None) -> str | None:
    """The failing command's own last output line (what the tool side reported), or None."""
    if not text:
        return None
    body = text.split("<system-reminder>", 1)[0].split("Output:", 1)[-1]
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    return lines[-1] if lines else None


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


class ScriptRecorder:
    """What a scripted server saw and answered: the script being played and unique reply ids."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.variant = "baseline"
        self.responses: list[dict[str, Any]] = []
        self.counter = 0

    def next_id(self, prefix: str) -> str:
        with self.lock:
            self.counter += 1
            return f"{prefix}_{self.variant[:4]}{self.counter:04d}"


class JsonHandler(BaseHTTPRequestHandler):
    """A quiet handler with helpers to answer JSON or a server-sent-events stream."""

    def read_json(self) -> dict[str, Any]:
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        data: dict[str, Any] = json.loads(raw or b"{}")
        return data

    def send_json(self, data: dict[str, Any], status: int = 200) -> None:
        out = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def send_events(self, events: list[tuple[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.end_headers()

    def do_GET(self) -> None:
        self.send_json({"error": "not scripted"}, status=404)

    def log_message(self, *args: Any) -> None:
        pass
