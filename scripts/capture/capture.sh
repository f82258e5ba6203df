#!/usr/bin/env bash
# Capture real SDK-produced fixtures for one source, offline, with a scripted model.
# Usage: scripts/capture/capture.sh SOURCE   (SOURCE = the name of scripts/capture/SOURCE.py)
#        CAPTURE_VENV_ONLY=1 scripts/capture/capture.sh NAME   only sets up .venv-capture-NAME
#        from requirements-NAME.txt (a tool a capture needs, e.g. the Phoenix server)
# Each source gets its own virtualenv (.venv-capture-SOURCE) from requirements-SOURCE.txt, so SDK
# pins never meet each other or agentdiff's runtime dependencies.
set -euo pipefail
source_name=${1:?usage: capture.sh SOURCE}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/.venv-capture-$source_name"
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
fi
"$venv/bin/pip" install -q -r "$here/requirements-$source_name.txt"
[ -z "${CAPTURE_VENV_ONLY:-}" ] || exit 0
cd "$root"
"$venv/bin/python" "$here/$source_name.py" "$root/tests/fixtures/real"
