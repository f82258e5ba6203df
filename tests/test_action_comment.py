"""The Action's sticky PR comment, against a fake GitHub REST API on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from tests.action_driver import action_env, run_script

ROOT = Path(__file__).parents[1]
COMMENT = ROOT / "scripts" / "action_comment.py"
REAL = ROOT / "tests" / "fixtures" / "real" / "langfuse"
TOKEN = "ghs_fake_token"  # noqa: S105 - the fake server's own
REPO = "acme/agent"
PR = 7


class FakeGitHub:
    """Issue comments of one pull request, with pagination and a token check."""

    def __init__(self, unrelated: int = 0) -> None:
        self.comments: dict[int, dict] = {}
        self.requests: list[tuple[str, str, dict]] = []
        self.next_id = 1000
        self.status: int | None = None  # force an error status
        self.login: str | None = None  # the token's account (None: an Actions token, 403)
        for i in range(unrelated):
            self._add(f"unrelated comment {i}", "someone")

    def _add(self, body: str, login: str) -> dict:
        self.next_id += 1
        comment = {"id": self.next_id, "body": body, "user": {"login": login}}
        self.comments[self.next_id] = comment
        return comment

    def _refused(self, headers) -> tuple[int, object] | None:
        if self.status:
            return self.status, {"message": "Resource not accessible by integration"}
        if headers.get("Authorization") != f"Bearer {TOKEN}":
            return 401, {"message": "Bad credentials"}
        return None

    def handle(self, method: str, url: str, headers, body: bytes) -> tuple[int, object]:
        self.requests.append((method, url, {k.lower(): v for k, v in headers.items()}))
        refused = self._refused(headers)
        if refused is not None:
            return refused
        parsed = urlparse(url)
        path = parsed.path
        if method == "GET" and path == f"/repos/{REPO}/issues/{PR}/comments":
            query = parse_qs(parsed.query)
            per_page, page = int(query["per_page"][0]), int(query["page"][0])
            items = list(self.comments.values())
            return 200, items[(page - 1) * per_page : page * per_page]
        if method == "GET" and path == "/user":  # an Actions token may not read it
            return (403, {"message": "no"}) if self.login is None else (200, {"login": self.login})
        if method == "POST" and path == f"/repos/{REPO}/issues/{PR}/comments":
            return 201, self._add(json.loads(body)["body"], self.login or "github-actions[bot]")
        prefix = f"/repos/{REPO}/issues/comments/"
        if method == "PATCH" and path.startswith(prefix):
            comment = self.comments[int(path.removeprefix(prefix))]
            comment["body"] = json.loads(body)["body"]
            return 200, comment
        return 404, {"message": "Not Found"}

    def marked(self, key: str = "report") -> list[dict]:
        return [c for c in self.comments.values() if f"<!-- agentdiff:{key} -->" in c["body"]]


@pytest.fixture
def github():
    fake = FakeGitHub(unrelated=130)  # the sticky comment lands on page 2

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            status, payload = fake.handle(
                self.command, self.path, self.headers, self.rfile.read(size)
            )
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _serve  # noqa: N815 - http.server's names

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield fake
    server.shutdown()
    server.server_close()


def environment(tmp_path: Path, github: FakeGitHub, **extra: str) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": PR}}))
    github_env = {
        "GITHUB_API_URL": github.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_RUN_ID": "4242",
        "GITHUB_EVENT_PATH": str(event),
        "INPUT_COMMENT": "true",
        "INPUT_GITHUB_TOKEN": TOKEN,
    }
    return action_env(tmp_path, **{**github_env, **extra})


def run_action(tmp_path, github, scenario="loop", **extra):
    env = environment(tmp_path, github, **extra)
    env.setdefault("INPUT_BASELINE", str(REAL / scenario / "baseline.json"))
    env.setdefault("INPUT_CANDIDATE", str(REAL / scenario / "candidate.json"))
    return run_script(tmp_path, env)


def test_the_action_creates_the_comment_then_updates_the_same_one(tmp_path, github):
    first = run_action(tmp_path, github, "loop")
    assert first.returncode == 1  # the gate's verdict, comment or not
    assert f"created comment 1131 on pull request #{PR}" in first.stdout
    [comment] = github.marked()
    assert comment["id"] == 1131
    assert comment["body"].startswith("<!-- agentdiff:report -->\n## ❌ AgentDiff: FAILED")
    methods = [(m, urlparse(u).path) for m, u, _ in github.requests]
    assert methods == [
        ("GET", f"/repos/{REPO}/issues/{PR}/comments"),
        ("GET", f"/repos/{REPO}/issues/{PR}/comments"),
        ("POST", f"/repos/{REPO}/issues/{PR}/comments"),
    ]
    headers = github.requests[-1][2]
    assert headers["accept"] == "application/vnd.github+json"
    assert headers["x-github-api-version"] == "2022-11-28"
    assert headers["authorization"] == f"Bearer {TOKEN}"

    github.requests.clear()
    second = run_action(tmp_path, github, "identical")
    assert second.returncode == 0
    assert "updated comment 1131" in second.stdout
    [comment] = github.marked()
    assert comment["body"].startswith("<!-- agentdiff:report -->\n## ✅ AgentDiff: PASSED")
    assert [m for m, _, _ in github.requests] == ["GET", "GET", "GET", "PATCH"]  # + GET /user
    assert urlparse(github.requests[-1][1]).path == f"/repos/{REPO}/issues/comments/1131"
    assert len(github.comments) == 131


@pytest.mark.parametrize("login", [None, "ci-bot"])  # the Actions token; a personal token
def test_a_comment_someone_else_wrote_with_the_marker_is_never_taken_over(tmp_path, github, login):
    """Anyone may paste the marker into a comment of theirs: the report must not land there
    (its author could edit it to read PASSED)."""
    github.login = login
    planted = github._add("<!-- agentdiff:report -->\nnice PR", "outsider")
    quoted = github._add("looks good\n<!-- agentdiff:report -->", login or "github-actions[bot]")
    run_action(tmp_path, github, "loop")
    assert planted["body"] == "<!-- agentdiff:report -->\nnice PR"
    assert quoted["body"] == "looks good\n<!-- agentdiff:report -->"  # not starting with it
    ours = [c for c in github.marked() if c["id"] not in (planted["id"], quoted["id"])]
    assert [c["user"]["login"] for c in ours] == [login or "github-actions[bot]"]
    run_action(tmp_path, github, "identical")
    again = [c for c in github.marked() if c["id"] not in (planted["id"], quoted["id"])]
    assert [c["id"] for c in again] == [ours[0]["id"]]  # its own comment, updated in place
    assert again[0]["body"].startswith("<!-- agentdiff:report -->\n## ✅ AgentDiff: PASSED")


def test_another_comment_key_keeps_its_own_comment(tmp_path, github):
    run_action(tmp_path, github, "identical")
    run_action(tmp_path, github, "identical", INPUT_COMMENT_KEY="nightly")
    assert len(github.marked()) == 1
    assert len(github.marked("nightly")) == 1


def test_bad_input_replaces_the_comment_with_the_error(tmp_path, github):
    run_action(tmp_path, github, "identical")
    done = run_action(tmp_path, github, "identical", INPUT_CANDIDATE=str(tmp_path / "nope.json"))
    assert done.returncode == 2
    [comment] = github.marked()
    assert "could not compare the runs" in comment["body"]


def test_api_refusal_is_a_warning_not_a_failed_gate(tmp_path, github):
    github.status = 403
    done = run_action(tmp_path, github, "identical")
    assert done.returncode == 0
    assert "::warning::agentdiff: GitHub API HTTP 403" in done.stdout
    assert "could not post the pull-request comment" in done.stdout
    github.status = None
    done = run_action(tmp_path, github, "identical", INPUT_GITHUB_TOKEN="wrong")  # noqa: S106
    assert done.returncode == 0
    assert "HTTP 401" in done.stdout
    assert github.marked() == []


def test_no_comment_unless_asked_or_outside_a_pull_request(tmp_path, github):
    run_action(tmp_path, github, "identical", INPUT_COMMENT="false")
    assert github.requests == []
    push_event = tmp_path / "push.json"
    push_event.write_text(json.dumps({"ref": "refs/heads/main"}))
    done = run_action(tmp_path, github, "identical", GITHUB_EVENT_PATH=str(push_event))
    assert "not a pull request" in done.stdout
    assert github.requests == []


def test_a_huge_report_is_cut_under_the_limit_with_a_note_and_a_link(tmp_path, github):
    rows = "\n".join(f"| {i} | get_weather | `{'x' * 60}` | ✓ |" for i in range(3000))
    report = f"## ❌ AgentDiff: FAILED\n\n<details><summary>steps</summary>\n\n```\n{rows}\n"
    path = tmp_path / "report.md"
    path.write_text(report)
    done = subprocess.run(
        [sys.executable, str(COMMENT), str(path)],
        env=environment(tmp_path, github),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [comment] = github.marked()
    body = comment["body"]
    assert len(report) > 200_000
    assert len(body.encode("utf-16-le")) // 2 < 65_536
    assert body.startswith("<!-- agentdiff:report -->\n## ❌ AgentDiff: FAILED")
    assert "cut to fit GitHub's 65,536-character comment limit" in body
    assert "[job summary](https://github.example/acme/agent/actions/runs/4242)" in body
    assert body.count("```") % 2 == 0
    assert body.count("<details>") == body.count("</details>")
    kept_rows = [line for line in body.splitlines() if line.startswith("| ")]
    assert kept_rows == rows.splitlines()[: len(kept_rows)]  # whole lines, in order


def test_action_yml_wires_the_comment_inputs():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["inputs"]["comment"]["default"] == "false"
    assert action["inputs"]["github-token"]["default"] == "${{ github.token }}"
    env = next(s for s in action["runs"]["steps"] if s.get("id") == "compare")["env"]
    assert env["INPUT_COMMENT"] == "${{ inputs.comment }}"
    assert env["INPUT_COMMENT_KEY"] == "${{ inputs.comment-key }}"
    assert env["INPUT_GITHUB_TOKEN"] == "${{ inputs.github-token }}"  # noqa: S105


def test_suite_mode_posts_the_suite_report_as_the_sticky_comment(tmp_path, github):
    for side in ("baseline", "candidate"):
        folder = tmp_path / side
        folder.mkdir()
        shutil.copy(REAL / "identical" / f"{side}.json", folder / "weather.json")
    done = run_action(
        tmp_path,
        github,
        INPUT_MODE="suite",
        INPUT_BASELINE=str(tmp_path / "baseline"),
        INPUT_CANDIDATE=str(tmp_path / "candidate"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [comment] = github.marked()
    assert comment["body"].startswith("<!-- agentdiff:report -->\n")
    assert "## ✅ AgentDiff suite: PASSED" in comment["body"]
    assert "**1 passed**" in comment["body"]
