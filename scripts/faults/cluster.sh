#!/usr/bin/env bash
# Starts and stops the suite's processes, each in its namespace (sourced by run.sh after lib.sh).
# State lives under $RUN: pg/ (PostgreSQL's data), redis/, nodes/, lb/, pids/.

# ---- PostgreSQL 15: fsync and synchronous_commit on (a durable copy, unlike scripts/services.sh) ----
pg_init() {
    [ -x "$PG_BIN/initdb" ] || die "PostgreSQL 15 server binaries not found under /usr/lib/postgresql/15/bin"
    # initdb once per invocation (seconds on a loaded machine), then a copy of its cluster for each run.
    local template=${PG_TEMPLATE:-}
    if [ -n "$template" ] && [ ! -f "$template/PG_VERSION" ]; then
        install -d -o postgres -g postgres -m 700 "$template"
        as_postgres "$PG_BIN/initdb" -D "$template" -U postgres --auth=trust --encoding=UTF8 --no-instructions >"$RUN/pg-init.log" 2>&1
    fi
    if [ -n "$template" ]; then
        cp -a "$template" "$RUN/pg"
    else
        install -d -o postgres -g postgres -m 700 "$RUN/pg"
        as_postgres "$PG_BIN/initdb" -D "$RUN/pg" -U postgres --auth=trust --encoding=UTF8 --no-instructions >"$RUN/pg-init.log" 2>&1
    fi
    cat >>"$RUN/pg/postgresql.conf" <<CONF
listen_addresses = '$PG_ADDR'
port = $PG_PORT
unix_socket_directories = '$RUN/pg'
fsync = on
synchronous_commit = on
full_page_writes = on
log_lock_waits = on
max_connections = 60
shared_buffers = 64MB
CONF
    echo "host all all $FAULTS_NET.0/24 trust" >>"$RUN/pg/pg_hba.conf"
    touch "$RUN/pg.log" && chown postgres:postgres "$RUN/pg.log"
}

pg_start() {
    in_ns "$NS_PG" runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$RUN/pg" -l "$RUN/pg.log" -w -t 60 start >/dev/null
    head -1 "$RUN/pg/postmaster.pid" >"$RUN/pids/pg"
}

