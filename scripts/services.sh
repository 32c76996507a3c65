#!/usr/bin/env bash
# Starts a throwaway PostgreSQL and Redis on loopback for the HailScale tests, and only what is missing; installs
# what the TLS tests need to start their own (postgres, redis-server with TLS, openssl).
#   bash scripts/services.sh         start (or reuse) both; prints the export lines for the tests
#   bash scripts/services.sh stop    stop both and delete their data
# Use: eval "$(bash scripts/services.sh)"
# Stdout carries only the export lines, so `eval` is safe; progress goes to stderr.
set -euo pipefail

PG_PORT="${HAIL_PG_PORT:-55432}"
REDIS_PORT="${HAIL_REDIS_PORT:-56379}"
STATE_DIR="${HAIL_SERVICES_DIR:-/tmp/hail-services}"
PG_DATA="$STATE_DIR/postgres"
PG_LOG="$STATE_DIR/postgres.log"
REDIS_PID="$STATE_DIR/redis.pid"
REDIS_LOG="$STATE_DIR/redis.log"

say() { printf 'services: %s\n' "$*" >&2; }

if [ "$(uname -s)" = "Darwin" ]; then
    say "on macOS run: brew install postgresql@15 redis && brew services start postgresql@15 && brew services start redis"
    say "then export HAIL_POSTGRES_URL=postgresql://$USER@127.0.0.1:5432/hail_test and HAIL_REDIS_URL=redis://127.0.0.1:6379"
    exit 1
fi

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# The server binaries live outside PATH on Debian (pg_config from libpq-dev points at /usr/bin, client only).
pg_bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) "$(pg_config --bindir 2>/dev/null || true)"; do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
    done
    return 1
}

# PostgreSQL refuses to run as root, so its server commands run as the postgres user.
as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi
}

install_missing() {
    local missing=()
    pg_bindir >/dev/null || missing+=(postgresql)
    command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
    # The TLS tests make their certificates with openssl and run postgres as its user with setpriv (util-linux).
    command -v openssl >/dev/null 2>&1 || missing+=(openssl)
    command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing ${missing[*]}"
        as_root apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >&2
    fi
}

stop_all() {
    local bin
    if bin="$(pg_bindir)" && [ -f "$PG_DATA/postmaster.pid" ]; then
        as_postgres "$bin/pg_ctl" -D "$PG_DATA" -m fast -w stop >&2 || true
    fi
    if [ -f "$REDIS_PID" ]; then
        redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || kill "$(cat "$REDIS_PID")" 2>/dev/null || true
    fi
    as_root rm -rf "$STATE_DIR"
    say "stopped"
}

start_postgres() {
    local bin
    bin="$(pg_bindir)"
    if [ -f "$PG_DATA/postmaster.pid" ] && as_postgres "$bin/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
        say "PostgreSQL already running on 127.0.0.1:$PG_PORT"
    else
        if [ ! -f "$PG_DATA/PG_VERSION" ]; then
            mkdir -p "$STATE_DIR"
            chmod 755 "$STATE_DIR"
            install -d -o postgres -g postgres -m 700 "$PG_DATA"
            as_postgres "$bin/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --no-instructions >&2
        fi
        # The log file must be writable by postgres; sockets go to the data dir, not /var/run.
        as_root touch "$PG_LOG"
        as_root chown postgres:postgres "$PG_LOG"
        as_postgres "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 30 \
            -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories=$PG_DATA -c fsync=off" start >&2
        say "PostgreSQL started on 127.0.0.1:$PG_PORT"
    fi
    if ! "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'hail_test'" | grep -q 1; then
        "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qc "CREATE DATABASE hail_test" >&2
    fi
}

start_redis() {
    if redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; then
        say "Redis already running on 127.0.0.1:$REDIS_PORT"
        return
    fi
    mkdir -p "$STATE_DIR"
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
        --pidfile "$REDIS_PID" --logfile "$REDIS_LOG" --dir "$STATE_DIR" >&2
    # --daemonize returns before the socket listens; wait for PING with a bound.
    for _ in $(seq 1 50); do
        redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG && break
        sleep 0.1
    done
    redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG || { say "Redis did not start, see $REDIS_LOG"; exit 1; }
    say "Redis started on 127.0.0.1:$REDIS_PORT"
}

case "${1:-start}" in
stop) stop_all ;;
start)
    install_missing
    start_postgres
    start_redis
    echo "export HAIL_POSTGRES_URL=postgresql://postgres@127.0.0.1:$PG_PORT/hail_test"
    echo "export HAIL_REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
    ;;
*) say "usage: $0 [start|stop]"; exit 2 ;;
esac
