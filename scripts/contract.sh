#!/usr/bin/env bash
# The API contract (docs/openapi.yaml) fuzzed against a real `hail server` by schemathesis, an independent
# fuzzer that reads the spec: every check, every phase (examples, coverage, fuzzing, stateful), a fixed seed and
# a bounded number of examples, once per role with that role's token. Any failure fails the run.
#   bash scripts/contract.sh [path/to/hail]      (make contract; part of make test)
# schemathesis comes from PyPI into a virtual environment of the project's own, .build/contract-venv, at the
# pinned version below; the first run installs it. Settings are in scripts/schemathesis.toml.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HAIL="${1:-$ROOT/.build/debug/hail}"
SCHEMATHESIS_VERSION=4.32.5
VENV="$ROOT/.build/contract-venv"
# Bounded so `make test` stays minutes, fixed so a failure reproduces with the same inputs.
EXAMPLES="${CONTRACT_EXAMPLES:-25}"
SEED="${CONTRACT_SEED:-20261203}"

say() { printf 'contract: %s\n' "$*" >&2; }

[ -x "$HAIL" ] || { say "no hail executable at $HAIL (swift build first)"; exit 1; }
# Debian's own interpreter, with python3-venv (scripts/setup.sh installs it).
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON="$(command -v python3)"
if ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
    say "installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

WORK="$(mktemp -d -t hail-contract.XXXXXX)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# Telemetry's own rate (one batch a minute per token) would answer most of the fuzzer's batches 429 before their
# bodies are read; without it every generated body reaches the checks the spec documents.
"$HAIL" server --host 127.0.0.1 --port 0 --db "$WORK/hail.db" --secret-file "$WORK/hail.secret" \
    --telemetry-per-token off >"$WORK/server.out" 2>"$WORK/server.log" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 300); do
    PORT="$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$WORK/server.out" | head -n 1)"
    [ -n "$PORT" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { say "hail server exited: $(tail -c 400 "$WORK/server.log")"; exit 1; }
    sleep 0.1
done
[ -n "$PORT" ] || { say "hail server did not say it was listening within 30 s"; exit 1; }
BASE="http://127.0.0.1:$PORT"
say "hail server on $BASE"

token() { "$HAIL" token --role "$1" --subject "$2" --secret-file "$WORK/hail.secret"; }
RIDER="$(token rider rider-contract)"
DRIVER="$(token driver driver-contract)"
OPERATOR="$(token operator operator-contract)"
# A share token is minted by the server for a trip: request one as the rider and share it.
SHARE="$("$PYTHON" - "$BASE" "$RIDER" <<'EOF'
import json, sys, urllib.request, uuid
base, rider = sys.argv[1], sys.argv[2]
def call(path, body, key=None):
    headers = {"Authorization": "Bearer " + rider, "Content-Type": "application/json"}
    if key: headers["Idempotency-Key"] = key
    request = urllib.request.Request(base + path, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)
trip = call("/v1/trips", {"pickup": {"lat": 43.7396, "lng": 7.4276}, "dropoff": {"lat": 43.7311, "lng": 7.4197},
                          "productID": "economy"}, key=str(uuid.uuid4()))
print(call("/v1/trips/%s/share" % trip["id"], {})["token"])
EOF
)"

status=0
run() {
    local role="$1" token="$2"
    shift 2
    say "schemathesis as $role ($EXAMPLES examples per operation, seed $SEED)"
    (cd "$WORK" && "$VENV/bin/st" --config-file "$ROOT/scripts/schemathesis.toml" run "$ROOT/docs/openapi.yaml" \
        --url "$BASE" -H "Authorization: Bearer $token" --checks all --seed "$SEED" --max-examples "$EXAMPLES" \
        --workers 1 --no-color "$@") || status=1
}
run rider "$RIDER" --include-tag rider
run driver "$DRIVER" --include-tag driver
run operator "$OPERATOR" --include-tag everyone
run share "$SHARE" --include-operation-id trip --include-operation-id sharePage
if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    say "hail server died during the run: $(tail -c 400 "$WORK/server.log")"
    status=1
fi
exit $status