# mode: fast | immediate
pg_stop() { in_ns "$NS_PG" runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$RUN/pg" -m "${1:-fast}" -w -t 60 stop >/dev/null || true; }

pg_create_db() { PSQL_TIMEOUT=20 timeout 20 ip netns exec "$NS_PG" "$PG_BIN/psql" -X -q -h "$RUN/pg" -p "$PG_PORT" -U postgres -d postgres -c "CREATE DATABASE hail" >/dev/null; }

# The postmaster and every backend it forked (by parent pid, never by name).
pg_pids() {
    local pm
    pm=$(head -1 "$RUN/pg/postmaster.pid" 2>/dev/null) || return 0
    echo "$pm"
    pgrep -P "$pm" || true
}

# ---- Redis 7: no persistence (FAULTS_REDIS=none) or the stock RDB snapshots (FAULTS_REDIS=rdb) ----
redis_start() {
    mkdir -p "$RUN/redis"
    local persistence=(--save '' --appendonly no)
    if [ "${FAULTS_REDIS:-none}" = rdb ]; then persistence=(--save '3600 1 300 100 60 10000' --appendonly no); fi
    # ip netns exec execs the server, so $! is the server's own pid (a shell function here would fork).
    ip netns exec "$NS_REDIS" redis-server --bind "$REDIS_ADDR" --port "$REDIS_PORT" --protected-mode no \
        "${persistence[@]}" --dir "$RUN/redis" --dbfilename dump.rdb --logfile "$RUN/redis.log" --daemonize no >/dev/null 2>&1 &
    echo $! >"$RUN/pids/redis"
    local _
    for _ in $(seq 1 100); do redis_run ping 2>/dev/null | grep -q PONG && return 0; sleep 0.1; done
    die "Redis did not start; see $RUN/redis.log"
}

redis_pid() { cat "$RUN/pids/redis"; }

redis_wait_gone() {
    local pid _
    pid=$(redis_pid)
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
}

# ---- hail server nodes ----
# The clock of a node is offset by FAULTS_CLOCK_MODE (run.sh picks flag when the binary has it): faketime (libfaketime, monotonic clock left
# alone) or flag (the test-only `--clock-offset-seconds N` of hail server, once it exists).
# The namespaces' PostgreSQL has no certificate: sslmode=disable says so, since a host off the node's
# own loopback otherwise gets sslmode=verify-full (docs/DEPLOY.md, "Backends inside the trust boundary").
node_start() {
    local i=$1 offset=${2:-0}
    mkdir -p "$RUN/nodes"
    local cmd=("$HAIL" server --host 0.0.0.0 --port "$NODE_PORT"
        --postgres "postgresql://postgres@$PG_ADDR:$PG_PORT/hail?sslmode=disable"
        --redis "redis://$REDIS_ADDR:$REDIS_PORT"
        --secret-file "$RUN/secret" --jwks "$RUN/hail.jwks" --loops 1 --unpinned-loops --quiet --no-rate-limits
        --trusted-proxies "$LB_ADDR" --public-url "http://$LB_ADDR:$LB_PORT")
    local prefix=()
    if [ "$offset" != 0 ]; then
        case "${FAULTS_CLOCK_MODE:-faketime}" in
        flag) cmd+=(--clock-offset-seconds "$offset") ;;
        faketime)
            # The faketime wrapper (libfaketime preloaded by hand leaves hail without its arguments); the
            # monotonic clock is left true. The wrapper forks, so the node's pid is taken as its child's below.
            local spec=$offset
            [ "${spec#-}" = "$spec" ] && spec="+$spec"
            prefix=(faketime -f "${spec}s" env DONT_FAKE_MONOTONIC=1)
            ;;
        *) die "FAULTS_CLOCK_MODE must be faketime or flag" ;;
        esac
    fi
    echo "$(now) start offset=$offset ${prefix[*]} ${cmd[*]}" >>"$RUN/nodes/n$i.log"
    ip netns exec "$(ns_node "$i")" "${prefix[@]}" "${cmd[@]}" >>"$RUN/nodes/n$i.log" 2>&1 &
    local pid=$!
    if [ ${#prefix[@]} -gt 0 ] && [ "${prefix[0]}" = faketime ]; then
        echo "$pid" >"$RUN/pids/n$i.wrapper"
        local child="" _
        for _ in $(seq 1 50); do child=$(pgrep -P "$pid" | head -1); [ -n "$child" ] && break; sleep 0.1; done
        [ -n "$child" ] || die "node $i: faketime started no child; see $RUN/nodes/n$i.log"
        pid=$child
    fi
    echo "$pid" >"$RUN/pids/n$i"
}

node_pid() { cat "$RUN/pids/n$1"; }

# Waits until node i answers /healthz from the clients' namespace (bounded).
node_wait() {
    local i=$1 _
    for _ in $(seq 1 150); do
        in_ns "$NS_CLIENTS" curl -s -o /dev/null -m 1 "http://$(node_addr "$i"):$NODE_PORT/healthz" && return 0
        kill -0 "$(node_pid "$i")" 2>/dev/null || die "node $i exited; see $RUN/nodes/n$i.log"
        sleep 0.2
    done
    die "node $i never answered /healthz; see $RUN/nodes/n$i.log"
}

node_stop() {
    local pid
    pid=$(node_pid "$1") || return 0
    kill -CONT "$pid" 2>/dev/null || true
    kill "${2:--TERM}" "$pid" 2>/dev/null || true
    local _
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

# ---- the balancer: nginx, round robin, a node failing a connection is skipped for 10 s ----
lb_start() {
    mkdir -p "$RUN/lb/tmp"
    local servers="" i
    for i in "${NODES[@]}"; do servers+="        server $(node_addr "$i"):$NODE_PORT max_fails=1 fail_timeout=10s;"$'\n'; done
    cat >"$RUN/lb/nginx.conf" <<CONF
worker_processes 1;
pid $RUN/lb/nginx.pid;
error_log $RUN/lb/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $RUN/lb/tmp/body;
    proxy_temp_path $RUN/lb/tmp/proxy;
    fastcgi_temp_path $RUN/lb/tmp/fcgi;
    uwsgi_temp_path $RUN/lb/tmp/uwsgi;
    scgi_temp_path $RUN/lb/tmp/scgi;
    # The path without its query, so no access_token of a WebSocket URL reaches the log.
    log_format faults '\$msec \$request_time \$status \$upstream_addr \$upstream_status \$upstream_response_time \$request_method \$uri';
    map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
    upstream hail {
$servers    }
    server {
        listen $LB_ADDR:$LB_PORT backlog=4096;
        access_log $RUN/lb/access.log faults;
        # The streams (every WebSocket route ends in /live) stay open for an hour.
        location ~ /live\$ {
            proxy_pass http://hail;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_connect_timeout 2s;
            proxy_send_timeout 60s;
            proxy_read_timeout 3600s;
            proxy_next_upstream error timeout;
            proxy_buffering off;
        }
        # REST: a node answers within its 4 s request deadline (503 with Retry-After when a backend does not), so
        # one that has not begun to answer after ${LB_REST_TIMEOUT:-4500ms} is stopped or cut off (nginx open source
        # has no active health check, and a stopped node's kernel still accepts connections). The client gets a
        # 503 with Retry-After at once instead of waiting for it, and the node is skipped for fail_timeout; the
        # apps retry with the same Idempotency-Key, so a request that node still commits later is not done twice.
        # A refused or reset connection (nothing sent) goes to the next node; a request already sent is never
        # sent again by nginx (the POSTs are not idempotent to it), and a timed-out one only within the deadline.
        location / {
            proxy_pass http://hail;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_connect_timeout 2s;
            proxy_send_timeout 4s;
            proxy_read_timeout ${LB_REST_TIMEOUT:-4500ms};
            proxy_next_upstream error timeout;
            proxy_next_upstream_timeout 4s;
            proxy_buffering off;
            error_page 502 504 = @unavailable;
        }
        location @unavailable {
            default_type application/json;
            add_header Retry-After 1 always;
            return 503 '{"error":{"code":"unavailable","message":"no node answered in time; retry"}}';
        }
    }
}
CONF
    ip netns exec "$NS_LB" nginx -c "$RUN/lb/nginx.conf" -p "$RUN/lb" -g 'daemon off;' >/dev/null 2>>"$RUN/lb/error.log" &
    echo $! >"$RUN/pids/lb"
}
