#!/usr/bin/env bash
# The nemesis: one function per fault primitive, each with its heal (sourced by run.sh after cluster.sh).
# Partitions are iptables rules inside a node's namespace, so each path is cut on its own and one direction
# can be cut without the other; `heal_all` removes every rule and qdisc this suite added.

# partition NODE TARGET ACTION [DIRECTION]
#   TARGET: redis | postgres | clients      ACTION: drop | reject      DIRECTION: both (default) | out | in
# "out" drops the node's packets to the target; "in" drops the target's packets to the node.
partition() {
    local i=$1 target=$2 action=$3 direction=${4:-both} ns addr port jump
    ns=$(ns_node "$i")
    case "$action" in
    drop) jump=(-j DROP) ;;
    reject) jump=(-j REJECT --reject-with tcp-reset) ;;
    *) die "partition: action must be drop or reject" ;;
    esac
    case "$target" in
    redis) addr=$REDIS_ADDR port=$REDIS_PORT ;;
    postgres) addr=$PG_ADDR port=$PG_PORT ;;
    clients)
        # The balancer and the clients' namespace (canaries talk to the node directly) to the node's port.
        [ "$direction" != in ] && in_ns "$ns" iptables -A OUTPUT -p tcp --sport "$NODE_PORT" "${jump[@]}"
        [ "$direction" != out ] && in_ns "$ns" iptables -A INPUT -p tcp --dport "$NODE_PORT" "${jump[@]}"
        return 0
        ;;
    *) die "partition: target must be redis, postgres or clients" ;;
    esac
    [ "$direction" != in ] && in_ns "$ns" iptables -A OUTPUT -p tcp -d "$addr" --dport "$port" "${jump[@]}"
    # A REJECT on the way in answers the target, not the node: only DROP makes sense there.
    [ "$direction" != out ] && in_ns "$ns" iptables -A INPUT -p tcp -s "$addr" --sport "$port" -j DROP
    return 0
}

# netem NODE DELAY_MS JITTER_MS LOSS_PERCENT: on the node's only link (every path of that node). A kernel
# built without sch_netem (this suite's CI VM's) gets the loss alone, from iptables' statistic match, both ways.
netem() {
    local ns
    ns=$(ns_node "$1")
    if in_ns "$ns" tc qdisc replace dev eth0 root netem delay "${2}ms" "${3}ms" loss "${4}%" 2>/dev/null; then
        mark "netem on n$1: delay ${2} ms +- ${3} ms, loss ${4} %"
        return 0
    fi
    local p
    p=$(awk -v l="$4" 'BEGIN { printf "%.4f", l / 100 }')
    in_ns "$ns" iptables -A OUTPUT -m statistic --mode random --probability "$p" -j DROP
    in_ns "$ns" iptables -A INPUT -m statistic --mode random --probability "$p" -j DROP
    mark "no sch_netem in this kernel: n$1 gets ${4} % loss each way (iptables statistic), no delay"
}

# slow_link NODE TARGET DELAY_MS JITTER_MS LOSS_PERCENT: the node's packets to TARGET (redis or postgres) held
# DELAY_MS +- JITTER_MS and LOSS_PERCENT dropped by netdelay.py reading an NFQUEUE in the node's namespace (this
# kernel has no sch_netem; nfnetlink_queue it has). Like netem on the node's interface, only the node's packets
# wait (a round trip gains the delay once), and only that path is slowed: the
# node's clients and its other backend are not. The consumer starts before the rules that feed it (a queue
# with no reader drops what reaches it) and is stopped by heal_node_net after the rules are gone.
slow_link() {
    local i=$1 target=$2 ns addr port queue
    ns=$(ns_node "$i")
    case "$target" in
    redis) addr=$REDIS_ADDR port=$REDIS_PORT ;;
    postgres) addr=$PG_ADDR port=$PG_PORT ;;
    *) die "slow_link: target must be redis or postgres" ;;
    esac
    queue=$((10 + i))
    [ -x "$FAULTS_VENV/bin/python" ] || die "slow_link: no $FAULTS_VENV (run.sh installs netfilterqueue there)"
    setsid ip netns exec "$ns" "$FAULTS_VENV/bin/python" "$HERE/netdelay.py" "$queue" "$3" "$4" "$5" \
        "$((FAULTS_SEED * 31 + i))" >>"$RUN/netdelay-n$i.log" 2>&1 &
    echo $! >"$RUN/pids/netdelay-n$i"
    local _
    for _ in $(seq 1 50); do grep -q seen= "$RUN/netdelay-n$i.log" 2>/dev/null && break; sleep 0.1; done
    in_ns "$ns" iptables -A OUTPUT -p tcp -d "$addr" --dport "$port" -j NFQUEUE --queue-num "$queue"
    mark "n$i to $target: delay ${3} ms +- ${4} ms, loss ${5} % on the node's packets (NFQUEUE, netdelay.py)"
}

heal_node_net() {
    local ns
    ns=$(ns_node "$1")
    in_ns "$ns" iptables -F INPUT
    in_ns "$ns" iptables -F OUTPUT
    in_ns "$ns" tc qdisc del dev eth0 root 2>/dev/null || true
    # A delay's consumer, once nothing feeds it: it lets through what it still holds and exits.
    if [ -f "$RUN/pids/netdelay-n$1" ]; then
        kill -TERM "$(cat "$RUN/pids/netdelay-n$1")" 2>/dev/null || true
        rm -f "$RUN/pids/netdelay-n$1"
    fi
}

# pause / resume: node i, redis or postgres (the postmaster and every backend, by parent pid).
pids_of() {
    case "$1" in
    redis) redis_pid ;;
    postgres) pg_pids ;;
    n[0-9]) node_pid "${1#n}" ;;
    *) die "pause: redis, postgres or nN" ;;
    esac
}
pause() { local p; for p in $(pids_of "$1"); do kill -STOP "$p" 2>/dev/null || true; done; }
resume() { local p; for p in $(pids_of "$1"); do kill -CONT "$p" 2>/dev/null || true; done; }

redis_shutdown_nosave() { redis_run shutdown nosave >/dev/null 2>&1 || true; redis_wait_gone; }
redis_kill9() { kill -KILL "$(redis_pid)" 2>/dev/null || true; redis_wait_gone; }
redis_flushall() { redis_run flushall >/dev/null; }
redis_snapshot() { redis_run save >/dev/null; }

# Every fault of this run undone: rules and qdiscs gone, every process running.
heal_all() {
    local i
    for i in "${NODES[@]}"; do heal_node_net "$i" 2>/dev/null || true; resume "n$i" 2>/dev/null || true; done
    resume redis 2>/dev/null || true
    resume postgres 2>/dev/null || true
}
