#!/usr/bin/env bash
# The load, all native clients run from the clients' namespace (sourced by run.sh):
#   - FAULTS_DRIVERS `hail drive --auto` (DriverModel: durable outbox, stream, accept, arrive, start, end),
#     and FAULTS_CANARY_DRIVERS more far from the load, kept for the canary rides after the heal,
#   - FAULTS_RIDERS riders riding ride after ride with `hail ride` (RiderModel: cursor, stream, resync),
#     one ride in three cancelled at a random moment,
#   - with FAULTS_FLEET=1 (off by default), one `hail fleet` process of FAULTS_FLEET_RIDERS riders and
#     FAULTS_FLEET_DRIVERS drivers (RiderModel and DriverModel on HailNet's clients) logging what I8 and I10 need,
#   - FAULTS_LOCATION_DRIVERS location-only drivers (`hail bench ingest`, one batch a second each),
#   - curl probes of each node and of the balancer (latency, status, Retry-After, /readyz),
# each writing an event log under $RUN/clients, every line prefixed with the epoch time it was read.

FAULTS_DRIVERS=${FAULTS_DRIVERS:-10}
FAULTS_RIDERS=${FAULTS_RIDERS:-10}
FAULTS_LOCATION_DRIVERS=${FAULTS_LOCATION_DRIVERS:-200}
LB_URL=http://$LB_ADDR:$LB_PORT
# The apps run at a lower priority than the nodes and the suite's own probes and samplers: on one machine they
# stand for phones, which never take a server's CPU. (In Redis outages the driver apps spin: the samples say
# how much, see samples-clients.log.)
CLIENT_NICE=${FAULTS_CLIENT_NICE:-5}

token() { "$HAIL" token --role "$1" --subject "$2" --private-key "$RUN/signing.pem" --ttl 7200; }

# Each line of stdin, prefixed with the epoch time it arrived.
stamp() { local line; while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done; }

# A point in Monaco's centre: $1 is a seeded random source index; prints LAT,LNG.
monaco_point() {
    local r1=$((RANDOM % 1000)) r2=$((RANDOM % 1000))
    printf '43.%04d,7.%04d' $((7340 + r1 * 100 / 1000)) $((4180 + r2 * 120 / 1000))
}

# The canaries' own area, about 30 km east of the load (Sanremo): dispatch looks 20 km around a pickup, so no
# load trip is offered to a canary driver and the location-only drivers (4-15 km west of Monaco) are never the
# nearest to a canary. A canary ride then waits for no free driver, and I9's "within 30 s of the heal" is fair.
CANARY_FROM=43.8170,7.7760
CANARY_TO=43.8185,7.7790

# One `hail drive --auto` app; $1 its id (fd-N or fc-N), $2 its log's name, $3 its start point.
start_driver_app() {
    local id=$1 log=$2 start=$3 t
    t=$(token driver "$id")
    echo "$id" >>"$RUN/clients/drivers.txt"
    setsid bash -c 'nice -n "$CLIENT_NICE" ip netns exec "$NS_CLIENTS" "$HAIL" drive --server "$LB_URL" --token "$2" --start "$3" \
        --speed 150 --auto --json --state "$RUN/clients/$1.sqlite" </dev/null 2>>"$RUN/clients/$1.err" \
        | stamp >>"$RUN/clients/$1.log"' _ "$log" "$t" "$start" &
    echo $! >>"$RUN/pids/clients"
}

# FAULTS_CANARY_DRIVERS (6) drivers waiting at the canaries' pickup all run long (through the fault, so they
# are judged too), two for each node's canary ride: one driver app that went quiet (a driver app whose only
# fix went out before its link was up sends no keep-alive, and dispatch drops it after 60 s) cannot then make
# a canary wait for a driver.
start_canary_drivers() {
    local i
    for i in $(seq 1 "${FAULTS_CANARY_DRIVERS:-6}"); do
        start_driver_app "fc-$i" "canary-driver-$i" "$CANARY_FROM"
    done
}

start_drivers() {
    local i
    for i in $(seq 1 "$FAULTS_DRIVERS"); do
        RANDOM=$((FAULTS_SEED * 7919 + i))
        start_driver_app "fd-$i" "driver-$i" "$(monaco_point)"
    done
}

