#!/usr/bin/env bash
# Hail's fault-injection suite: three `hail server` nodes on PostgreSQL 15 and Redis 7, each process in a
# network namespace of its own behind an nginx balancer, real rider and driver apps riding through it, a
# nemesis, and checkers of issue 37's invariants. Needs root (namespaces, iptables, tc).
#
#   scripts/faults/run.sh --scenario redis-pause-30s [--seed 1]
#   scripts/faults/run.sh --all [--seed 1]          every scenario, one after another
#   scripts/faults/run.sh --short                    the short form: one seed of a Redis, a PostgreSQL, a
#                                                    partition and a clock scenario, about 10 minutes, strict
#   scripts/faults/run.sh --short --ci               make test's: namespaces hft<pid>-*, leftovers removed first
#   scripts/faults/run.sh --long                     the long forms (5 and 10 minutes, quiet tails), about 35 min
#   scripts/faults/run.sh --soak [--faults 12] [--period 600]
#                                                    one cluster, a seeded random fault every period (2 hours)
#   scripts/faults/run.sh --list
#
# Options: --hail PATH (default .build/release/hail), --out DIR (default .build/faults), --warmup S (45),
# --tail S (after the heal, 95; 310 for faults of 5 minutes and more), --seeds "1 2 3", --strict (exit 2 when
# an invariant fails).
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
# The project's own virtual environment for netdelay.py's NFQUEUE binding (PyPI), like .build/contract-venv.
export FAULTS_VENV=$ROOT/.build/faults-venv
NETFILTERQUEUE_VERSION=1.1.0
SOAK_CATALOGUE=()
OUT=$ROOT/.build/faults
WARMUP=45
TAIL=95
SEEDS=""
FAULTS_SEED=1
MODE=""
CHOSEN=()
STRICT=0
CI_MODE=0
TAIL_GIVEN=""
# I11's quiet tail (check.py judges it from 300 s after the heal) for the long forms.
LONG_TAIL=310
SOAK_FAULTS=12
SOAK_PERIOD=600
# Seconds the fault waits, after the warm-up, for trips searching, assigned and on their way at once.
SETTLE=30
# The short form (make faults-short): a Redis pause, a PostgreSQL crash, one node cut from Redis, a clock ahead.
SHORT=(redis-pause-30s pg-crash-restart node1-redis-dropped-30s node2-clock-plus-120s)
# make test's (--short --ci): the same four. It had Redis's FLUSHALL in place of the pause while two product bugs
# made the pause fail at random (a driver app's stream left in its backoff after the outage, I9; a driver's
# `online` not restored after Redis restarted empty, I6); both are fixed since branch faults-repair
# (docs/RELIABILITY.md), which puts the pause back. Not yet re-run in the suite with the fixes.
SHORT_CI=("${SHORT[@]}")
# The long forms of issue 37's targets (about 35 minutes with their quiet tails).
LONG=(node1-redis-dropped-5m node1-pause-20s-every-60s node1-redis-slow-5m)
while [ $# -gt 0 ]; do
    case "$1" in
    --scenario) CHOSEN+=("$2"); MODE=one; shift 2 ;;
    --all) MODE=all; shift ;;
    --long) MODE=long; shift ;;
    # A shorter warm-up and settling, and a tail that ends just after the heal+80 s dump I5 reads.
    --short) MODE=short; CHOSEN=("${SHORT[@]}"); STRICT=1; WARMUP=20; SETTLE=20; TAIL=82; OUT=${OUT_GIVEN:-$ROOT/.build/faults-short}; shift ;;
    # make test: the short form in namespaces of this invocation's own (hft<pid>-*), after removing those of
    # any earlier invocation that is gone (an interrupted CI job leaves its namespaces and processes behind).
    --ci) CI_MODE=1; shift ;;
    --strict) STRICT=1; shift ;;
    --seed) FAULTS_SEED=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --hail) HAIL=$(realpath "$2"); shift 2 ;;
    --out) OUT=$(realpath -m "$2"); OUT_GIVEN=$OUT; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --tail) TAIL=$2; TAIL_GIVEN=1; shift 2 ;;
    # The soak: one cluster, a fault drawn (seeded) from the catalogue every PERIOD s, the invariants after each.
    --soak) MODE=soak; shift ;;
    --faults) SOAK_FAULTS=$2; shift 2 ;;
    --period) SOAK_PERIOD=$2; shift 2 ;;
    --list) for s in "${SCENARIOS[@]}"; do IFS='|' read -r n d w <<<"$s"; printf '%-28s %3s s  %s\n' "$n" "$d" "$w"; done; exit 0 ;;
    -h | --help) sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
