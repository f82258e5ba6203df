#!/usr/bin/env bash
# Capture the LangChain/LangGraph sources with a real Phoenix server in the loop.
# Usage: scripts/capture/phoenix.sh
# Starts Phoenix (its own virtualenv, .venv-capture-phoenix, SQLite in a temporary folder) on free
# 127.0.0.1 ports, runs `capture.sh langchain` with PHOENIX_URL set (each run's spans are sent to
# it over OTLP/HTTP and read back from its REST API as the `phoenix` shape), then stops it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
venv="$root/.venv-capture-phoenix"
python=${PYTHON:-python3}
CAPTURE_VENV_ONLY=1 "$here/capture.sh" phoenix
free_port() { "$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
work=$(mktemp -d)
port=$(free_port)
PHOENIX_WORKING_DIR="$work" PHOENIX_HOST=127.0.0.1 PHOENIX_PORT="$port" PHOENIX_GRPC_PORT="$(free_port)" \
  PHOENIX_TELEMETRY_ENABLED=false "$venv/bin/phoenix" serve >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$port/v1/projects" >/dev/null && break
  sleep 1
done
curl -sf "http://127.0.0.1:$port/v1/projects" >/dev/null || { tail -20 "$work/server.log"; exit 1; }
PHOENIX_URL="http://127.0.0.1:$port" "$here/capture.sh" langchain
