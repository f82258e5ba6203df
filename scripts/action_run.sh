#!/usr/bin/env bash
# The step logic of the AgentDiff GitHub Action (action.yml); runs the same way locally.
#
# Inputs (environment):  INPUT_MODE    compare (default) or suite (see action_suite.sh)
#                        INPUT_BASELINE, INPUT_CANDIDATE  trace files (required)
#                        INPUT_ARGS    extra `agentdiff compare` flags, split like a shell would
#                                      (quotes work; a YAML block with one flag per line too);
#                                      --update-baseline, -o/--output and --help are refused
#                        AGENTDIFF     the command to run (default: agentdiff)
#                        PYTHON        a Python for scripts/action_helper.py (default: python3)
#                        INPUT_COMMENT "true": post/update the sticky PR comment (needs
#                                      INPUT_GITHUB_TOKEN; see scripts/action_comment.py)
# Writes: the Markdown report (or the input error) to $GITHUB_STEP_SUMMARY (appended), `passed`
#         and `divergence` (rounded to 4 digits) to $GITHUB_OUTPUT. One comparison run writes
#         both the JSON and the Markdown report. Exit code: agentdiff's own (0 ok, 1 regression,
#         2 bad input); a comment that cannot be posted is a warning, never a failed gate.
set -uo pipefail

baseline="${INPUT_BASELINE:?input 'baseline' is required}"
candidate="${INPUT_CANDIDATE:?input 'candidate' is required}"
agentdiff="${AGENTDIFF:-agentdiff}"
python="${PYTHON:-python3}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"
outputs="${GITHUB_OUTPUT:-/dev/null}"
helper="$(dirname "$0")/action_helper.py"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

comment() {  # the sticky PR comment, when asked for
  if [ "${INPUT_COMMENT:-false}" = "true" ]; then
    "$python" "$(dirname "$0")/action_comment.py" "$1" \
      || echo "::warning::AgentDiff could not post the pull-request comment (see above)"
  fi
}

input_error() {  # $1: exit status; the error lines are in $work/stderr
  cat "$work/stderr" >&2
  "$python" "$helper" error "$work/stderr" "$1" > "$work/error.md"
  cat "$work/error.md" >> "$summary"
  comment "$work/error.md"
  echo "passed=false" >> "$outputs"
  exit "$1"
}

if ! "$python" "$helper" split > "$work/args" 2> "$work/stderr"; then
  input_error 2
fi
extra=()
while IFS= read -r -d '' token; do extra+=("$token"); done < "$work/args"

if [ "${INPUT_MODE:-compare}" = suite ]; then
  # the same inputs, naming folders of runs: every scenario judged (exits with its status)
  source "$(dirname "$0")/action_suite.sh"
fi

"$agentdiff" compare "$baseline" "$candidate" ${extra[@]+"${extra[@]}"} \
  --output "json=$work/report.json" --output "markdown=$work/report.md" 2> "$work/stderr"
status=$?

if [ "$status" -gt 1 ] || [ ! -s "$work/report.json" ]; then
  input_error "$([ "$status" -gt 1 ] && echo "$status" || echo 2)"
fi
cat "$work/stderr" >&2

"$python" "$helper" summary "$work/report.md" >> "$summary"
cat "$work/report.md"
comment "$work/report.md"
"$python" "$helper" outputs "$work/report.json" "$status" >> "$outputs"
exit "$status"