# One rider's loop: ride, then a 2-6 s pause, then ride again, until $RUN/stop-load exists.
rider_loop() {
    local i=$1 t ride=0 status
    t=$(token rider "fr-$i")
    RANDOM=$((FAULTS_SEED * 104729 + i))
    while [ ! -e "$RUN/stop-load" ]; do
        ride=$((ride + 1))
        local from to cancel_after=0
        from=$(monaco_point)
        to=$(monaco_point)
        # One ride in three is cancelled 1 to 25 s after it starts (searching, assigned or arrived by then).
        [ $((RANDOM % 3)) -eq 0 ] && cancel_after=$((1 + RANDOM % 25))
        echo "$EPOCHREALTIME ride-start ride=$ride from=$from to=$to cancel_after=$cancel_after" >>"$RUN/clients/rider-$i.log"
        # --foreground: timeout otherwise makes a process group of its own, which the teardown's kill of the
        # loop's group (setsid) misses, and the ride ran on after the run, up to its 150 s.
        local cmd=(timeout --foreground 150 nice -n "$CLIENT_NICE" ip netns exec "$NS_CLIENTS" "$HAIL" ride --server "$LB_URL" --token "$t" --from "$from"
            --to "$to" --json --state "$RUN/clients/rider-$i.sqlite")
        if [ "$cancel_after" -gt 0 ]; then
            { sleep "$cancel_after"; echo c; } | "${cmd[@]}" 2>>"$RUN/clients/rider-$i.err" | stamp >>"$RUN/clients/rider-$i.log"
            status=${PIPESTATUS[1]}
        else
            "${cmd[@]}" </dev/null 2>>"$RUN/clients/rider-$i.err" | stamp >>"$RUN/clients/rider-$i.log"
            status=${PIPESTATUS[0]}
        fi
        # 0 completed, 1 failed, 2 cancelled, 3 no driver found, 124 still riding after 150 s (timeout).
        echo "$EPOCHREALTIME ride-exit ride=$ride status=$status" >>"$RUN/clients/rider-$i.log"
        sleep $((2 + RANDOM % 5))
    done
}

start_riders() {
    local i
    for i in $(seq 1 "$FAULTS_RIDERS"); do
        echo "fr-$i" >>"$RUN/clients/riders.txt"
        setsid bash -c 'rider_loop "$1"' _ "$i" &
        echo $! >>"$RUN/pids/clients"
    done
    start_fleet
}

# With FAULTS_FLEET=1: `hail fleet`, FAULTS_FLEET_RIDERS (6) riders riding ride after ride and FAULTS_FLEET_DRIVERS
# (6) drivers in one process (accounts fl-r-N, fl-d-N), on Monaco's roads when the map is found (FAULTS_FLEET_ROADS,
# else $HAIL_SHARED_DATA or ../shared/data beside the repository), each app's events in $RUN/clients/fleet/*.jsonl
# (check.py's I8 and I10 read them); it runs until stop_load.
start_fleet() {
    [ "${FAULTS_FLEET:-0}" = 1 ] || return 0
    local roads=${FAULTS_FLEET_ROADS:-${HAIL_SHARED_DATA:-$(dirname "$HAIL")/../../../shared/data}/osm/monaco.osm.pbf}
    local road_args=()
    [ -r "$roads" ] && road_args=(--roads "$roads")
    setsid nice -n "$CLIENT_NICE" ip netns exec "$NS_CLIENTS" "$HAIL" fleet --server "$LB_URL" \
        --secret-file "$RUN/signing.pem" --log "$RUN/clients/fleet" --riders "${FAULTS_FLEET_RIDERS:-6}" \
        --drivers "${FAULTS_FLEET_DRIVERS:-6}" --seed "$FAULTS_SEED" --speed 150 "${road_args[@]}" </dev/null \
        >"$RUN/clients/fleet.out" 2>"$RUN/clients/fleet.err" &
    echo $! >>"$RUN/pids/clients"
}

