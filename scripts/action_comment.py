#!/usr/bin/env python3
"""Post or update the one sticky AgentDiff comment on a pull request (GitHub REST API).

Standard library only (the action runs it before anything else is needed). The comment is found
again by a hidden marker it starts with, `<!-- agentdiff:KEY -->` (KEY: the `comment-key` input,
so two AgentDiff steps keep two comments), and edited in place; a new one is created only when
none has it. Only a comment the token's own account wrote counts (`GET /user`; the Actions token,
which may not read it, posts as `github-actions[bot]`): anyone may write the marker in a comment
of theirs, and the report must not land in a comment its author can edit afterwards. A
report longer than GitHub's 65,536-character limit is cut at a line, with a note and a link to
the job summary, which always has the full report.

Usage: action_comment.py REPORT.md
Environment: INPUT_GITHUB_TOKEN (or GITHUB_TOKEN), GITHUB_REPOSITORY (owner/name),
GITHUB_EVENT_PATH (the pull_request event; or INPUT_PR_NUMBER), GITHUB_API_URL,
GITHUB_SERVER_URL, GITHUB_RUN_ID, INPUT_COMMENT_KEY.
Exit: 0 posted/updated (or not a pull request: nothing to do), 1 the API refused or failed.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LIMIT = 65_536
BUDGET = LIMIT - 536  # margin for GitHub's own counting
PAGE = 100
TIMEOUT_S = 30


def marker(key: str) -> str:
    return f"<!-- agentdiff:{key} -->"


def _size(text: str) -> int:
    """Characters as GitHub counts them at worst (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass(frozen=True)
class Limit:
    """How much GitHub keeps of a text, how it counts it, and what the cut's note calls it."""

    budget: int
    size: Callable[[str], int]
    words: str
    full: str | None = None
    """Where the whole report is (None: the job summary, linked)."""


COMMENT = Limit(BUDGET, _size, "GitHub's 65,536-character comment limit")
SUMMARY = Limit(1_000_000, _bytes, "GitHub's 1 MiB job-summary limit", "the step log")
"""A step summary over 1 MiB is dropped whole ("upload aborted"): a huge report showed none."""


def fit(report: str, head: str, link: str | None, limit: Limit | None = None) -> str:
    """`head` + `report`, cut at a line (fences and <details> closed) to fit `limit`."""
    limit = limit or COMMENT
    body = f"{head}\n{report}"
    if limit.size(body) <= limit.budget:
        return body
    where = limit.full or (f"the [job summary]({link})" if link else "the job summary")
    note = (
        f"\n\n---\n✂️ Details cut to fit {limit.words} "
        f"(the report has {len(report):,} characters); the full report is in {where}.\n"
    )
    room = limit.budget - limit.size(head) - limit.size(note) - 64
    kept = report
    while limit.size(kept) > room:
        kept = kept[: max(0, len(kept) - max(limit.size(kept) - room, 256))]
    kept = kept[: kept.rfind("\n")] if "\n" in kept else kept
    if kept.count("```") % 2:
        kept += "\n```"
    kept += "\n</details>" * max(0, kept.count("<details") - kept.count("</details>"))
    return f"{head}\n{kept}{note}"


ACTIONS_BOT = "github-actions[bot]"
"""Who the Actions token (`GITHUB_TOKEN`) comments as; it may not read `GET /user`."""


class GitHub:
    def __init__(self, api: str, repository: str, token: str) -> None:
        self.api = api.rstrip("/")
        self.base = f"{self.api}/repos/{repository}"
        self.token = token

    def request(self, method: str, path: str, payload: Any = None, *, root: bool = False) -> Any:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            (self.api if root else self.base) + path,
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self.token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "agentdiff-action",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.loads(response.read() or b"null")

    def login(self) -> str:
        """The account this token comments as."""
        try:
            return str(self.request("GET", "/user", root=True)["login"])
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403, 404):  # an installation token: it posts as the Actions bot
                return ACTIONS_BOT
            raise

    def find(self, number: int, tag: str) -> int | None:
        """Our comment that starts with `tag` (its author is asked for only once one does)."""
        page, author = 1, None
        while True:
            comments = self.request("GET", f"/issues/{number}/comments?per_page={PAGE}&page={page}")
            for comment in comments:
                if not (comment.get("body") or "").startswith(tag):
                    continue
                author = author or self.login()
                if (comment.get("user") or {}).get("login") == author:
                    return int(comment["id"])
            if len(comments) < PAGE:
                return None
            page += 1

    def upsert(self, number: int, tag: str, body: str) -> tuple[str, int]:
        existing = self.find(number, tag)
        if existing is None:
            created = self.request("POST", f"/issues/{number}/comments", {"body": body})
            return "created", int(created["id"])
        self.request("PATCH", f"/issues/comments/{existing}", {"body": body})
        return "updated", existing


def pull_request_number(env: dict[str, str]) -> int | None:
    given = env.get("INPUT_PR_NUMBER", "").strip()
    if given:
        return int(given)
    event_path = env.get("GITHUB_EVENT_PATH")
    if not event_path or not Path(event_path).is_file():
        return None
    event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    number = (event.get("pull_request") or {}).get("number")
    if number is None and (event.get("issue") or {}).get("pull_request"):
        number = event["issue"]["number"]
    return int(number) if number is not None else None


def main(argv: list[str], env: dict[str, str]) -> int:
    report = Path(argv[1]).read_text(encoding="utf-8")
    token = env.get("INPUT_GITHUB_TOKEN") or env.get("GITHUB_TOKEN") or ""
    repository = env.get("GITHUB_REPOSITORY", "")
    number = pull_request_number(env)
    if number is None:
        print("agentdiff: not a pull request; no comment posted")
        return 0
    if not token or not repository:
        print("::warning::agentdiff: comment needs github-token and GITHUB_REPOSITORY")
        return 1
    server, run_id = env.get("GITHUB_SERVER_URL", "https://github.com"), env.get("GITHUB_RUN_ID")
    link = f"{server}/{repository}/actions/runs/{run_id}" if run_id else None
    tag = marker(env.get("INPUT_COMMENT_KEY") or "report")
    github = GitHub(env.get("GITHUB_API_URL", "https://api.github.com"), repository, token)
    try:
        action, comment_id = github.upsert(number, tag, fit(report, tag, link))
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode("utf-8", "replace")[:300]
        print(f"::warning::agentdiff: GitHub API HTTP {exc.code} on {exc.url}: {detail}")
        return 1
    except (urllib.error.URLError, OSError, ValueError) as exc:
        print(f"::warning::agentdiff: cannot reach the GitHub API: {exc}")
        return 1
    print(f"agentdiff: {action} comment {comment_id} on pull request #{number}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv, dict(os.environ)))