[ -n "$MODE" ] || { echo "say --scenario NAME, --all, --long or --soak (see --help, --list)" >&2; exit 64; }
[ "$(id -u)" -eq 0 ] || die "the fault suite needs root (network namespaces, veth, iptables; make test runs its short form): run it as root"
[ -x "$HAIL" ] || die "no hail binary at $HAIL: swift build -c release --product hail"
[ "$MODE" = all ] && mapfile -t CHOSEN < <(scenario_names)
[ "$MODE" = long ] && CHOSEN=("${LONG[@]}")
[ "$MODE" = short ] && [ "$CI_MODE" = 1 ] && CHOSEN=("${SHORT_CI[@]}")
for s in "${CHOSEN[@]}"; do scenario_field "$s" 0 >/dev/null || die "no scenario '$s' (see --list)"; done
[ -n "$SEEDS" ] || SEEDS=$FAULTS_SEED
# A node's clock is offset by hail server's own test option when the binary has it (libfaketime costs the
# node a third of a core and is no part of the product), else by libfaketime.
if [ -z "${FAULTS_CLOCK_MODE:-}" ]; then
    if grep -qaF -- --clock-offset-seconds "$HAIL"; then FAULTS_CLOCK_MODE=flag; else FAULTS_CLOCK_MODE=faketime; fi
fi
export FAULTS_CLOCK_MODE

# Namespaces hft<pid>-* whose invocation is gone: their processes ended (by the namespace's own pid list),
# then the namespaces deleted. A live invocation's (another job on this host) are left alone.
clean_leftovers() {
    local ns owner p
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E '^hft[0-9]+-'); do
        owner=${ns%%-*}
        owner=${owner#hft}
        if kill -0 "$owner" 2>/dev/null && grep -qa 'run.sh' "/proc/$owner/cmdline" 2>/dev/null; then continue; fi
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null && say "removed the leftover namespace $ns"
    done
    # The load's shell loops (riders, probes, samplers) run in the root namespace: they are the processes
    # whose environment names a gone invocation's clients' namespace (export_load exports NS_CLIENTS).
    local env
    for env in /proc/[0-9]*/environ; do
        p=${env#/proc/}
        p=${p%/environ}
        owner=$({ tr '\0' '\n' <"$env"; } 2>/dev/null | sed -n 's/^NS_CLIENTS=hft\([0-9]*\)-cl$/\1/p')
        [ -n "$owner" ] || continue
        if kill -0 "$owner" 2>/dev/null && grep -qa 'run.sh' "/proc/$owner/cmdline" 2>/dev/null; then continue; fi
        kill -KILL "$p" 2>/dev/null && say "ended pid $p, a load loop of the gone invocation $owner"
    done
    return 0
}

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
    # The delay of the *-slow-* scenarios (netdelay.py) reads an NFQUEUE through libnetfilter_queue.
    local slow=0 s
    for s in "${CHOSEN[@]}" "${SOAK_CATALOGUE[@]}"; do [[ "$s" == *-slow-* ]] && slow=1; done
    if [ "$slow" = 1 ]; then
        [ -f /usr/include/libnetfilter_queue/libnetfilter_queue.h ] || missing+=(libnetfilter-queue-dev)
        command -v gcc >/dev/null || missing+=(gcc)
        [ -f "/usr/include/python3.$(python3 -c 'import sys; print(sys.version_info[1])')/Python.h" ] || missing+=(python3-dev)
        python3 -c 'import ensurepip' 2>/dev/null || missing+=(python3-venv)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]}"
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
        PG_BIN=$(ls -d /usr/lib/postgresql/15/bin)
    fi
    if [ "$slow" = 1 ] && ! "$FAULTS_VENV/bin/python" -c 'import netfilterqueue' 2>/dev/null; then
        say "installing netfilterqueue $NETFILTERQUEUE_VERSION into $FAULTS_VENV"
        rm -rf "$FAULTS_VENV"
        /usr/bin/python3 -m venv "$FAULTS_VENV" >&2 \
            && "$FAULTS_VENV/bin/pip" install --quiet --disable-pip-version-check "netfilterqueue==$NETFILTERQUEUE_VERSION" >&2 \
            || die "could not install netfilterqueue into $FAULTS_VENV"
    fi
}

