"""Cookbook: diff two Claude Code sessions (and two Codex CLI sessions) like any agent run.

Offline, on real sessions committed under `tests/fixtures/real/claude_code/` and `.../codex/`
(written by the real CLIs against a scripted model: `scripts/capture/claude_code.py`, `codex.py`).
On your machine the files are `~/.claude/projects/<project>/<session>.jsonl` and
`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`: `agentdiff sessions` lists them and
`agentdiff compare claude:<id> claude:<id>` compares two.

1. Load a Claude Code transcript; its sub-agent transcripts (`<session>/subagents/`) are read too
   and nest under the `Agent` call that started them. Print the step tree.
2. Diff the `loop` pair: the candidate ran the same failing Bash command four times.
3. Diff the `error_retry` pair: one failing command, then a corrected retry that succeeded.
4. The same for Codex rollouts: the `loop` pair.

Run: `python cookbooks/ingestion_claude_code.py`
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from agentdiff import compare, load_trace
from agentdiff.render import RenderOptions, render
from agentdiff.render.tree import trace_tree

REAL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real"


def main() -> None:
    console = Console(width=120)
    session = load_trace(REAL / "claude_code" / "identical" / "baseline.session.jsonl")
    totals = session.total_tokens
    console.rule("A Claude Code session (with its Explore sub-agent)")
    console.print(
        f"format: {(session.metadata or {})['source_format']}, session {session.trace_id}, "
        f"{len(session.steps)} steps, {totals.total_tokens if totals else '?'} tokens"
    )
    console.print(trace_tree(session))

    pairs = (
        ("claude_code", "loop", "session"),
        ("claude_code", "error_retry", "session"),
        ("codex", "loop", "rollout"),
    )
    for source, scenario, shape in pairs:
        console.rule(f"{source} {scenario}: baseline vs candidate")
        report = compare(
            load_trace(REAL / source / scenario / f"baseline.{shape}.jsonl"),
            load_trace(REAL / source / scenario / f"candidate.{shape}.jsonl"),
        )
        print(render(report, "terminal", RenderOptions(width=console.width)))


if __name__ == "__main__":
    main()
