# The AgentDiff GitHub Action in suite mode (action.yml, `mode: suite`): sourced by
# scripts/action_run.sh when INPUT_MODE=suite, after it has read the common inputs below into
# $baseline, $candidate, $extra, $agentdiff, $python, $summary, $outputs and made $work.
#
# Inputs (environment):  INPUT_BASELINE, INPUT_CANDIDATE  folders of runs (required)
#                        INPUT_ARGS    extra `agentdiff suite` flags, split like a shell would
#                                      (e.g. "--layout files --jobs 2 --max-cost-increase 40");
#                                      --results, -o/--output, --update-baseline and --help are
#                                      refused (scripts/action_helper.py split)
#                        INPUT_RESULTS folder for suite.json and the result tables (optional)
#                        AGENTDIFF     the command to run (default: agentdiff)
#                        PYTHON        a Python to read the JSON report (default: python3)
# Writes: the Markdown suite report to $GITHUB_STEP_SUMMARY (appended); `passed`, `summary`,
#         `regressed`, `errors`, `partly_loaded` to $GITHUB_OUTPUT. Exit code: agentdiff's own
#         (0 ok, 1 a scenario regressed, 2 bad input or a run that could not be loaded).
results="${INPUT_RESULTS:-$work/results}"

"$agentdiff" suite "$baseline" "$candidate" ${extra[@]+"${extra[@]}"} \
  --results "$results" --format markdown --output "$work/suite.md" --no-progress \
  2> "$work/stderr"
status=$?

# The report of this run is in the fresh $work: a suite.json left in a kept results folder by an
# earlier run must not stand in for one that failed (its outputs would say passed=true).
if [ ! -s "$work/suite.md" ]; then
  input_error "$([ "$status" -gt 1 ] && echo "$status" || echo 2)"  # its lines in the summary
fi
cat "$work/stderr" >&2

"$python" "$helper" summary "$work/suite.md" >> "$summary"
cat "$work/suite.md"
comment "$work/suite.md"  # the sticky PR comment (action_run.sh), when asked for
"$python" - "$results/suite.json" >> "$outputs" <<'PY'
import json, sys
counts = json.load(open(sys.argv[1], encoding="utf-8"))["counts"]
partly = counts.get("partly_loaded", 0)
failed = counts["regressed"] or counts["errors"] or partly
print(f"passed={'false' if failed else 'true'}")
print(f"regressed={counts['regressed']}")
print(f"errors={counts['errors']}")
print(f"partly_loaded={partly}")
PY
echo "summary=$("$agentdiff" results "$results" | head -n 1)" >> "$outputs"
exit "$status"
