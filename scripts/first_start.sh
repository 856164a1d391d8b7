#!/usr/bin/env bash
# First start on an empty kernel cache: seconds from `make serve` (pip already done) to the first 200 and to the
# first completed default run (one session of scripts/http_load_test.py clicking Run as soon as the page answers).
# Usage: scripts/first_start.sh [PORT]   (run it in a fresh clone; it stops the server and its warm-up at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${1:-8765}
NUMBA_CACHE_DIR=$(mktemp -d) INTEGRATOR_LAB_CACHE_DIR=$(mktemp -d)
export NUMBA_CACHE_DIR INTEGRATOR_LAB_CACHE_DIR
t0=$(date +%s.%N)
setsid make serve PORT="$PORT" > "$INTEGRATOR_LAB_CACHE_DIR/serve.log" 2>&1 &
server=$!
trap 'kill -TERM -- -$server 2>/dev/null || true' EXIT
until curl -sf -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.1; done
t1=$(date +%s.%N)
.venv/bin/python scripts/http_load_test.py --url "http://127.0.0.1:$PORT" --sessions 1 --timeout 300 > /dev/null
t2=$(date +%s.%N)
python3 -c "print(f'first 200: {$t1 - $t0:.1f} s after make serve; first default run completed: {$t2 - $t0:.1f} s "\
"after make serve, {$t2 - $t1:.1f} s after the page')"