# Ends every process of the run (by the pids it recorded), then the namespaces. Runs on any exit.
teardown() {
    [ -n "${RUN:-}" ] && [ -d "$RUN/pids" ] || { bash "$HERE/topology.sh" down 2>/dev/null; return 0; }
    [ -f "$RUN/pids/pause-cycles" ] && kill "$(cat "$RUN/pids/pause-cycles")" 2>/dev/null
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
    # The trips and their events from one snapshot: a trip change commits its row and its event together, so two
    # reads apart would show a log ahead of its row whenever the load commits between them (the soak's windows).
    psql_run -tA 2>>"$RUN/dump-errors.log" <<SQL
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
\\o $RUN/dump-$tag-trips.json
SELECT coalesce(json_agg(t), '[]') FROM (SELECT id, rider_id, driver_id, state, version, active, updated_at FROM trips) t;
\\o $RUN/dump-$tag-events.json
SELECT coalesce(json_agg(e ORDER BY trip_id, version), '[]') FROM (SELECT *, xmin::text::bigint AS xid FROM trip_events) e;
\\o
COMMIT;
SQL
    # Each load driver's Redis hash (the checkers compare it with PostgreSQL), in one pipeline; on a stalled
    # machine the reader can be cut short by its timeout, so it is tried again (up to three times) until it has
    # every driver. A driver still missing is reported "not read" by the checkers, never judged.
    local try
    for try in 1 2 3; do
        timeout 30 ip netns exec "$NS_REDIS" python3 "$HERE/redis_hashes.py" "$REDIS_ADDR" "$REDIS_PORT" "$RUN/clients/drivers.txt" \
            >"$RUN/dump-$tag-redis.txt" 2>>"$RUN/dump-errors.log"
        [ "$(wc -l <"$RUN/dump-$tag-redis.txt")" -ge "$(wc -l <"$RUN/clients/drivers.txt")" ] && break
        echo "$(now) $tag: Redis dump $try incomplete" >>"$RUN/dump-errors.log"
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

# The cluster: topology, PostgreSQL, Redis, the three nodes (one first, to create the schema), the balancer.
cluster_up() {
    bash "$HERE/topology.sh" up || die "topology"
    pg_init && pg_start && pg_create_db || die "PostgreSQL did not start; see $RUN/pg.log"
    redis_start
    openssl rand -hex 32 >"$RUN/secret" && chmod 600 "$RUN/secret"
    # Scaled nodes take access tokens only as JWTs of a key set (--jwks): one key per run, for every node.
    "$HAIL" keys --private-key "$RUN/signing.pem" --jwks "$RUN/hail.jwks" >/dev/null || die "hail keys"
    node_start 1 && node_wait 1
    node_start 2 && node_start 3 && node_wait 2 && node_wait 3
    lb_start
    export_load
    mark "cluster up"
}

# The load and the samplers; the location-only drivers run SECONDS.
load_up() {
    start_samplers
    start_probes
    start_drivers
    start_canary_drivers
    start_riders
    start_trip_probes
    start_location_drivers "$1"
    mark "load started"
}

# Waits (at most SETTLE s) until trips are searching, assigned and on their way at once, so the fault's window
# holds requests, accepts, starts, ends and cancels.
settle() {
    local waited=0 states
    while [ "$waited" -lt "$SETTLE" ]; do
        states=$(trip_states | tr '\n' ' ')
        [[ "$states" == *searching* && "$states" == *driverAssigned* && "$states" == *onTrip* ]] && break
        sleep 1
        waited=$((waited + 1))
    done
    mark "trips before the fault: $(trip_states | tr '\n' ' ')"
}

# fault_window NAME SECONDS TAIL [END]: the state before, the fault for SECONDS, the heal, canaries through
# each node 5 s later, the state at heal+30 s and heal+80 s, then a wait until heal+TAIL (or the instant END,
# an $EPOCHREALTIME, when given and later).
fault_window() {
    local name=$1 duration=$2 tail=$3 end=${4:-} i
    dump_state before
    # The canaries' tokens minted before the fault (during the warm-up in a run of one scenario), so that
    # nothing but the ride runs after the heal.
    for i in "${NODES[@]}"; do
        [ -s "$RUN/clients/canary-n$i.token" ] || token rider "canary-n$i" >"$RUN/clients/canary-n$i.token"
    done
    mark "fault-start $name"
    "sc_${name}_fault"
    sleep "$duration"
    "sc_${name}_heal"
    mark "heal $name"
    local heal_at=$EPOCHREALTIME
    (sleep 5; for i in "${NODES[@]}"; do canary "$i" 1 & done; wait) &
    local canaries=$!
    # The judgements are at instants after the heal, not after the previous step: a slow dump does not
    # delay the next one, nor lengthen the run.
    sleep_until "$heal_at" 30
    dump_state heal+30
    mark "dumped state at heal+30"
    sleep_until "$heal_at" 80
    dump_state heal+80
    mark "dumped state at heal+80"
    sleep_until "$heal_at" "$tail"
    [ -n "$end" ] && sleep_until "$end" 0
    wait "$canaries" 2>/dev/null
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
    # The long forms (5 minutes and more) get I11's quiet tail unless --tail says otherwise.
    local tail=$TAIL
    [ "$duration" -ge 300 ] && [ -z "$TAIL_GIVEN" ] && tail=$LONG_TAIL
    unset FAULTS_REDIS
    declare -F "sc_${name}_setup" >/dev/null && "sc_${name}_setup"
    cat >"$RUN/run.env" <<ENV
scenario=$name
seed=$seed
description=$description
fault_seconds=$duration
warmup=$WARMUP
tail=$tail
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
    cluster_up
    load_up $((WARMUP + duration + tail + 60))
    local i
    for i in "${NODES[@]}"; do token rider "canary-n$i" >"$RUN/clients/canary-n$i.token"; done
    sleep "$WARMUP"
    settle
    fault_window "$name" "$duration" "$tail" ""
    stop_load
    mark "load stopped"
    sleep 2
    dump_state end
    cp "$RUN/lb/access.log" "$RUN/balancer.log" 2>/dev/null
    teardown
    RUN=""
}

# The soak's catalogue: every scenario that fits a period with its 80 s of judgements and I11's samples, less
# redis-stale-snapshot (its SAVE leaves a dump.rdb that a later Redis restart would load: no longer "empty").
soak_catalogue() {
    local name d
    for name in $(scenario_names); do
        d=$(scenario_field "$name" 1)
        [ "$name" = redis-stale-snapshot ] && continue
        [ $((d + 100)) -le "$SOAK_PERIOD" ] && echo "$name"
    done
}

# A window of the soak: a directory the checkers read as a run of its own, its timeline, dumps, canaries and
# run.env its own, every other file (clients' logs, samples, processes' logs, the database) the soak's.
soak_window_dir() {
    local w=$1 f b
    mkdir -p "$w/clients"
    for f in "$SOAK_ROOT"/*; do
        b=$(basename "$f")
        case "$b" in
        w[0-9]* | clients | dump-* | dumps.log | timeline.log | run.env | check.json | report.md | check.err | stop-load | soak-*) continue ;;
        esac
        ln -s "$f" "$w/$b"
    done
    ln -sf "$SOAK_ROOT/lb/access.log" "$w/balancer.log"
    for f in "$SOAK_ROOT"/clients/*; do
        b=$(basename "$f")
        case "$b" in canary-n*) continue ;; esac
        ln -s "$f" "$w/clients/$b"
    done
}

# The soak (--soak): one cluster and one load for the whole run; every SOAK_PERIOD s a fault drawn from the
# catalogue by the seed, its window judged like a run of its own (w<k>-<name>/report.md) before the next
# fault; at the end each node's RSS, descriptors and bus subscriptions against the minute before the first
# fault (soak-report.md).
run_soak() {
    local seed=$1
    FAULTS_SEED=$seed
    SOAK_ROOT=$OUT/soak-seed$seed
    RUN=$SOAK_ROOT
    trap 'RUN=$SOAK_ROOT; teardown' EXIT
    rm -rf "$RUN"
    mkdir -p "$RUN/pids" "$RUN/clients"
    chmod 755 "$OUT" "$RUN"
    local catalogue plan
    mapfile -t catalogue < <(soak_catalogue)
    [ ${#catalogue[@]} -gt 0 ] || die "no scenario fits a period of $SOAK_PERIOD s"
    mapfile -t plan < <(python3 -c 'import random, sys
r = random.Random(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    print(r.choice(sys.argv[3:]))' "$seed" "$SOAK_FAULTS" "${catalogue[@]}")
    printf '%s\n' "${plan[@]}" >"$RUN/soak-plan.txt"
    unset FAULTS_REDIS
    cat >"$RUN/run.env" <<ENV
scenario=soak
seed=$seed
faults=$SOAK_FAULTS
period=$SOAK_PERIOD
warmup=$WARMUP
catalogue=${catalogue[*]}
code=$(git -C "$ROOT" log -1 --format=%h -- Sources Package.swift 2>/dev/null)
date=$(date -u +%Y-%m-%dT%H:%MZ)
ENV
    say "== soak, seed $seed: $SOAK_FAULTS faults every $SOAK_PERIOD s: ${plan[*]}"
    cluster_up
    load_up $((WARMUP + SOAK_FAULTS * SOAK_PERIOD + 600))
    sleep "$WARMUP"
    local k=0 name slot=$EPOCHREALTIME
    local CANARY_A=$CANARY_FROM CANARY_B=$CANARY_TO
    for name in "${plan[@]}"; do
        k=$((k + 1))
        local duration w next
        duration=$(scenario_field "$name" 1)
        w=$SOAK_ROOT/w$k-$name
        soak_window_dir "$w"
        cat >"$w/run.env" <<ENV
scenario=$name
seed=$seed
description=soak window $k of $SOAK_FAULTS: $(scenario_field "$name" 2)
fault_seconds=$duration
warmup=$WARMUP
redis=none
clock_mode=${FAULTS_CLOCK_MODE:-faketime}
drivers=$FAULTS_DRIVERS
canary_drivers=${FAULTS_CANARY_DRIVERS:-6}
riders=$FAULTS_RIDERS
location_drivers=$FAULTS_LOCATION_DRIVERS
code=$(git -C "$ROOT" log -1 --format=%h -- Sources Package.swift 2>/dev/null)
date=$(date -u +%Y-%m-%dT%H:%MZ)
ENV
        RUN=$w
        # The canary drivers wait at the pickup and end at the drop-off: every other window the canaries ride
        # back, so each window's find their drivers at the pickup, as in a run of one scenario.
        if [ $((k % 2)) -eq 0 ]; then CANARY_FROM=$CANARY_B CANARY_TO=$CANARY_A; else CANARY_FROM=$CANARY_A CANARY_TO=$CANARY_B; fi
        mark "soak window $k: $name"
        # The window ends 10 s before the next slot (its end dump and checkers take that); a fault that ran
        # long (a clock scenario's restarts) moves the next slot, never the judgements.
        next=$(awk -v s="$slot" -v p="$SOAK_PERIOD" 'BEGIN { printf "%.6f", s + p - 10 }')
        fault_window "$name" "$duration" 82 "$next"
        # Marked before the dump: the checkers judge what clients saw before it began against it.
        mark "window end"
        dump_state end
        nice -n 10 python3 "$HERE/check.py" "$w" 2>"$w/check.err" || say "checker failed on $w (see check.err)"
        RUN=$SOAK_ROOT
        slot=$(awk -v s="$slot" -v p="$SOAK_PERIOD" -v n="$EPOCHREALTIME" 'BEGIN { t = s + p; if (t < n) t = n; printf "%.6f", t }')
        sleep_until "$slot" 0
    done
    mark "soak faults done"
    stop_load
    mark "load stopped"
    sleep 2
    dump_state end
    python3 "$HERE/soak_report.py" "$SOAK_ROOT" || say "soak report failed on $SOAK_ROOT"
    teardown
    RUN=""
}

# Sleeps until SECONDS after the instant START (an $EPOCHREALTIME); at once when that is past.
sleep_until() {
    local d
    d=$(awk -v s="$1" -v o="$2" -v n="$EPOCHREALTIME" 'BEGIN { d = s + o - n; if (d < 0) d = 0; printf "%.3f", d }')
    sleep "$d"
}

[ "$MODE" = soak ] && mapfile -t SOAK_CATALOGUE < <(soak_catalogue)
if [ "$CI_MODE" = 1 ]; then
    clean_leftovers
    export FAULTS_PREFIX=hft$$
    source "$HERE/lib.sh"
    say "namespaces $FAULTS_PREFIX-*"
fi
install_missing
mkdir -p "$OUT"
PG_TEMPLATE=$(mktemp -d "$OUT/.pg-template.XXXXXX") && rmdir "$PG_TEMPLATE"
export PG_TEMPLATE
# Each run's checkers go on in the background while the next run starts its cluster (they read only its
# directory, and the processes are gone by then).
if [ "$MODE" = soak ]; then
    for seed in $SEEDS; do (run_soak "$seed") || say "soak seed $seed: the run itself failed (see its directory)"; done
    rm -rf "$PG_TEMPLATE"
    for seed in $SEEDS; do cat "$OUT/soak-seed$seed/soak-report.md" 2>/dev/null; done
    exit 0
fi
checks=()
for seed in $SEEDS; do
    for name in "${CHOSEN[@]}"; do
        if (run_one "$name" "$seed"); then
            python3 "$HERE/check.py" "$OUT/$name-seed$seed" 2>"$OUT/$name-seed$seed/check.err" \
                || say "checker failed on $OUT/$name-seed$seed (see check.err)" &
            checks+=($!)
        else
            say "$name seed $seed: the run itself failed (see its directory); next"
        fi
    done
done
for c in "${checks[@]}"; do wait "$c"; done
rm -rf "$PG_TEMPLATE"
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
