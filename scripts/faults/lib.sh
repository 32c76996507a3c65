#!/usr/bin/env bash
# Shared names and helpers of the fault-injection suite (scripts/faults/run.sh sources this file).
# Every address is inside network namespaces this suite creates (10.231.0.0/24); nothing touches the root
# namespace's network, the shared test services (127.0.0.1:55432 / :56379) or any other address.

FAULTS_NET=10.231.0
FAULTS_PREFIX=${FAULTS_PREFIX:-hf}
NS_BRIDGE=$FAULTS_PREFIX-br
NS_PG=$FAULTS_PREFIX-pg
NS_REDIS=$FAULTS_PREFIX-redis
NS_LB=$FAULTS_PREFIX-lb
NS_CLIENTS=$FAULTS_PREFIX-cl
NODES=(1 2 3)
ns_node() { echo "$FAULTS_PREFIX-n$1"; }

PG_ADDR=$FAULTS_NET.2
REDIS_ADDR=$FAULTS_NET.3
LB_ADDR=$FAULTS_NET.100
CLIENTS_ADDR=$FAULTS_NET.200
node_addr() { echo "$FAULTS_NET.$((10 + $1))"; }
PG_PORT=5432
REDIS_PORT=6379
NODE_PORT=8080
LB_PORT=8080

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || true)}

say() { printf '%s faults: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { say "$*"; exit 1; }

# Seconds since the epoch with microseconds, the time base of every event log.
now() { echo "$EPOCHREALTIME"; }

# Appends one line to the run's timeline (fault and heal instants the checkers read).
mark() { printf '%s %s\n' "$(now)" "$*" >>"$RUN/timeline.log"; say "$*"; }

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

as_postgres() { runuser -u postgres -- "$@"; }

psql_run() {
    # Through the data directory's socket inside PostgreSQL's own namespace, so no partition a scenario
    # makes between the nodes and PostgreSQL hides the database from the checkers.
    timeout "${PSQL_TIMEOUT:-10}" ip netns exec "$NS_PG" "$PG_BIN/psql" -X -q -h "$RUN/pg" -p "$PG_PORT" -U postgres \
        -d hail -v ON_ERROR_STOP=1 "$@"
}

redis_run() { timeout "${REDIS_TIMEOUT:-10}" ip netns exec "$NS_REDIS" redis-cli -h "$REDIS_ADDR" -p "$REDIS_PORT" "$@"; }
