#!/usr/bin/env bash
# The CPU a `hail drive --auto` app uses while every request it sends waits on a server that never answers (a
# paused backend behind a live balancer, as in the fault suite): its user+system time over a window, read from
# /proc/PID/stat, as a share of one core. A one-off measurement, not a test (a timing): docs/RELIABILITY.md keeps
# the figures.
#   scripts/http-wait-cpu.sh [HAIL_BINARY] [SECONDS]     (default .build/debug/hail, 20 s)
set -euo pipefail
HAIL=${1:-.build/debug/hail}
WINDOW=${2:-20}
PORT=$((20000 + RANDOM % 20000))
# Accepts every connection, reads what comes, never writes a byte.
python3 - "$PORT" <<'PY' &
import socket, sys, threading
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[1])))
server.listen(128)
held = []
def drain(conn):
    while conn.recv(65536):
        pass
while True:
    conn, _ = server.accept()
    held.append(conn)
    threading.Thread(target=drain, args=(conn,), daemon=True).start()
PY
SILENT=$!
trap 'kill $SILENT ${APP:-} 2>/dev/null || true' EXIT
sleep 1
"$HAIL" drive --server "http://127.0.0.1:$PORT" --token silent --auto --json --start 43.7396,7.4276 >/dev/null 2>&1 &
APP=$!
sleep 3  # past start-up: its first requests are out and waiting
ticks() { awk '{print $14 + $15}' "/proc/$APP/stat"; }
HZ=$(getconf CLK_TCK)
BEFORE=$(ticks)
sleep "$WINDOW"
AFTER=$(ticks)
WAITING=$(ss -Htn state established "( dport = :$PORT )" | wc -l)
echo "$HAIL: $WAITING connections waiting, $((AFTER - BEFORE)) ticks in ${WINDOW} s = $(awk -v t=$((AFTER - BEFORE)) -v hz="$HZ" -v w="$WINDOW" \
  'BEGIN { printf "%.1f", 100 * t / hz / w }') % of a core; load: $(cut -d' ' -f1-3 /proc/loadavg)"
