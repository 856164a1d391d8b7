#!/usr/bin/env bash
# Seconds from `make serve` (pip already done) to the first 200 (the start page, app.starting, or the dashboard),
# to the dashboard's page, and to the first completed default run (one session of scripts/http_load_test.py
# clicking Run as soon as the dashboard answers).
# Usage: scripts/first_start.sh [--warm] [--hog] [PORT]
#   default: an empty kernel cache (a fresh clone: the kernels compile in the background, app.warm)
#   --warm:  the kernels compiled already (this clone's numba cache), a new server cache directory (no
#            calibration or lesson demos stored: app.warm --serve computes them in the background)
#   --hog:   two CPU-bound processes run beside the server (a busy 2-core machine), stopped at the end
# Run it in a clone with its .venv (`make serve` once); without one, $PYTHON (default python3) runs gunicorn.
# It stops the server, its warm-up and the hogs at the end, and waits for the server to exit.
set -euo pipefail
cd "$(dirname "$0")/.."
warm=0 hog=0 PORT=8765
for arg in "$@"; do
	case $arg in
	--warm) warm=1 ;;
	--hog) hog=1 ;;
	*) PORT=$arg ;;
	esac
done
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] && PY=.venv/bin/python
INTEGRATOR_LAB_CACHE_DIR=$(mktemp -d)
export INTEGRATOR_LAB_CACHE_DIR
if [ $warm = 0 ]; then
	NUMBA_CACHE_DIR=$(mktemp -d)
	export NUMBA_CACHE_DIR
fi
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null || true; done
	# until the server has let go of its port: a start right after this one would otherwise wait for it
	# (gunicorn retries a port in use once a second) and time the previous server's stop, not its own start
	wait "${pids[@]}" 2>/dev/null || true
}
trap cleanup EXIT
if [ $hog = 1 ]; then
	for _ in 1 2; do
		"$PY" -c 'while True: pass' &
		pids+=($!)
	done
fi
t0=$(date +%s.%N)
if [ -x .venv/bin/gunicorn ]; then
	setsid make serve PORT="$PORT" >"$INTEGRATOR_LAB_CACHE_DIR/serve.log" 2>&1 &
else
	setsid "$PY" -m gunicorn -c app/gunicorn_conf.py --bind "127.0.0.1:$PORT" app:server \
		>"$INTEGRATOR_LAB_CACHE_DIR/serve.log" 2>&1 &
fi
pids+=($!)
until curl -sf -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.05; done
t0b=$(date +%s.%N)
until curl -sf "http://127.0.0.1:$PORT/" | grep -q _dash-config; do sleep 0.05; done
t1=$(date +%s.%N)
"$PY" scripts/http_load_test.py --url "http://127.0.0.1:$PORT" --sessions 1 --timeout 300 >/dev/null
t2=$(date +%s.%N)
# the background warm-up runs in its own session (app/gunicorn_conf.py): stopped with the server (on_exit)
"$PY" -c "print(f'$([ $warm = 1 ] && echo warm || echo cold)$([ $hog = 1 ] && echo ', two CPU hogs'): first 200 \
{$t0b - $t0:.1f} s after start; the dashboard {$t1 - $t0:.1f} s; first default run completed {$t2 - $t0:.1f} s \
after start, {$t2 - $t1:.1f} s after the dashboard')"
grep -E "Listening at|dashboard|kernels loaded|background|calibration|default run ready" "$INTEGRATOR_LAB_CACHE_DIR/serve.log" \
	| sed 's/^/  log: /' || true
