#!/usr/bin/env bash
# The step logic of the AgentDiff GitHub Action (action.yml); runs the same way locally.
#
# Inputs (environment):  INPUT_MODE    compare (default) or suite (see action_suite.sh)
#                        INPUT_BASELINE, INPUT_CANDIDATE  trace files (required)
#                        INPUT_ARGS    extra `agentdiff compare` flags, split on whitespace
#                                      (e.g. "--allow-loops --max-cost-increase 40")
#                        AGENTDIFF     the command to run (default: agentdiff)
#                        PYTHON        a Python to read the JSON report (default: python3)
#                        INPUT_COMMENT "true": post/update the sticky PR comment (needs
#                                      INPUT_GITHUB_TOKEN; see scripts/action_comment.py)
# Writes: the Markdown report to $GITHUB_STEP_SUMMARY (appended), `passed` and `divergence`
#         to $GITHUB_OUTPUT. Exit code: agentdiff's own (0 ok, 1 regression, 2 bad input);
#         a comment that cannot be posted is a warning, never a failed gate.
set -uo pipefail

baseline="${INPUT_BASELINE:?input 'baseline' is required}"
candidate="${INPUT_CANDIDATE:?input 'candidate' is required}"
agentdiff="${AGENTDIFF:-agentdiff}"
python="${PYTHON:-python3}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
outputs="${GITHUB_OUTPUT:-/dev/null}"
read -r -a extra <<< "${INPUT_ARGS:-}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

comment() {  # the sticky PR comment, when asked for
  if [ "${INPUT_COMMENT:-false}" = "true" ]; then
    "$python" "$(dirname "$0")/action_comment.py" "$1" \
      || echo "::warning::AgentDiff could not post the pull-request comment (see above)"
  fi
}

if [ "${INPUT_MODE:-compare}" = suite ]; then
  # the same inputs, naming folders of runs: every scenario judged (exits with its status)
  source "$(dirname "$0")/action_suite.sh"
fi

"$agentdiff" compare "$baseline" "$candidate" ${extra[@]+"${extra[@]}"} \
  --format json --output "$work/report.json"
status=$?

if [ "$status" -gt 1 ]; then
  {
    echo "## ⚠️ AgentDiff could not compare the runs"
    echo
    echo "\`agentdiff compare\` exited with $status (bad input or configuration); see the step log."
  } > "$work/error.md"
  cat "$work/error.md" >> "$summary"
  comment "$work/error.md"
  echo "passed=false" >> "$outputs"
  exit "$status"
fi

"$agentdiff" compare "$baseline" "$candidate" ${extra[@]+"${extra[@]}"} \
  --format markdown --output "$work/report.md"
cat "$work/report.md" >> "$summary"
cat "$work/report.md"
comment "$work/report.md"

divergence="$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["divergence"])' "$work/report.json")"
if [ "$status" -eq 0 ]; then passed=true; else passed=false; fi
{
  echo "passed=$passed"
  echo "divergence=$divergence"
} >> "$outputs"
exit "$status"