start_location_drivers() {
    [ "$FAULTS_LOCATION_DRIVERS" -gt 0 ] || return 0
    setsid bash -c "nice -n $CLIENT_NICE ip netns exec $NS_CLIENTS '$HAIL' bench ingest --server $LB_URL --secret-file '$RUN/signing.pem' \
        --connections $FAULTS_LOCATION_DRIVERS --interval-ms 1000 --points 1 --riders 0 --seconds $1 --json \
        >'$RUN/clients/location-drivers.json' 2>'$RUN/clients/location-drivers.err'" &
    echo $! >>"$RUN/pids/clients"
}

# One probe request; its line: start route target status seconds retry_after
probe_once() {
    local target=$1 route=$2 url=$3 t0 out
    shift 3
    t0=$EPOCHREALTIME
    out=$(ip netns exec "$NS_CLIENTS" curl -s -o /dev/null -m 20 -D - -w 'FAULTS %{http_code} %{time_total}' "$@" "$url" 2>/dev/null)
    local code seconds retry
    read -r code seconds < <(printf '%s' "$out" | sed -n 's/.*FAULTS \([0-9]*\) \([0-9.]*\)$/\1 \2/p')
    retry=$(printf '%s' "$out" | tr -d '\r' | sed -n 's/^[Rr]etry-[Aa]fter: *//p' | head -1)
    printf '%s %s %s %s %s %s\n' "$t0" "$route" "$target" "${code:-000}" "${seconds:-20}" "${retry:--}" >>"$RUN/clients/probes.log"
}

# Once a second: an estimate through the balancer and through each node, a driver's location batch through
# the balancer, and every other second each node's /readyz. A probe that hangs is left to its 20 s timeout,
# and a round is skipped while 40 are in flight, so an outage never piles up processes on the machine.
probe_loop() {
    local rider_token=$1 driver_token=$2 round=0
    local body='{"pickup":{"lat":43.7384,"lng":7.4246},"dropoff":{"lat":43.7312,"lng":7.4197}}'
    while [ ! -e "$RUN/stop-load" ]; do
        round=$((round + 1))
        if [ "$(jobs -rp | wc -l)" -lt 40 ]; then
            local target url
            for target in lb n1 n2 n3; do
                if [ "$target" = lb ]; then url=$LB_URL; else url=http://$FAULTS_NET.$((10 + ${target#n})):$NODE_PORT; fi
                probe_once "$target" estimates "$url/v1/estimates" -X POST -H "Authorization: Bearer $rider_token" \
                    -H 'Content-Type: application/json' -d "$body" &
                [ "$target" != lb ] && [ $((round % 2)) -eq 0 ] && probe_once "$target" readyz "$url/readyz" &
            done
            probe_once lb locations "$LB_URL/v1/drivers/me/locations" -X POST -H "Authorization: Bearer $driver_token" \
                -H 'Content-Type: application/json' \
                -d "{\"seq\":$((${EPOCHREALTIME/./} / 1000)),\"points\":[{\"lat\":43.70,\"lng\":7.25,\"accuracy\":5,\"heading\":0,\"speed\":0,\"t\":\"$(date -u +%Y-%m-%dT%H:%M:%S.000Z)\"}]}" &
        else
            echo "$EPOCHREALTIME skipped - - - - -" >>"$RUN/clients/probes.log"
        fi
        sleep 1
    done
    wait
}

# One REST call of a trip probe; appends "start method route target status seconds trip version state" and
# leaves the body in $PROBE_BODY.
trip_call() {
    local method=$1 route=$2 url=$3 t0 out code secs
    shift 3
    t0=$EPOCHREALTIME
    out=$(ip netns exec "$NS_CLIENTS" curl -s -m 30 -X "$method" -w '\nFAULTS %{http_code} %{time_total}' "$@" "$url" 2>/dev/null)
    read -r code secs < <(printf '%s' "$out" | sed -n 's/^FAULTS \([0-9]*\) \([0-9.]*\)$/\1 \2/p')
    PROBE_BODY=$(printf '%s' "$out" | sed '$d')
    local trip version state
    read -r trip version state < <(printf '%s' "$PROBE_BODY" | jq -r 'if type == "object" and has("version") then "\(.id) \(.version) \(.state)" else "- - -" end' 2>/dev/null || echo "- - -")
    printf '%s %s %s %s %s %s %s %s %s\n' "$t0" "$method" "$route" lb "${code:-000}" "${secs:-30}" "${trip:--}" "${version:--}" "${state:--}" \
        >>"$RUN/clients/tripprobe-$PROBE_ID.log"
    PROBE_CODE=${code:-000}
}

