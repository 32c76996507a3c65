#!/usr/bin/env bash
# The scenarios (issue 37's Targets, in bounded short forms). Each is three functions:
#   sc_NAME_setup   optional: what must hold before the cluster starts (Redis persistence, a node's clock)
#   sc_NAME_fault   injects the fault; the run marks fault-start before it
#   sc_NAME_heal    undoes it; the run marks heal after it
# and one line in SCENARIOS: name, seconds the fault lasts, one sentence of what it does.

SCENARIOS=(
    "redis-pause-30s|30|Redis stopped with SIGSTOP for 30 s, then SIGCONT"
    "redis-refused-30s|30|every node's packets to Redis answered with a TCP reset for 30 s"
    "redis-dropped-30s|30|every packet between the nodes and Redis dropped for 30 s"
    "redis-restart-empty|3|Redis SHUTDOWN NOSAVE, back 3 s later with no data"
    "redis-flushall|0|FLUSHALL on Redis, no disconnect"
    "redis-stale-snapshot|2|Redis (stock RDB snapshots) saved, 20 s of load, kill -9, back 2 s later on the stale snapshot"
    "pg-fast-restart|0|PostgreSQL pg_ctl restart -m fast under load"
    "pg-crash-restart|0|PostgreSQL pg_ctl stop -m immediate (crash recovery) and start under load"
    "pg-dropped-30s|30|every packet between the nodes and PostgreSQL dropped for 30 s"
    "node1-pg-dropped-30s|30|node 1's packets to and from PostgreSQL dropped for 30 s"
    "node1-redis-dropped-30s|30|node 1's packets to and from Redis dropped for 30 s"
    "node1-clients-dropped-60s|60|node 1's HTTP port unreachable from the balancer and clients for 60 s"
    "node2-clock-plus-120s|60|node 2 restarted with its clock 120 s ahead for 60 s, then restarted on the true clock"
    "node2-clock-plus-10s|60|node 2 restarted with its clock 10 s ahead for 60 s, then restarted on the true clock"
    "node1-pause-20s|20|node 1 stopped with SIGSTOP for 20 s"
    "node1-netem-60s|60|300 ms +- 100 ms delay and 5 % loss on node 1's link for 60 s (loss only where the kernel lacks sch_netem)"
    "node1-redis-dropped-5m|300|node 1's packets to and from Redis dropped for 5 minutes"
    "node1-pause-20s-every-60s|600|node 1 stopped with SIGSTOP for 20 s in every 60 s, for 10 minutes"
    "node1-redis-slow-5m|300|node 1's packets to Redis held 300 ms +- 100 ms and 5 % of them dropped (NFQUEUE; a netem on its link to Redis) for 5 minutes"
    "node1-killed-in-commit|26|PostgreSQL paused 4 s while node 1's commits queue, node 1 cut from it and SIGKILLed, PostgreSQL resumed; 26 s later the cut healed and node 1 restarted"
)

all_nodes() { local i; for i in "${NODES[@]}"; do "$@" "$i"; done; }

sc_redis-pause-30s_fault() { pause redis; }
sc_redis-pause-30s_heal() { resume redis; }

reject_redis() { partition "$1" redis reject out; }
sc_redis-refused-30s_fault() { all_nodes reject_redis; }
sc_redis-refused-30s_heal() { all_nodes heal_node_net; }

drop_redis() { partition "$1" redis drop both; }
sc_redis-dropped-30s_fault() { all_nodes drop_redis; }
sc_redis-dropped-30s_heal() { all_nodes heal_node_net; }

sc_redis-restart-empty_fault() { redis_shutdown_nosave; }
sc_redis-restart-empty_heal() { redis_start; }

sc_redis-flushall_fault() { redis_flushall; }
sc_redis-flushall_heal() { :; }

sc_redis-stale-snapshot_setup() { export FAULTS_REDIS=rdb; }
sc_redis-stale-snapshot_fault() {
    redis_snapshot
    mark "snapshot saved; 20 s of load before the kill"
    sleep 20
    redis_kill9
}
sc_redis-stale-snapshot_heal() { redis_start; }

