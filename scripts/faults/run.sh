#!/usr/bin/env bash
# Hail's fault-injection suite: three `hail server` nodes on PostgreSQL 15 and Redis 7, each process in a
# network namespace of its own behind an nginx balancer, real rider and driver apps riding through it, a
# nemesis, and checkers of issue 37's invariants. Needs root (namespaces, iptables, tc).
#
#   scripts/faults/run.sh --scenario redis-pause-30s [--seed 1]
#   scripts/faults/run.sh --all [--seed 1]          every scenario, one after another
#   scripts/faults/run.sh --short                    the short form: one seed of a Redis, a PostgreSQL, a
#                                                    partition and a clock scenario, about 12 minutes, strict
#   scripts/faults/run.sh --list
#
# Options: --hail PATH (default .build/release/hail), --out DIR (default .build/faults), --warmup S (45),
# --tail S (after the heal, 95), --seeds "1 2 3" (with --all), --strict (exit 2 when an invariant fails).
# Environment: FAULTS_DRIVERS (10), FAULTS_RIDERS (10), FAULTS_LOCATION_DRIVERS (200), FAULTS_CANARY_DRIVERS
# (6), FAULTS_CLOCK_MODE (flag when the binary has --clock-offset-seconds, else faketime).
# Each run writes DIR/<scenario>-seed<N>/: the clients' event logs, the samples, the database and Redis dumps,
# check.json and report.md (scenario by invariant, pass or fail with the evidence); DIR/summary.md has one row
# per run. The exit status is 0 even when invariants fail (that is a result), 2 with --strict (and --short);
# 1 when the suite itself broke.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${FAULTS_ROOT:-$(cd "$HERE/../.." && pwd)}
# bash reads a script as it runs it, so an edit of these files during a run (an hour for --all) would change
# the run under way: the suite runs from a copy of itself made at the start.
if [ -z "${FAULTS_SNAPSHOT:-}" ]; then
    FAULTS_SNAPSHOT=$(mktemp -d /tmp/hail-faults.XXXXXX) || { echo "faults: no temporary directory" >&2; exit 1; }
    cp -r "$HERE"/*.sh "$HERE"/*.py "$FAULTS_SNAPSHOT"/
    export FAULTS_SNAPSHOT FAULTS_ROOT=$ROOT
    exec bash "$FAULTS_SNAPSHOT/run.sh" "$@"
fi
trap '[ "$HERE" = "$FAULTS_SNAPSHOT" ] && rm -rf "$FAULTS_SNAPSHOT"' EXIT
source "$HERE/lib.sh"
source "$HERE/cluster.sh"
source "$HERE/nemesis.sh"
source "$HERE/load.sh"
source "$HERE/scenarios.sh"

HAIL=$ROOT/.build/release/hail
OUT=$ROOT/.build/faults
WARMUP=45
TAIL=95
SEEDS=""
FAULTS_SEED=1
MODE=""
CHOSEN=()
STRICT=0
# Seconds the fault waits, after the warm-up, for trips searching, assigned and on their way at once.
SETTLE=30
# The short form (make faults-short): a Redis pause, a PostgreSQL crash, one node cut from Redis, a clock ahead.
SHORT=(redis-pause-30s pg-crash-restart node1-redis-dropped-30s node2-clock-plus-120s)
while [ $# -gt 0 ]; do
    case "$1" in
    --scenario) CHOSEN+=("$2"); MODE=one; shift 2 ;;
    --all) MODE=all; shift ;;
    # A shorter warm-up and settling, and a tail that ends just after the heal+80 s dump I5 reads.
    --short) MODE=short; CHOSEN=("${SHORT[@]}"); STRICT=1; WARMUP=30; SETTLE=15; TAIL=85; OUT=${OUT_GIVEN:-$ROOT/.build/faults-short}; shift ;;
    --strict) STRICT=1; shift ;;
    --seed) FAULTS_SEED=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --hail) HAIL=$(realpath "$2"); shift 2 ;;
    --out) OUT=$(realpath -m "$2"); OUT_GIVEN=$OUT; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --tail) TAIL=$2; shift 2 ;;
    --list) for s in "${SCENARIOS[@]}"; do IFS='|' read -r n d w <<<"$s"; printf '%-28s %3s s  %s\n' "$n" "$d" "$w"; done; exit 0 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
[ -n "$MODE" ] || { echo "say --scenario NAME or --all (see --help, --list)" >&2; exit 64; }
[ "$(id -u)" -eq 0 ] || die "the suite needs root (network namespaces, iptables, tc)"
[ -x "$HAIL" ] || die "no hail binary at $HAIL: swift build -c release --product hail"
[ "$MODE" = all ] && mapfile -t CHOSEN < <(scenario_names)
for s in "${CHOSEN[@]}"; do scenario_field "$s" 0 >/dev/null || die "no scenario '$s' (see --list)"; done
[ -n "$SEEDS" ] || SEEDS=$FAULTS_SEED
# A node's clock is offset by hail server's own test option when the binary has it (libfaketime costs the
# node a third of a core and is no part of the product), else by libfaketime.
if [ -z "${FAULTS_CLOCK_MODE:-}" ]; then
    if grep -qaF -- --clock-offset-seconds "$HAIL"; then FAULTS_CLOCK_MODE=flag; else FAULTS_CLOCK_MODE=faketime; fi
fi
export FAULTS_CLOCK_MODE

install_missing() {
    local missing=()
    [ -x "$PG_BIN/initdb" ] || missing+=(postgresql-15)
    command -v redis-server >/dev/null || missing+=(redis-server)
    command -v nginx >/dev/null || missing+=(nginx-light)
    command -v iptables >/dev/null || missing+=(iptables)
    command -v tc >/dev/null || missing+=(iproute2)
    command -v faketime >/dev/null || missing+=(faketime)
    command -v curl >/dev/null || missing+=(curl)
    command -v jq >/dev/null || missing+=(jq)
    command -v openssl >/dev/null || missing+=(openssl)
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]}"
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
        PG_BIN=$(ls -d /usr/lib/postgresql/15/bin)
    fi
}

# Ends every process of the run (by the pids it recorded), then the namespaces. Runs on any exit.
teardown() {
    [ -n "${RUN:-}" ] && [ -d "$RUN/pids" ] || { bash "$HERE/topology.sh" down 2>/dev/null; return 0; }
    heal_all 2>/dev/null
    stop_load 2>/dev/null
    local pid
    [ -f "$RUN/pids/lb" ] && kill "$(cat "$RUN/pids/lb")" 2>/dev/null
    for i in "${NODES[@]}"; do node_stop "$i" 2>/dev/null; done
    [ -f "$RUN/pids/redis" ] && { kill -CONT "$(redis_pid)" 2>/dev/null; kill "$(redis_pid)" 2>/dev/null; }
    [ -f "$RUN/pg/postmaster.pid" ] && pg_stop immediate 2>/dev/null
    sleep 0.5
    bash "$HERE/topology.sh" down 2>/dev/null
    return 0
}
trap 'teardown; [ "$HERE" = "$FAULTS_SNAPSHOT" ] && rm -rf "$FAULTS_SNAPSHOT"' EXIT
trap 'say "interrupted"; exit 130' INT TERM

# Trips per state now, one line "state count" each.
trip_states() { psql_run -tAF' ' -c "SELECT state, count(*) FROM trips GROUP BY state" 2>/dev/null; }

dump_state() {
    local tag=$1
    psql_run -tA -c "SELECT coalesce(json_agg(t), '[]') FROM (SELECT id, rider_id, driver_id, state, version, active, updated_at FROM trips) t" \
        >"$RUN/dump-$tag-trips.json" 2>>"$RUN/dump-errors.log"
    psql_run -tA -c "SELECT coalesce(json_agg(e ORDER BY trip_id, version), '[]') FROM (SELECT *, xmin::text::bigint AS xid FROM trip_events) e" \
        >"$RUN/dump-$tag-events.json" 2>>"$RUN/dump-errors.log"
    # Each load driver's Redis hash (the checkers compare it with PostgreSQL).
    local d
    : >"$RUN/dump-$tag-redis.txt"
    for d in $(cat "$RUN/clients/drivers.txt"); do
        printf '%s\t%s\n' "$d" "$(redis_run --no-raw hgetall "hail:ingest:{driver:$d}" 2>/dev/null | python3 -c 'import sys,json,re
lines=[l.rstrip("\n") for l in sys.stdin]
vals=[]
for l in lines:
    m=re.match(r"^\s*\d+\) (.*)$", l)
    if m: vals.append(m.group(1))
def unq(v):
    try: return json.loads(v)
    except Exception: return v
vals=[unq(v) for v in vals]
print(json.dumps(dict(zip(vals[0::2], vals[1::2]))))')" >>"$RUN/dump-$tag-redis.txt"
    done
    # The trips again after Redis: a disagreement counts only when it holds on both sides of Redis's dump.
    psql_run -tA -c "SELECT coalesce(json_agg(t), '[]') FROM (SELECT id, rider_id, driver_id, state, version, active, updated_at FROM trips) t" \
        >"$RUN/dump-$tag-trips-after.json" 2>>"$RUN/dump-errors.log"
    echo "$(now) $tag" >>"$RUN/dumps.log"
}

# Canary: one short ride through node i (straight to the node, no balancer), in the canary drivers' area far
# from the load; logs like a rider's.
canary() {
    local i=$1 t
    t=$(cat "$RUN/clients/canary-n$i.token")
    echo "$EPOCHREALTIME canary-start node=n$i" >>"$RUN/clients/canary-n$i.log"
    timeout --foreground 90 ip netns exec "$NS_CLIENTS" "$HAIL" ride --server "http://$(node_addr "$i"):$NODE_PORT" --token "$t" \
        --from "$CANARY_FROM" --to "$CANARY_TO" --json --state "$RUN/clients/canary-n$i-$2.sqlite" </dev/null \
        2>>"$RUN/clients/canary-n$i.err" | stamp >>"$RUN/clients/canary-n$i.log"
    echo "$EPOCHREALTIME canary-exit node=n$i status=${PIPESTATUS[0]}" >>"$RUN/clients/canary-n$i.log"
}

# One scenario, in a subshell of its own (see the loop below): a run that breaks tears itself down and the
# list goes on.
run_one() {
    trap 'teardown' EXIT
    local name=$1 seed=$2
    FAULTS_SEED=$seed
    RUN=$OUT/$name-seed$seed
    rm -rf "$RUN"
    mkdir -p "$RUN/pids" "$RUN/clients"
    chmod 755 "$OUT" "$RUN"
    local duration description
    duration=$(scenario_field "$name" 1)
    description=$(scenario_field "$name" 2)
    unset FAULTS_REDIS
    declare -F "sc_${name}_setup" >/dev/null && "sc_${name}_setup"
    cat >"$RUN/run.env" <<ENV
scenario=$name
seed=$seed
description=$description
fault_seconds=$duration
warmup=$WARMUP
tail=$TAIL
redis=${FAULTS_REDIS:-none}
clock_mode=${FAULTS_CLOCK_MODE:-faketime}
drivers=$FAULTS_DRIVERS
canary_drivers=${FAULTS_CANARY_DRIVERS:-6}
riders=$FAULTS_RIDERS
location_drivers=$FAULTS_LOCATION_DRIVERS
code=$(git -C "$ROOT" log -1 --format=%h -- Sources Package.swift 2>/dev/null)
date=$(date -u +%Y-%m-%dT%H:%MZ)
ENV
    say "== $name, seed $seed: $description"
    bash "$HERE/topology.sh" up || die "topology"
    pg_init && pg_start && pg_create_db || die "PostgreSQL did not start; see $RUN/pg.log"
    redis_start
    openssl rand -hex 32 >"$RUN/secret" && chmod 600 "$RUN/secret"
    # Scaled nodes take access tokens only as JWTs of a key set (--jwks): one key per run, for every node.
    "$HAIL" keys --private-key "$RUN/signing.pem" --jwks "$RUN/hail.jwks" >/dev/null || die "hail keys"
    # One node first creates the schema, then the others join it.
    node_start 1 && node_wait 1
    node_start 2 && node_start 3 && node_wait 2 && node_wait 3
    lb_start
    export_load
    mark "cluster up"
    start_samplers
    start_probes
    start_drivers
    start_canary_drivers
    start_riders
    start_trip_probes
    start_location_drivers $((WARMUP + duration + TAIL + 60))
    mark "load started"
    sleep "$WARMUP"
    # The fault waits (at most SETTLE s more, 30 or 15 in the short form) until trips are searching, assigned and on their way at once, so
    # its window holds requests, accepts, starts, ends and cancels.
    local waited=0
    while [ "$waited" -lt "$SETTLE" ]; do
        local states
        states=$(trip_states | tr '\n' ' ')
        [[ "$states" == *searching* && "$states" == *driverAssigned* && "$states" == *onTrip* ]] && break
        sleep 1
        waited=$((waited + 1))
    done
    mark "trips before the fault: $(trip_states | tr '\n' ' ')"
    dump_state before
    # The canaries' tokens minted now, so that nothing but the ride runs after the heal.
    for i in "${NODES[@]}"; do token rider "canary-n$i" >"$RUN/clients/canary-n$i.token"; done
    mark "fault-start $name"
    "sc_${name}_fault"
    sleep "$duration"
    "sc_${name}_heal"
    mark "heal $name"
    local heal_at=$EPOCHREALTIME
    (sleep 5; for i in "${NODES[@]}"; do canary "$i" 1 & done; wait) &
    local canaries=$!
    sleep 30
    dump_state heal+30
    mark "dumped state at heal+30"
    local left=$((TAIL - 30))
    sleep $((left > 50 ? 50 : left))
    dump_state heal+80
    mark "dumped state at heal+80"
    [ "$left" -gt 50 ] && sleep $((left - 50))
    wait "$canaries" 2>/dev/null
    stop_load
    mark "load stopped"
    sleep 2
    dump_state end
    cp "$RUN/lb/access.log" "$RUN/balancer.log" 2>/dev/null
    python3 "$HERE/check.py" "$RUN" || say "checker failed on $RUN"
    teardown
    RUN=""
}

install_missing
mkdir -p "$OUT"
for seed in $SEEDS; do
    for name in "${CHOSEN[@]}"; do
        (run_one "$name" "$seed") || say "$name seed $seed: the run itself failed (see its directory); next"
    done
done
python3 "$HERE/summary.py" "$OUT" || true
say "done: $OUT/summary.md"
[ "$STRICT" = 1 ] || exit 0
# Strict: every run of this invocation must exist and hold every invariant it checks.
broken=0 failed=0
for seed in $SEEDS; do
    for name in "${CHOSEN[@]}"; do
        dir=$OUT/$name-seed$seed
        if [ ! -f "$dir/check.json" ]; then
            say "$name seed $seed: no result (the run broke); see $dir"
            broken=1
            continue
        fi
        bad=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(" ".join(k for k, v in r.items() if v["status"] == "fail"))' "$dir/check.json")
        if [ -n "$bad" ]; then
            say "$name seed $seed: FAILED $bad; see $dir/report.md"
            failed=1
        else
            say "$name seed $seed: every invariant checked held; $dir/report.md"
        fi
    done
done
[ "$broken" = 1 ] && exit 1
[ "$failed" = 1 ] && exit 2
exit 0
