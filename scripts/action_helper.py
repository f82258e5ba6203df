"""Helpers of the AgentDiff GitHub Action (scripts/action_run.sh), in Python for exact parsing.

action_helper.py split           INPUT_ARGS split like a shell would (quotes; a YAML block
                                 with one flag per line works), NUL-separated on stdout;
                                 flags the action sets itself are refused (exit 2), in suite
                                 mode (INPUT_MODE=suite) --results too
action_helper.py error STDERR    the Markdown job-summary section for an input error,
                                 quoting agentdiff's own error lines
action_helper.py outputs REPORT  `passed=` and `divergence=` (rounded) from the JSON report
action_helper.py summary REPORT  the Markdown report as the job summary keeps it (cut under
                                 GitHub's 1 MiB limit, past which it shows none of it)
"""

from __future__ import annotations

import html
import json
import os
import shlex
import sys
from pathlib import Path

REFUSED = {
    "--update-baseline": "the action never writes over your baseline; run `agentdiff compare "
    "--update-baseline` in your own step",
    "--output": "the action chooses the output files itself (the report goes to the job summary)",
    "-o": "the action chooses the output files itself (the report goes to the job summary)",
    "--help": "`--help` prints usage instead of comparing; see docs/github-action.md",
    "-h": "`-h` prints usage instead of comparing; see docs/github-action.md",
}
REFUSED_IN_SUITE = {
    "--results": "the action writes the results folder itself; set the action's `results` "
    "input instead",
}
DIVERGENCE_DIGITS = 4


def _refusal(token: str, mode: str) -> str | None:
    name = token.split("=", 1)[0]
    refused = {**REFUSED, **REFUSED_IN_SUITE} if mode == "suite" else REFUSED
    if name in refused:
        return refused[name]
    if token.startswith("-o") and not token.startswith("--"):  # -oFILE
        return REFUSED["-o"]
    return None


def split_args(text: str, mode: str = "compare") -> list[str]:
    """The tokens of `args` (`mode`: compare or suite); a ValueError says what is wrong."""
    try:
        tokens = shlex.split(text, comments=False, posix=True)
    except ValueError as exc:
        msg = f"input 'args' is not valid shell-like quoting: {exc}"
        raise ValueError(msg) from None
    for token in tokens:
        why = _refusal(token, mode)
        if why is not None:
            msg = f"input 'args' must not contain {token.split('=', 1)[0]}: {why}"
            raise ValueError(msg)
    return tokens


def error_summary(stderr: str, status: int, mode: str = "compare") -> str:
    """The job-summary section when agentdiff could not compare (its error lines quoted)."""
    lines = [line for line in stderr.splitlines() if line.strip()][-20:]
    quoted = html.escape("\n".join(lines) or "(no message)")
    what = "run the suite" if mode == "suite" else "compare the runs"
    return (
        f"## ⚠️ AgentDiff could not {what}\n\n"
        f"`agentdiff` exited with {status} (bad input or configuration):\n\n"
        f"<pre>{quoted}</pre>\n"
    )


def outputs(report_path: str, status: int) -> str:
    """`passed` and `divergence` (rounded to 4 digits) for $GITHUB_OUTPUT."""
    with open(report_path, encoding="utf-8") as file:  # noqa: PTH123 - a script
        divergence = float(json.load(file)["divergence"])
    passed = "true" if status == 0 else "false"
    return f"passed={passed}\ndivergence={round(divergence, DIVERGENCE_DIGITS)}\n"


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "split":
        try:
            mode = os.environ.get("INPUT_MODE") or "compare"
            tokens = split_args(os.environ.get("INPUT_ARGS", ""), mode)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        sys.stdout.write("".join(f"{t}\0" for t in tokens))
        return 0
    if command == "error":
        with open(argv[2], encoding="utf-8", errors="replace") as file:  # noqa: PTH123
            mode = os.environ.get("INPUT_MODE") or "compare"
            sys.stdout.write(error_summary(file.read(), int(argv[3]), mode))
        return 0
    if command == "summary":
        from action_comment import SUMMARY, fit  # the same cut as the PR comment's (beside it)

        report = Path(argv[2]).read_text(encoding="utf-8")
        sys.stdout.write(fit(report, "", None, SUMMARY).removeprefix("\n"))
        return 0
    if command == "outputs":
        sys.stdout.write(outputs(argv[2], int(argv[3])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