# A rider that speaks REST by hand so that every 2xx answer's (trip, version, state) is logged (I1 with
# versions): requests a trip (the same Idempotency-Key, a UUID made of seed, probe and ride, on every retry), reads it once a second until it is
# over, cancels one trip in three. Rides on the same drivers as the apps.
trip_probe_loop() {
    PROBE_ID=$1
    local token n=0 body auth
    token=$(token rider "fp-$PROBE_ID")
    auth="Authorization: Bearer $token"
    RANDOM=$((FAULTS_SEED * 15485863 + PROBE_ID))
    while [ ! -e "$RUN/stop-load" ]; do
        n=$((n + 1))
        local from to trip="" tries=0 cancel_at=0 started=$SECONDS
        from=$(monaco_point)
        to=$(monaco_point)
        body="{\"pickup\":{\"lat\":${from%,*},\"lng\":${from#*,}},\"dropoff\":{\"lat\":${to%,*},\"lng\":${to#*,}},\"productID\":\"economy\"}"
        [ $((RANDOM % 3)) -eq 0 ] && cancel_at=$((3 + RANDOM % 18))
        while [ -z "$trip" ] && [ "$tries" -lt 20 ] && [ ! -e "$RUN/stop-load" ]; do
            tries=$((tries + 1))
            trip_call POST trips "$LB_URL/v1/trips" -H "$auth" -H 'Content-Type: application/json' \
                -H "Idempotency-Key: $(printf '%08x-0000-4000-8%03x-%012x' "$FAULTS_SEED" "$PROBE_ID" "$n")" -d "$body"
            case "$PROBE_CODE" in
            200 | 201) trip=$(printf '%s' "$PROBE_BODY" | jq -r .id) ;;
            409)
                trip_call GET active "$LB_URL/v1/trips/active" -H "$auth"
                [ "$PROBE_CODE" = 200 ] && trip=$(printf '%s' "$PROBE_BODY" | jq -r '.id // empty')
                ;;
            esac
            [ -z "$trip" ] && sleep 2
        done
        [ -n "$trip" ] || continue
        local state=searching cancelled=0
        while [ ! -e "$RUN/stop-load" ] && [ $((SECONDS - started)) -lt 150 ]; do
            sleep 1
            if [ "$cancel_at" -gt 0 ] && [ "$cancelled" -eq 0 ] && [ $((SECONDS - started)) -ge "$cancel_at" ] \
                && [ "$state" != onTrip ]; then
                trip_call POST cancel "$LB_URL/v1/trips/$trip/cancel" -H "$auth" -H "Idempotency-Key: $(printf '%08x-0001-4000-8%03x-%012x' "$FAULTS_SEED" "$PROBE_ID" "$n")"
                [ "$PROBE_CODE" = 200 ] && cancelled=1
            fi
            trip_call GET trip "$LB_URL/v1/trips/$trip" -H "$auth"
            if [ "$PROBE_CODE" = 200 ]; then state=$(printf '%s' "$PROBE_BODY" | jq -r .state); fi
            case "$state" in completed | cancelled | noDriversFound) break ;; esac
        done
        sleep $((1 + RANDOM % 4))
    done
}

start_trip_probes() {
    local i
    for i in $(seq 1 "${FAULTS_TRIP_PROBES:-3}"); do
        setsid bash -c 'trip_probe_loop "$1"' _ "$i" &
        echo $! >>"$RUN/pids/clients"
    done
}

start_probes() {
    local rt dt
    rt=$(token rider fault-probe-rider)
    dt=$(token driver fault-probe-driver)
    setsid bash -c 'probe_loop "$1" "$2"' _ "$rt" "$dt" &
    echo $! >>"$RUN/pids/clients"
}

