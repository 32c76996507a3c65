#!/usr/bin/env bash
# The suite's network: one namespace holding a bridge, and one namespace per process group joined to it by a
# veth pair, so that each path (node to Redis, node to PostgreSQL, node to its clients) can be cut on its own.
#   topology.sh up | down
#
#   hf-br      the bridge hfbr0 (no address)
#   hf-pg      PostgreSQL        10.231.0.2
#   hf-redis   Redis             10.231.0.3
#   hf-n1..3   hail server       10.231.0.11-13
#   hf-lb      the balancer      10.231.0.100
#   hf-cl      the load clients  10.231.0.200
set -euo pipefail
source "$(dirname "$0")/lib.sh"

members() {
    echo "$NS_PG $PG_ADDR"
    echo "$NS_REDIS $REDIS_ADDR"
    local i
    for i in "${NODES[@]}"; do echo "$(ns_node "$i") $(node_addr "$i")"; done
    echo "$NS_LB $LB_ADDR"
    echo "$NS_CLIENTS $CLIENTS_ADDR"
}

up() {
    down 2>/dev/null || true
    ip netns add "$NS_BRIDGE"
    in_ns "$NS_BRIDGE" ip link set lo up
    in_ns "$NS_BRIDGE" ip link add hfbr0 type bridge
    in_ns "$NS_BRIDGE" ip link set hfbr0 up
    local n=0 ns addr
    while read -r ns addr; do
        n=$((n + 1))
        ip netns add "$ns"
        in_ns "$ns" ip link set lo up
        # Created inside the member's namespace, then one end moved to the bridge's: the root namespace never
        # holds an interface of this suite, even for an instant.
        in_ns "$ns" ip link add eth0 type veth peer name "hfv$n"
        in_ns "$ns" ip link set "hfv$n" netns "$NS_BRIDGE"
        in_ns "$NS_BRIDGE" ip link set "hfv$n" master hfbr0
        in_ns "$NS_BRIDGE" ip link set "hfv$n" up
        in_ns "$ns" ip addr add "$addr/24" dev eth0
        in_ns "$ns" ip link set eth0 up
    done < <(members)
    say "topology up: $(members | awk '{printf "%s=%s ", $1, $2}')"
}

down() {
    local ns _
    while read -r ns _; do ip netns del "$ns" 2>/dev/null || true; done < <(members)
    ip netns del "$NS_BRIDGE" 2>/dev/null || true
}

case "${1:-}" in
up) up ;;
down) down ;;
*) echo "usage: $0 up|down" >&2; exit 64 ;;
esac