sc_pg-fast-restart_fault() { pg_stop fast; }
sc_pg-fast-restart_heal() { pg_start; }

sc_pg-crash-restart_fault() { pg_stop immediate; }
sc_pg-crash-restart_heal() { pg_start; }

drop_pg() { partition "$1" postgres drop both; }
sc_pg-dropped-30s_fault() { all_nodes drop_pg; }
sc_pg-dropped-30s_heal() { all_nodes heal_node_net; }

sc_node1-pg-dropped-30s_fault() { partition 1 postgres drop both; }
sc_node1-pg-dropped-30s_heal() { heal_node_net 1; }

sc_node1-redis-dropped-30s_fault() { partition 1 redis drop both; }
sc_node1-redis-dropped-30s_heal() { heal_node_net 1; }

sc_node1-clients-dropped-60s_fault() { partition 1 clients drop both; }
sc_node1-clients-dropped-60s_heal() { heal_node_net 1; }

restart_node2() { node_stop 2; node_start 2 "$1"; node_wait 2; }
sc_node2-clock-plus-120s_fault() { restart_node2 120; }
sc_node2-clock-plus-120s_heal() { restart_node2 0; }
sc_node2-clock-plus-10s_fault() { restart_node2 10; }
sc_node2-clock-plus-10s_heal() { restart_node2 0; }

sc_node1-pause-20s_fault() { pause n1; }
sc_node1-pause-20s_heal() { resume n1; }

sc_node1-redis-dropped-5m_fault() { partition 1 redis drop both; }
sc_node1-redis-dropped-5m_heal() { heal_node_net 1; }

# Ten cycles of 20 s stopped and 40 s running; the heal ends the cycle (and resumes the node) wherever it is.
pause_cycles() {
    local c
    for c in $(seq 1 10); do
        mark "pause n1 (cycle $c)"
        pause n1
        sleep 20
        resume n1
        mark "resume n1 (cycle $c)"
        sleep 40
    done
}
sc_node1-pause-20s-every-60s_fault() {
    pause_cycles &
    echo $! >"$RUN/pids/pause-cycles"
}
sc_node1-pause-20s-every-60s_heal() {
    kill "$(cat "$RUN/pids/pause-cycles")" 2>/dev/null || true
    resume n1
}

sc_node1-redis-slow-5m_fault() { slow_link 1 redis 300 100 5; }
sc_node1-redis-slow-5m_heal() { heal_node_net 1; }

sc_node1-netem-60s_fault() { netem 1 300 100 5; }
sc_node1-netem-60s_heal() { heal_node_net 1; }

# A node that vanishes inside a trip commit (the review's F4c): with PostgreSQL stopped, node 1's statements
# wait in its backends' sockets; node 1 is then cut from PostgreSQL (so its death sends PostgreSQL no FIN or
# reset) and killed, and PostgreSQL resumed runs what was queued for a client that is gone. A transaction left
# open there holds its row locks until something ends the session (a session timeout; TCP keepalive only after
# hours): the checkers look for a session idle in a transaction, lock waiters that last, and acknowledged
# changes missing. The cut lasts long enough (26 s) for an orphan to show; then node 1 comes back.
sc_node1-killed-in-commit_fault() {
    pause postgres
    sleep 4
    partition 1 postgres drop both
    node_stop 1 -KILL
    mark "node 1 cut from PostgreSQL and killed with PostgreSQL paused"
    resume postgres
}
sc_node1-killed-in-commit_heal() {
    heal_node_net 1
    node_start 1
    node_wait 1
}

scenario_names() { local s; for s in "${SCENARIOS[@]}"; do echo "${s%%|*}"; done; }
scenario_field() {
    local s
    for s in "${SCENARIOS[@]}"; do
        [ "${s%%|*}" = "$1" ] || continue
        IFS='|' read -r -a parts <<<"$s"
        echo "${parts[$2]}"
        return 0
    done
    return 1
}
