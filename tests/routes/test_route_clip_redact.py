"""A route shown in part never shows a secret its whole skeleton's redaction hid.

A route's skeleton is carried whole (`skeleton`) and in parts (`skeleton_parts`, joined by
` → `), and a long one is shown cut between two parts. Redacted part by part, a secret that
spans a boundary (a user pattern `tool_003 → gpt → tool_004`) matched in no part: the cut route
of `routes` (terminal, markdown, HTML) and of `compare-runs` showed it in clear, as did
`skeleton_parts` in `routes -f json --redact`, while `skeleton` was redacted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.redact import Redactor, redact_report_data
from tests.routes.steps import step

SPANNED = "tool_003 → gpt → tool_004"
SPANNING = re.escape(SPANNED)
INSIDE = r"tool_01[0-9]"
"""A pattern within one part (a step's name): redacted as before."""
TURNS = 150
"""Model turns, each calling one tool: a skeleton of ~2,500 characters, cut in every table."""


def _run(run_id: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for k in range(TURNS):
        model = len(steps)
        steps.append(step(model, "llm_call", "gpt", tokens=100, payload={"i": model}))
        steps.append(step(model + 1, "tool_call", f"tool_{k:03}", model, payload={"i": model + 1}))
    return {"trace_id": run_id, "agent_name": "agent", "steps": steps}


def _folder(root: Path, name: str) -> Path:
    folder = root / name / "long"
    folder.mkdir(parents=True)
    for k in range(3):
        (folder / f"r{k}.json").write_text(json.dumps(_run(f"{name}{k}")), encoding="utf-8")
    return folder


def _invoke(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _plain(out: str) -> str:
    """Markdown's escapes (`tool\\_003`) and HTML's line breaks undone."""
    return re.sub(r"\s+", " ", out.replace("\\_", "_").replace("&rarr;", "→"))


PATTERNS = ("--redact-patterns", SPANNING, "--redact-patterns", INSIDE)


def test_a_secret_spanning_parts_of_a_cut_route_is_shown_in_no_format(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "runs")
    shown = {
        fmt: _plain(_invoke("routes", folder, *PATTERNS, "-f", fmt))
        for fmt in ("terminal", "markdown", "html")
    }
    for fmt, out in shown.items():
        assert "… (+" in out, fmt  # the route is cut
        assert "tool_002 → gpt → " in out, fmt  # the steps before the secret are shown
        assert SPANNED not in out, fmt
        assert "tool_003 → gpt" not in out, fmt
        assert "[redacted:" in out, fmt
        assert "tool_012" not in out, fmt  # a secret inside one step, as before
    data = orjson.loads(_invoke("routes", folder, *PATTERNS, "-f", "json", "--redact"))
    (section,) = data["scenarios"].values()
    (cluster,) = section["clusters"]
    whole = cluster["skeleton"]
    parts = cluster["skeleton_parts"]
    assert SPANNED not in whole
    assert " → ".join(p["shown"] for p in parts) == whole  # the parts read as the whole
    assert not any(p["shown"] == "tool_003" for p in parts)
    assert sum(p["steps"] for p in parts) == 2 * TURNS
    assert "tool_012" not in json.dumps(parts, ensure_ascii=False)
    assert "tool_002" in whole  # only the secret is hidden


def test_compare_runs_markdown_never_shows_a_secret_spanning_parts(tmp_path: Path) -> None:
    base, cand = _folder(tmp_path, "base"), _folder(tmp_path, "cand")
    out = _plain(_invoke("compare-runs", base, cand, *PATTERNS, "-f", "markdown"))
    assert "… (+" in out
    assert "tool_003 → gpt" not in out
    assert "tool_012" not in out
    data = orjson.loads(_invoke("compare-runs", base, cand, *PATTERNS, "-f", "json", "--redact"))
    (scenario,) = data["scenarios"]
    for cluster in scenario["routes"]["clusters"]:
        parts = [p["shown"] for p in cluster["skeleton_parts"]]
        assert " → ".join(parts) == cluster["skeleton"]
        assert "tool_003" not in parts


def test_json_redaction_keeps_every_route_in_parts_whole() -> None:
    """`side_route_parts` (a side's other route) is redacted as `side_routes` is."""
    shown = ["plan", "name_", "tool_001", "answer"]
    parts = [{"shown": s, "steps": 1} for s in shown]
    whole = " → ".join(shown)
    row = {
        "skeleton": whole,
        "skeleton_parts": parts,
        "side_routes": {"baseline": whole},
        "side_route_parts": {"baseline": parts},
    }
    out = redact_report_data(row, Redactor(patterns=("name_ → tool_001",)))
    for got, route in (
        (out["skeleton_parts"], out["skeleton"]),
        (out["side_route_parts"]["baseline"], out["side_routes"]["baseline"]),
    ):
        assert "name_" not in route
        assert " → ".join(p["shown"] for p in got) == route
        assert [p["steps"] for p in got] == [1, 2, 1]


def test_redacted_parts_are_cut_from_the_redacted_whole() -> None:
    sep = " → "
    parts = ["plan", "name_", "tool_001", "answer"]
    redactor = Redactor(patterns=("name_ → tool_001",))
    merged = redactor.parts(parts, sep)
    assert [n for _, n in merged] == [1, 2, 1]
    assert sep.join(s for s, _ in merged) == redactor.text(sep.join(parts))
    assert "name_" not in merged[1][0]
    inside = Redactor(patterns=("tool_0+1",))
    assert inside.parts(parts, sep) == [(inside.text(p), 1) for p in parts]
    assert inside.parts(parts, sep)[2][0].startswith("…[redacted:")
    # a built-in credential that runs on past its part (a private key block) takes the rest
    key = ["plan", "-----BEGIN PRIVATE KEY-----", "abc", "answer"]
    shown = Redactor().parts(key, sep)
    assert shown[0] == ("plan", 1)
    assert sum(n for _, n in shown) == len(key)
    assert "abc" not in "".join(s for s, _ in shown)
    assert Redactor(enabled=False).parts(parts, sep) == [(p, 1) for p in parts]