# What the clients' shells need: they are started with setsid bash -c, which inherits exported functions.
export_load() {
    export -f stamp monaco_point token start_driver_app rider_loop probe_loop probe_once trip_call trip_probe_loop
    export RUN HAIL NS_CLIENTS LB_URL FAULTS_SEED FAULTS_NET NODE_PORT CLIENT_NICE
}

# Once a second: PostgreSQL sessions idle in a transaction (and for how long), lock waiters, each node's
# RSS, descriptors and CPU time, and the machine's load average; read by the checkers (I9, I11, the report).
sample_loop() {
    local n=0
    while [ ! -e "$RUN/stop-load" ]; do
        local t=$EPOCHREALTIME
        # The machine's load average: latencies and canary times are judged against it.
        echo "$t $(cut -d' ' -f1 /proc/loadavg)" >>"$RUN/samples-load.log"
        PSQL_TIMEOUT=2 psql_run -tAc "SELECT '$t', coalesce(max(extract(epoch from now() - state_change)) FILTER (WHERE state = 'idle in transaction'), 0), count(*) FILTER (WHERE state = 'idle in transaction'), count(*) FILTER (WHERE wait_event_type = 'Lock'), count(*) FROM pg_stat_activity WHERE datname = 'hail'" \
            >>"$RUN/samples-pg.log" 2>/dev/null || echo "$t unreachable" >>"$RUN/samples-pg.log"
        local i
        for i in "${NODES[@]}"; do
            local pid
            pid=$(node_pid "$i" 2>/dev/null) || continue
            [ -r "/proc/$pid/status" ] || continue
            local rss fds cpu
            rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
            fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
            cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat")
            echo "$t n$i $pid $rss $fds $cpu" >>"$RUN/samples-nodes.log"
        done
        # CPU ticks of each driver app of this run, per pid (phones that spin show up here).
        local p line=""
        for p in $(pgrep -f -- "--state $RUN/clients/.*driver-" 2>/dev/null); do
            line+=" $p:$(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)"
        done
        echo "$t$line" >>"$RUN/samples-clients.log"
        # Every 5 s, each node's bus subscriptions (channels, patterns and shard channels of its Redis
        # connections, from CLIENT LIST; I11), in the background so a paused Redis does not stop the samples.
        n=$((n + 1))
        [ $((n % 5)) -eq 1 ] && sample_bus "$t" &
        sleep 1
    done
}

# One line "time addr:subscriptions ..." per node address with a connection to Redis.
sample_bus() {
    REDIS_TIMEOUT=3 redis_run client list 2>/dev/null | awk -v t="$1" '
        { ip = ""; n = 0
          for (i = 1; i <= NF; i++) {
              split($i, kv, "=")
              if (kv[1] == "addr") { split(kv[2], a, ":"); ip = a[1] }
              if (kv[1] == "sub" || kv[1] == "psub" || kv[1] == "ssub") n += kv[2]
          }
          if (ip != "") { subs[ip] += n; conns[ip]++ } }
        END { line = t; for (ip in subs) line = line " " ip ":" subs[ip] ":" conns[ip]; print line }' >>"$RUN/samples-bus.log"
}

# Twice a second, the time: a gap over 2 s is a stall of the machine (nothing of the suite ran, the nodes
# neither), which the checkers subtract from a request's wait before judging it against a deadline.
heartbeat_loop() {
    while [ ! -e "$RUN/stop-load" ]; do
        printf '%s\n' "$EPOCHREALTIME" >>"$RUN/heartbeat.log"
        sleep 0.5
    done
}

start_samplers() {
    ( sample_loop ) &
    echo $! >>"$RUN/pids/clients"
    ( heartbeat_loop ) &
    echo $! >>"$RUN/pids/clients"
}

stop_load() {
    touch "$RUN/stop-load"
    local pid
    # Each client was started with setsid: its process group id is its pid, so the group is ended by that id.
    for pid in $(cat "$RUN/pids/clients" 2>/dev/null); do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
    sleep 1
    for pid in $(cat "$RUN/pids/clients" 2>/dev/null); do kill -KILL -- "-$pid" 2>/dev/null || true; done
}
