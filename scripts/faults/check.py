#!/usr/bin/env python3
"""The checkers of issue 37's invariants, run after each scenario on its run directory.

Reads the clients' event logs (every line prefixed with the epoch time it was read), the probes, the samples,
and the dumps of PostgreSQL and Redis taken before the fault, 30 s and 80 s after the heal and at the end.
Writes check.json (one result per invariant: pass, fail, n/a, with evidence) and report.md (one page).
"""
import bisect
import json
import math
import os
import re
import struct
import sys
from collections import defaultdict

RUN = sys.argv[1]
FINAL = {"completed", "cancelled", "noDriversFound"}
ACTIVE = {"searching", "driverAssigned", "driverArrived", "onTrip"}
# The state machine's edges (HailCore TripRules.transition); a change that keeps the state is an ETA update,
# allowed only where TripRules allows etaUpdated.
LEGAL = {
    ("searching", "driverAssigned"), ("searching", "noDriversFound"), ("searching", "cancelled"),
    ("driverAssigned", "cancelled"), ("driverAssigned", "searching"), ("driverAssigned", "driverArrived"),
    ("driverAssigned", "driverAssigned"), ("driverArrived", "cancelled"), ("driverArrived", "onTrip"),
    ("onTrip", "completed"), ("onTrip", "onTrip"),
}


def path(*parts):
    return os.path.join(RUN, *parts)


def read_env():
    env = {}
    with open(path("run.env")) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
    return env


def timeline():
    marks = []
    with open(path("timeline.log")) as f:
        for line in f:
            t, text = line.rstrip("\n").split(" ", 1)
            marks.append((float(t), text))
    return marks


def mark_time(marks, prefix):
    for t, text in marks:
        if text.startswith(prefix):
            return t
    return None


def load_json(name, default):
    try:
        with open(path(name)) as f:
            text = f.read().strip()
            if not text:
                return default
            try:
                return json.loads(text)
            except ValueError:
                # A dump written by COPY ... TO STDOUT (earlier runs) has its newlines escaped.
                return json.loads(text.replace("\\n", "\n"))
    except (OSError, ValueError):
        return default


def stamped(name):
    """(time, json-or-None, raw) per line of a client's log."""
    out = []
    try:
        with open(path("clients", name)) as f:
            for line in f:
                line = line.rstrip("\n")
                if " " not in line:
                    continue
                t, rest = line.split(" ", 1)
                try:
                    t = float(t)
                except ValueError:
                    continue
                obj = None
                if rest.startswith("{"):
                    try:
                        obj = json.loads(rest)
                    except ValueError:
                        obj = None
                out.append((t, obj, rest))
    except OSError:
        pass
    return out


def names(file):
    try:
        with open(path("clients", file)) as f:
            return [l.strip() for l in f if l.strip()]
    except OSError:
        return []


def redis_dump(tag):
    rows = {}
    try:
        with open(path(f"dump-{tag}-redis.txt")) as f:
            for line in f:
                if "\t" not in line:
                    continue
                d, text = line.rstrip("\n").split("\t", 1)
                try:
                    rows[d] = json.loads(text) if text else {}
                except ValueError:
                    rows[d] = {"unreadable": text}
    except OSError:
        pass
    return rows


def dump_time(tag):
    try:
        with open(path("dumps.log")) as f:
            for line in f:
                t, name = line.split()
                if name == tag:
                    return float(t)
    except OSError:
        pass
    return None


def machine_stalls():
    """Intervals in which the suite's own processes were not run: gaps in its heartbeat (a bash loop writing the
    time every 0.5 s) over 2 s, or, in runs without one, gaps in the once-a-second samples over 4 s (a sample
    waits up to 2 s for PostgreSQL). On a machine shared with builds, a request that overlaps such a stall was
    slow because nothing ran, the nodes included, not because a deadline is missing."""
    for name, normal, threshold in (("heartbeat.log", 0.5, 2.0), ("samples-load.log", 1.5, 4.0)):
        try:
            with open(path(name)) as f:
                ts = [float(line.split()[0]) for line in f if line.strip()]
        except (OSError, ValueError):
            continue
        if len(ts) > 10:
            return [(a + normal, b) for a, b in zip(ts, ts[1:]) if b - a > threshold]
    return []


def overlap(stalls, lo, hi):
    return sum(max(0.0, min(hi, b) - max(lo, a)) for a, b in stalls)


def result(status, summary, evidence=None):
    return {"status": status, "summary": summary, "evidence": (evidence or [])[:12]}


# I8 and I10 from `hail fleet`'s event logs (clients/fleet/*.jsonl: one JSON object a line, `t` in epoch seconds;
# docs/RELIABILITY.md, "A native load client"). Each function takes the log directory and returns a result, or
# None when the run had no fleet; `--self-test` runs them on small hand-written logs.

def fleet_logs(fleet_dir):
    """{file stem: [event]} of every driver-N.jsonl and rider-N.jsonl in fleet_dir; a torn last line is skipped."""
    logs = {}
    try:
        files = sorted(os.listdir(fleet_dir))
    except OSError:
        return logs
    for name in files:
        if not name.endswith(".jsonl"):
            continue
        events = []
        with open(os.path.join(fleet_dir, name)) as f:
            for line in f:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    continue
        logs[name[:-len(".jsonl")]] = events
    return logs


def fleet_subject(events):
    return next((e.get("subject") for e in events if e.get("ev") == "app"), None)


def haversine(a, b):
    lat1, lng1, lat2, lng2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(min(1.0, math.sqrt(h)))


def check_i8_fleet(logs, tolerance=0.03, since=None, until=None):
    """I8: each trip a fleet driver ended `completed` was charged (the receipt's distance) within `tolerance` of the
    path through every fix the driver's app had acknowledged for it (by the stream's ack, the REST answer, or the
    end's answer), in fix-time order, from where the car stood at the start: the newest fix taken before the app
    showed the trip started that the server acknowledged at any time. The app logs the newest acknowledged when the
    start is shown (`via` `start`); a backlog the server acknowledges later can hold a newer one (a start during a
    Redis pause), and the car stood there, not at the older fix. A completed trip with fewer than two acknowledged
    fixes is listed, not judged (the server then charges the straight-line estimate). Only trips that ended from
    `since` to `until` are judged: a soak window's own, not every trip the soak's fleet has ridden so far."""
    drivers = {k: v for k, v in logs.items() if k.startswith("driver-")}
    if not drivers:
        return None
    judged, bad, unjudged, worst = 0, [], [], 0.0
    for name, events in sorted(drivers.items()):
        fixes, ends, starts, acknowledged = defaultdict(dict), {}, {}, {}
        for e in events:
            if e.get("ev") == "fixes":
                if e.get("via") == "start" and e.get("trip"):
                    starts.setdefault(e["trip"], e["t"])
                    continue
                for t, lat, lng in e.get("fixes", []):
                    acknowledged[t] = (lat, lng)
                    if e.get("trip"):
                        fixes[e["trip"]][t] = (lat, lng)
            elif e.get("ev") == "tripEnd" and e.get("state") == "completed" and e.get("distance") is not None:
                if (since is None or e["t"] >= since) and (until is None or e["t"] <= until):
                    ends.setdefault(e["trip"], e)
        for trip, start in starts.items():
            before = [t for t in acknowledged if t <= start]
            if before:
                origin = max(before)
                fixes[trip][origin] = acknowledged[origin]
        for trip, end in sorted(ends.items()):
            points = [p for _, p in sorted(fixes[trip].items())]
            if len(points) < 2:
                unjudged.append(f"{name}: trip {trip} completed with {len(points)} acknowledged fix(es), "
                                f"charged {end['distance']} m")
                continue
            driven = sum(haversine(points[i - 1], points[i]) for i in range(1, len(points)))
            charged = end["distance"]
            deviation = abs(charged - driven) / driven if driven > 0 else (0.0 if charged == 0 else 1.0)
            judged += 1
            worst = max(worst, deviation)
            if deviation > tolerance:
                bad.append(f"{name}: trip {trip} charged {charged} m, its {len(points)} acknowledged fixes make "
                           f"{driven:.0f} m ({deviation * 100:.1f} %)")
    if not judged and not unjudged:
        return result("n/a", "no fleet trip completed")
    return result("fail" if bad else "pass",
                  f"{judged} completed fleet trips judged, {len(bad)} charged off their acknowledged fixes by over "
                  f"{tolerance * 100:.0f} % (worst {worst * 100:.1f} %); {len(unjudged)} without fixes to judge",
                  bad + unjudged)


def check_i10_fleet(logs, live_below=6.0, server_clocks_true=True):
    """I10: no fleet rider's screen showed its pin `live` while the true age of the fix it showed was `live_below`
    seconds or more: each `frame` with pin live is joined, by its driver and seq, to that driver's `sent` batch,
    whose newest fix's time is the true one (every app of a fleet shares the machine's clock). A frame whose batch
    is not in the driver's log (a driver outside the fleet, such as the suite's own `hail drive`) is judged by the
    fix time the server estimated (`fixedAt`), which is never after the fix was taken (`FixTimeEstimator`), so
    `t - fixedAt` bounds the true age from above: a pass there is a pass. That needs the server's clock to be the
    machine's: in a clock scenario (`server_clocks_true` false) such frames are counted, not judged."""
    riders = {k: v for k, v in logs.items() if k.startswith("rider-")}
    if not riders:
        return None
    fix_time = {}
    for name, events in logs.items():
        if not name.startswith("driver-"):
            continue
        subject = fleet_subject(events)
        for e in events:
            if e.get("ev") == "sent" and e.get("lastFixAt") is not None:
                fix_time[(subject, e["seq"])] = e["lastFixAt"]
    judged, by_estimate, unmatched, bad, worst = 0, 0, 0, [], None
    for name, events in sorted(riders.items()):
        for e in events:
            if e.get("ev") != "frame" or e.get("pin") != "live":
                continue
            taken = fix_time.get((e.get("driver"), e.get("seq")))
            source = "taken"
            if taken is None and server_clocks_true and e.get("fixedAt") is not None:
                taken, source = e["fixedAt"], "taken by the server's estimate"
                by_estimate += 1
            if taken is None:
                unmatched += 1
                continue
            judged += 1
            age = e["t"] - taken
            worst = age if worst is None else max(worst, age)
            if age >= live_below:
                bad.append(f"{name}: pin live at {e['t']:.3f} on trip {e.get('trip')} for {e.get('driver')}'s "
                           f"seq {e.get('seq')}, {source} {age:.1f} s before (the screen said {e.get('age', 0):.1f} s)")
    if not judged and not unmatched:
        return result("n/a", "no fleet rider showed a live pin")
    return result("fail" if bad else "pass",
                  f"{judged} live pins judged ({by_estimate} of them by the server's fix time), {len(bad)} with a true "
                  f"fix age of {live_below:.0f} s or more (oldest {(worst or 0):.1f} s); {unmatched} not judged",
                  bad)


def fleet_offer_spans(logs, server_clocks_true=True):
    """Each fleet driver's offers on its screen as {trip: [(since, until, driver)]}: from the offer's arrival to its
    withdrawal, the driver's answer to it (an accept or a decline, whatever the outcome), or its lapse (`expiresAt`,
    on the server's clock, so not used in a clock scenario), whichever came first; an offer with none of these lasts
    to the end of the log."""
    spans = defaultdict(list)
    for name, events in logs.items():
        if not name.startswith("driver-"):
            continue
        driver = fleet_subject(events) or name
        open_offers = {}
        for e in events:
            trip, kind = e.get("trip"), e.get("ev")
            if kind == "offer" and trip:
                until = e.get("expiresAt") if server_clocks_true else None
                open_offers[trip] = (e["t"], until if until is not None else float("inf"))
            elif trip in open_offers and (kind == "offerWithdrawn" or (
                    kind == "rest" and e.get("call") in ("accept", "decline"))):
                since, until = open_offers.pop(trip)
                spans[trip].append((since, min(until, e["t"]), driver))
        for trip, (since, until) in open_offers.items():
            spans[trip].append((since, until, driver))
    return spans


def fleet_streams_late(logs, heal_at, within=35.0, settling=5.0):
    """I7 from the fleet's logs: the apps whose stream was not back `within` seconds after the heal. At that instant
    a driver's last stream event must be its hello; a rider's too, while a ride is under way: a stream that closed
    with its ride (the ride's end logged within `settling` s of the close) is not missing. A stream event under
    `settling` s old is a reconnect (or a ride's start) still under way, not judged."""
    cut = heal_at + within
    late = []
    for name, events in sorted(logs.items()):
        if not any(e.get("ev") == "app" and e["t"] <= heal_at for e in events):
            continue
        last = None
        for e in events:
            if e["t"] > cut:
                break
            if e.get("ev") == "stream":
                last = e
        if last is None or last.get("stream") == "hello" or cut - last["t"] < settling:
            continue
        if name.startswith("rider-") and last.get("stream") == "closed":
            ended = any(e.get("ev") == "ride" and e.get("step") == "end" and e.get("trip") == last.get("trip")
                        and e["t"] <= last["t"] + settling for e in events)
            if ended or not last.get("trip"):
                continue
        late.append(f"{name} ({fleet_subject(events)}): stream {last.get('stream')} since heal{last['t'] - heal_at:+.1f} s"
                    + (f", trip {last.get('trip')}" if last.get("trip") else "") + f", at heal+{within:.0f} s")
    return late


def fleet_self_test():
    """The I8 and I10 checkers on hand-written logs: one of each passing, one of each failing, and no fleet."""
    import tempfile
    def write(folder, name, events):
        with open(os.path.join(folder, name), "w") as f:
            for e in events:
                f.write(json.dumps(e) + "\n")
            f.write('{"t": 9, "ev": "torn')
    # 0.001 degrees of latitude is 111.195 m on this sphere.
    step = 0.001
    path_fixes = [[100.0 + i, 43.73 + i * step, 7.42] for i in range(5)]
    failures = []
    with tempfile.TemporaryDirectory() as d:
        if check_i8_fleet(fleet_logs(d)) is not None or check_i10_fleet(fleet_logs(d)) is not None:
            failures.append("a run without fleet logs is not n/a (None)")
        write(d, "driver-1.jsonl", [
            {"t": 90, "ev": "app", "role": "driver", "subject": "fl-d-1"},
            {"t": 100.2, "ev": "sent", "seq": 7, "via": "stream", "lastFixAt": 100.0},
            {"t": 102.2, "ev": "sent", "seq": 8, "via": "stream", "lastFixAt": 102.0},
            {"t": 100.3, "ev": "fixes", "seq": 7, "via": "stream", "trip": "t-1", "fixes": path_fixes[:2]},
            {"t": 102.3, "ev": "fixes", "seq": 8, "via": "rest", "trip": "t-1", "fixes": path_fixes[2:4]},
            {"t": 104.5, "ev": "fixes", "via": "ended", "trip": "t-1", "fixes": path_fixes[3:]},
            {"t": 104.6, "ev": "tripEnd", "trip": "t-1", "state": "completed", "distance": 447, "fare": 900},
            {"t": 104.7, "ev": "tripEnd", "trip": "t-1", "state": "completed", "distance": 447, "fare": 900},
            {"t": 110.0, "ev": "fixes", "seq": 9, "via": "stream", "trip": "t-2", "fixes": path_fixes[:3]},
            {"t": 111.0, "ev": "tripEnd", "trip": "t-2", "state": "completed", "distance": 300},
            {"t": 112.0, "ev": "tripEnd", "trip": "t-3", "state": "completed", "distance": 250},
        ])
        write(d, "rider-1.jsonl", [
            {"t": 95, "ev": "app", "role": "rider", "subject": "fl-r-1"},
            {"t": 100.5, "ev": "frame", "pin": "live", "driver": "fl-d-1", "seq": 7, "trip": "t-1", "age": 0.4},
            {"t": 105.9, "ev": "frame", "pin": "live", "driver": "fl-d-1", "seq": 7, "trip": "t-1", "age": 5.8},
            {"t": 107.5, "ev": "frame", "pin": "updating", "driver": "fl-d-1", "seq": 7, "trip": "t-1", "age": 7.4},
            {"t": 108.5, "ev": "frame", "pin": "live", "driver": "fl-d-1", "seq": 8, "trip": "t-1", "age": 5.9},
            {"t": 109.0, "ev": "frame", "pin": "live", "driver": "someone-else", "seq": 3, "trip": "t-9"},
            {"t": 109.5, "ev": "frame", "pin": "live", "driver": "someone-else", "seq": 4, "trip": "t-9",
             "fixedAt": 104.0},
            {"t": 110.0, "ev": "frame", "pin": "live", "driver": "someone-else", "seq": 5, "trip": "t-9",
             "fixedAt": 103.8},
        ])
        if check_i8_fleet(fleet_logs(d), since=111.5)["summary"] != (
                "0 completed fleet trips judged, 0 charged off their acknowledged fixes by over 3 % (worst 0.0 %); "
                "1 without fixes to judge"):
            failures.append(f"I8 of a soak window: {check_i8_fleet(fleet_logs(d), since=111.5)}")
        i8 = check_i8_fleet(fleet_logs(d))
        # t-1: 4 x 111.195 = 444.8 m charged 447 (0.5 %): pass; t-2: 222.4 m charged 300 (34.9 %): fail; t-3 unjudged.
        if i8["status"] != "fail" or not i8["summary"].startswith("2 completed fleet trips judged, 1 charged"):
            failures.append(f"I8: {i8}")
        if len(i8["evidence"]) != 2 or "t-2 charged 300 m" not in i8["evidence"][0] or "t-3" not in i8["evidence"][1]:
            failures.append(f"I8 evidence: {i8['evidence']}")
        i10 = check_i10_fleet(fleet_logs(d))
        # 100.5 (0.5 s) and 105.9 (5.9 s) hold; 108.5 shows seq 8, taken at 102.0: 6.5 s old while live. Outside the
        # fleet: seq 3 has no fixedAt (not judged), seq 4's 5.5 s holds, seq 5 was live 6.2 s after the server's estimate.
        if i10["status"] != "fail" or not i10["summary"].startswith(
                "5 live pins judged (2 of them by the server's fix time), 2 with"):
            failures.append(f"I10: {i10}")
        if (len(i10["evidence"]) != 2 or "seq 8, taken 6.5 s before" not in i10["evidence"][0]
                or "seq 5, taken by the server's estimate 6.2 s before" not in i10["evidence"][1]):
            failures.append(f"I10 evidence: {i10['evidence']}")
        if "1 not judged" not in i10["summary"]:
            failures.append(f"I10 unmatched: {i10['summary']}")
        clock = check_i10_fleet(fleet_logs(d), server_clocks_true=False)
        if not clock["summary"].startswith("3 live pins judged (0 of them") or "3 not judged" not in clock["summary"]:
            failures.append(f"I10 in a clock scenario: {clock}")
    with tempfile.TemporaryDirectory() as d:
        write(d, "driver-1.jsonl", [
            {"t": 90, "ev": "app", "role": "driver", "subject": "fl-d-1"},
            {"t": 100.2, "ev": "sent", "seq": 7, "lastFixAt": 100.0},
            {"t": 104.5, "ev": "fixes", "via": "ended", "trip": "t-1", "fixes": path_fixes},
            {"t": 104.6, "ev": "tripEnd", "trip": "t-1", "state": "completed", "distance": 457},
        ])
        write(d, "rider-1.jsonl", [{"t": 105.99, "ev": "frame", "pin": "live", "driver": "fl-d-1", "seq": 7}])
        i8, i10 = check_i8_fleet(fleet_logs(d)), check_i10_fleet(fleet_logs(d))
        # 457 against 444.8 m is 2.7 %: within 3 %; 5.99 s is under 6 s.
        if i8["status"] != "pass" or i10["status"] != "pass":
            failures.append(f"passing logs: I8 {i8}, I10 {i10}")
    with tempfile.TemporaryDirectory() as d:
        # The car's last fix at the pickup is taken at 102; it stands there until the app shows the start at 110.
        write(d, "driver-1.jsonl", [
            {"t": 90, "ev": "app", "role": "driver", "subject": "fl-d-1"},
            {"t": 100.1, "ev": "sent", "seq": 1, "lastFixAt": 100.0},
            {"t": 102.1, "ev": "sent", "seq": 2, "lastFixAt": 102.0},
            {"t": 110.0, "ev": "trip", "trip": "t-1", "state": "onTrip"},
            {"t": 111.1, "ev": "sent", "seq": 3, "lastFixAt": 111.0},
        ])
        write(d, "rider-1.jsonl", [
            {"t": 95, "ev": "app", "role": "rider", "subject": "fl-r-1"},
            {"t": 100.5, "ev": "frame", "pin": "live", "phase": "driverAssigned", "driver": "fl-d-1", "seq": 1},
            {"t": 102.3, "ev": "frame", "pin": "live", "phase": "driverArrived", "driver": "fl-d-1", "seq": 2},
            {"t": 111.4, "ev": "frame", "pin": "live", "phase": "onTrip", "driver": "fl-d-1", "seq": 3},
            {"t": 115.0, "ev": "rest", "call": "trip", "outcome": "ok"},
        ])
        age = fleet_position_age(fleet_logs(d), [("w", 100, 130)])
        # Samples at 101..114 (the app's log ends at 115): 1, 2, then 0 while the car stood (103-110), 1, 1, 2, 3.
        if age != {"w": {"samples": 14, "p50": 0.0, "p99": 3.0, "max": 3.0, "over_target": 0}}:
            failures.append(f"position age: {age}")
    with tempfile.TemporaryDirectory() as d:
        # Started during a Redis pause: when the app showed the start (99.8) its newest acknowledged fix was at 90,
        # 333.6 m back; the backlog acknowledged at 101.1 holds where the car stood (99.0, 111.2 m back).
        write(d, "driver-1.jsonl", [
            {"t": 90, "ev": "app", "role": "driver", "subject": "fl-d-1"},
            {"t": 99.8, "ev": "fixes", "via": "start", "trip": "t-4", "fixes": [[90.0, 43.727, 7.42]]},
            {"t": 101.1, "ev": "fixes", "seq": 9, "via": "rest", "backlog": True,
             "fixes": [[98.0, 43.728, 7.42], [99.0, 43.729, 7.42]]},
            {"t": 101.2, "ev": "fixes", "seq": 10, "via": "rest", "trip": "t-4", "fixes": path_fixes},
            {"t": 104.6, "ev": "tripEnd", "trip": "t-4", "state": "completed", "distance": 556},
        ])
        i8 = check_i8_fleet(fleet_logs(d))
        # From 43.729 through the five fixes: 5 x 111.195 = 556.0 m (from the older fix it would be 778.4 m).
        if i8["status"] != "pass" or "worst 0.0 %" not in i8["summary"]:
            failures.append(f"I8 from where the car stood: {i8}")
    with tempfile.TemporaryDirectory() as d:
        write(d, "driver-1.jsonl", [
            {"t": 90, "ev": "app", "role": "driver", "subject": "fl-d-1"},
            {"t": 91, "ev": "stream", "stream": "hello"},
            {"t": 100, "ev": "offer", "trip": "t-5", "expiresAt": 115},
            {"t": 101, "ev": "offerWithdrawn", "trip": "t-5"},
            {"t": 200, "ev": "offer", "trip": "t-6", "expiresAt": 215},
            {"t": 300, "ev": "stream", "stream": "closed", "code": 4013},
            {"t": 303, "ev": "stream", "stream": "connecting"},
            {"t": 304, "ev": "stream", "stream": "hello"},
        ])
        write(d, "driver-2.jsonl", [
            {"t": 90, "ev": "app", "role": "driver", "subject": "fl-d-2"},
            {"t": 91, "ev": "stream", "stream": "hello"},
            {"t": 101.5, "ev": "offer", "trip": "t-5", "expiresAt": 116.5},
            {"t": 102, "ev": "rest", "call": "accept", "trip": "t-5", "outcome": "ok"},
            {"t": 210, "ev": "offer", "trip": "t-6", "expiresAt": 225},
            {"t": 211, "ev": "rest", "call": "accept", "trip": "t-6", "outcome": "conflict"},
            {"t": 311, "ev": "stream", "stream": "closed", "code": 1006},
        ])
        write(d, "rider-1.jsonl", [
            {"t": 90, "ev": "app", "role": "rider", "subject": "fl-r-1"},
            {"t": 305, "ev": "stream", "stream": "closed", "trip": "t-7"},
            {"t": 305.3, "ev": "ride", "step": "end", "trip": "t-7", "state": "completed"},
        ])
        write(d, "rider-2.jsonl", [
            {"t": 90, "ev": "app", "role": "rider", "subject": "fl-r-2"},
            {"t": 306, "ev": "stream", "stream": "closed", "trip": "t-8"},
            {"t": 400, "ev": "ride", "step": "end", "trip": "t-8", "state": "completed"},
        ])
        offers = fleet_offer_spans(fleet_logs(d))
        # t-5: fl-d-1 100-101 (withdrawn), fl-d-2 101.5-102 (accepted); t-6: fl-d-1 200-215 (lapsed), fl-d-2 210-211.
        expected = {"t-5": [(100, 101, "fl-d-1"), (101.5, 102, "fl-d-2")],
                    "t-6": [(200, 215, "fl-d-1"), (210, 211, "fl-d-2")]}
        if {k: sorted(v) for k, v in offers.items()} != expected:
            failures.append(f"offer spans: {dict(offers)}")
        if sorted(fleet_offer_spans(fleet_logs(d), server_clocks_true=False)["t-6"])[0] != (200, float("inf"), "fl-d-1"):
            failures.append("offer spans in a clock scenario keep the server's lapse")
        # Healed at 280, judged at 315: fl-d-1 back (hello at 304); fl-d-2 closed since 311, 4 s: not judged yet;
        # rider-1 closed with its ride; rider-2's stream closed 9 s before the cut with its ride going on.
        late = fleet_streams_late(fleet_logs(d), heal_at=280)
        if len(late) != 1 or not late[0].startswith("rider-2 (fl-r-2): stream closed since heal+26.0 s, trip t-8"):
            failures.append(f"I7 fleet: {late}")
        late = fleet_streams_late(fleet_logs(d), heal_at=282)
        if [x.split(" ")[0] for x in late] != ["driver-2", "rider-2"]:
            failures.append(f"I7 fleet at 317: {late}")
    for f in failures:
        print("FAILED " + f)
    print("check.py fleet self-test: " + ("FAILED" if failures else "the I4, I7, I8 and I10 fleet checkers and the position age pass and fail as written"))
    return 0 if not failures else 1


def position_frames(fault_at, heal_at):
    """How often riders watching a car saw it move during the fault: the seconds between a rider screen's
    consecutive position frames (its cursor moving) while the pin says live, inside the fault window. Not the
    position's true age (I10, which needs the driver's fix time beside each frame), but its bound from the
    rider's side: a frame older than the gap before it cannot be shown. Beside the twelve (the slow link's
    target, "rider position age p99 under 5 s"); None without frames."""
    if not (fault_at and heal_at):
        return None
    gaps = []
    for name in sorted(os.listdir(path("clients"))):
        if not re.match(r"rider-\d+\.log$", name):
            continue
        prev = None
        for t, obj, _ in stamped(name):
            if obj is None or obj.get("cursor") is None or obj.get("pin") != "live":
                prev = None if obj is not None and obj.get("phase") not in ("driverAssigned", "driverArrived", "onTrip") else prev
                continue
            key = (obj.get("tripID"), obj.get("cursor"))
            if prev and prev[1][0] == key[0] and prev[1][1] != key[1] and fault_at <= t <= heal_at:
                gaps.append(t - prev[0])
            if not prev or prev[1] != key:
                prev = (t, key)
    if not gaps:
        return None
    gaps.sort()
    return {"frames": len(gaps), "p50": round(gaps[len(gaps) // 2], 2), "p99": round(gaps[min(len(gaps) - 1, int(len(gaps) * 0.99))], 2),
            "max": round(gaps[-1], 2)}


def fleet_position_age(logs, windows, target=5.0):
    """The riders' position age, as the design measures it: once a second, how long ago the car truly stood where
    the rider's screen puts it. Sampled on every fleet rider's screen while it shows a fleet driver's position on
    a trip; the truth is the driver's log: the newest fix of the batch shown (its `sent` line), and a car that stood
    still after that fix (at the pickup, from its last fix there until the app showed the trip started) was still
    there, so the age counts from when it left. {window: {samples, p50, p99, max}} for each (name, start, end) in
    `windows`; None without fleet frames of fleet drivers. Beside the twelve (the slow link's target: p99 under
    `target` s)."""
    fixes, departures = {}, {}
    for name, events in logs.items():
        if not name.startswith("driver-"):
            continue
        subject = fleet_subject(events)
        taken = sorted(e["lastFixAt"] for e in events if e.get("ev") == "sent" and e.get("lastFixAt") is not None)
        for e in events:
            if e.get("ev") == "sent" and e.get("lastFixAt") is not None:
                fixes.setdefault((subject, e["seq"]), e["lastFixAt"])
            elif e.get("ev") == "trip" and e.get("state") == "onTrip":
                # The car stands at the pickup from its last fix there until the app shows the start.
                i = bisect.bisect_left(taken, e["t"]) - 1
                if i >= 0:
                    departures.setdefault((subject, taken[i]), e["t"])
    ages = {w[0]: [] for w in windows}
    for name, events in sorted(logs.items()):
        if not name.startswith("rider-"):
            continue
        frames = [e for e in events if e.get("ev") == "frame"]
        times = [e["t"] for e in frames]
        # A screen is known until the app's last line: the fleet stops before the run ends.
        last = max((e["t"] for e in events if "t" in e), default=0)
        for w, lo, hi in windows:
            for k in range(int(min(hi, last) - lo)):
                t = lo + k
                i = bisect.bisect_right(times, t) - 1
                e = frames[i] if i >= 0 else {}
                if e.get("pin") is None or e.get("phase") not in ("driverAssigned", "driverArrived", "onTrip"):
                    continue
                fix = fixes.get((e.get("driver"), e.get("seq")))
                if fix is not None:
                    ages[w].append(max(0.0, t - departures.get((e.get("driver"), fix), fix)))
    if not any(ages.values()):
        return None
    out = {}
    for w, xs in ages.items():
        xs.sort()
        if xs:
            out[w] = {"samples": len(xs), "p50": round(xs[len(xs) // 2], 2),
                      "p99": round(xs[min(len(xs) - 1, int(len(xs) * 0.99))], 2), "max": round(xs[-1], 2),
                      "over_target": sum(1 for x in xs if x >= target)}
    return out


# I11 is judged only after a quiet tail this long from the heal (the long forms' tails); shorter runs report.
QUIET_TAIL = 300
LEVEL_WINDOW = 60


def resources(fault_at, heal_at, end_at, notes):
    """I11: each node's RSS and descriptors, and the nodes' bus subscriptions together, at the end of the run
    against their level before the fault: medians of the samples in the minute before the fault and in the last
    minute before the load stopped, each within 10 %. A node restarted since (a clock scenario's) is not compared.
    Subscriptions are summed over the nodes: the balancer moves streams from node to node, a leak is a total that
    grows. Judged when the tail from the heal to the load's end is at least QUIET_TAIL s, else reported."""
    def median(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2] if xs else None

    nodes = defaultdict(lambda: {"before": [], "after": []})
    bus = {"before": [], "after": []}
    if not (fault_at and heal_at and end_at):
        return result("info", "no fault window or no end of load in the timeline", notes)
    lo, hi = end_at - LEVEL_WINDOW, end_at

    def side(t):
        if fault_at - LEVEL_WINDOW <= t < fault_at:
            return "before"
        if lo <= t <= hi:
            return "after"
        return None

    try:
        with open(path("samples-nodes.log")) as f:
            for line in f:
                t, node, pid, rss, fds, _ = line.split()
                w = side(float(t))
                if w:
                    nodes[(node, pid)][w].append((int(rss), int(fds)))
    except (OSError, ValueError):
        pass
    try:
        with open(path("samples-bus.log")) as f:
            for line in f:
                p = line.split()
                if len(p) < 2:
                    continue
                w = side(float(p[0]))
                if w:
                    # Only the nodes' connections (10.231.0.11-13), not the suite's own redis-cli.
                    bus[w].append(sum(int(x.split(":")[1]) for x in p[1:] if x.split(":")[0].rsplit(".", 1)[-1] in ("11", "12", "13")))
    except (OSError, ValueError):
        pass
    judged = end_at - heal_at >= QUIET_TAIL
    over, levels = [], []

    def compare(what, a, b, judged_level=True):
        if a is None or b is None:
            return
        grew = (b - a) / a if a else (0 if b == 0 else float("inf"))
        levels.append(f"{what}: {a} -> {b} ({100 * grew:+.0f} %)" + ("" if judged_level else ", not judged"))
        if grew > 0.10 and judged_level:
            over.append(f"{what}: {a} -> {b}, {100 * grew:+.0f} % (over 10 %)")

    fds_before, fds_after = 0, 0
    for (node, pid), w in sorted(nodes.items()):
        if w["before"] and w["after"]:
            compare(f"{node} RSS kB", median([x[0] for x in w["before"]]), median([x[0] for x in w["after"]]))
            # A node's descriptors are mostly its streams' sockets, which the balancer moves between nodes
            # (a drain, a reconnect): judged summed over the nodes, like the subscriptions.
            b, a = median([x[1] for x in w["before"]]), median([x[1] for x in w["after"]])
            compare(f"{node} descriptors", b, a, judged_level=False)
            fds_before, fds_after = fds_before + b, fds_after + a
    if fds_before:
        compare("descriptors (all nodes)", fds_before, fds_after)
    compare("bus subscriptions (all nodes)", median(bus["before"]), median(bus["after"]))
    tail = f"quiet tail {end_at - heal_at:.0f} s from the heal"
    if not judged:
        return result("info", f"levels in the minute before the fault and the last minute of the load ({tail}, "
                              f"under the {QUIET_TAIL} s it is judged after)", levels + notes)
    return result("fail" if over else "pass",
                  f"{len(over)} of {len(levels)} levels over 10 % above the minute before the fault ({tail})",
                  over + levels + notes)


def main():
    env = read_env()
    marks = timeline()
    fault_at = mark_time(marks, "fault-start")
    heal_at = mark_time(marks, "heal")
    end_at = mark_time(marks, "load stopped")
    events = load_json("dump-end-events.json", [])
    trips = load_json("dump-end-trips.json", [])
    by_trip = defaultdict(list)
    for e in events:
        by_trip[e["trip_id"]].append(e)
    for evs in by_trip.values():
        evs.sort(key=lambda e: e["version"])
    drivers = names("drivers.txt")
    riders = names("riders.txt")
    # fd-N are the load's drivers (driver-N.log), fc-N the canaries' (canary-driver-N.log).
    driver_logs = {d: stamped(f"{'canary-driver' if d.startswith('fc-') else 'driver'}-{d.split('-')[1]}.log") for d in drivers}
    canary_drivers = [d for d in drivers if d.startswith("fc-")]
    rider_logs = {r: stamped(f"rider-{r.split('-')[1]}.log") for r in riders}
    results = {}
    facts = {}

    # What the fault window held: intents committed between fault-start and heal (+5 s), by intent.
    window = defaultdict(int)
    if fault_at and heal_at:
        for e in events:
            if fault_at <= e["at"] <= heal_at + 5:
                window[e["intent"].split("(")[0]] += 1
    facts["intents_in_fault_window"] = dict(window)
    # How the trips requested inside the fault window (to 5 s after the heal) ended: a share of noDriversFound
    # well above the other runs' is dispatch failing (clock skew, lost leases), even when every other check holds.
    outcome = defaultdict(int)
    if fault_at and heal_at:
        for trip, evs in by_trip.items():
            if evs and evs[0]["version"] == 1 and fault_at <= evs[0]["at"] <= heal_at + 5:
                outcome[evs[-1]["state"]] += 1
    facts["requested_in_window_ended"] = dict(outcome)
    loads = []
    try:
        with open(path("samples-load.log")) as f:
            for line in f:
                p = line.split()
                # A soak window's samples are the soak's: its load is the window's span only (a run's first
                # mark is before its samples, and it has no window end).
                if len(p) == 2 and marks and marks[0][0] <= float(p[0]) <= (mark_time(marks, "window end") or float("inf")):
                    loads.append(float(p[1]))
    except (OSError, ValueError):
        pass
    stalls = machine_stalls()
    facts["machine_stalls"] = {"count": len(stalls), "seconds": round(sum(b - a for a, b in stalls), 1),
                               "longest": round(max((b - a for a, b in stalls), default=0), 1),
                               "in_fault_window": round(overlap(stalls, fault_at, heal_at), 1) if fault_at and heal_at else 0}
    if loads:
        ordered = sorted(loads)
        facts["load_average"] = {"min": ordered[0], "median": ordered[len(ordered) // 2], "max": ordered[-1]}
    finals = defaultdict(int)
    for t in trips:
        finals[t["state"]] += 1
    facts["trips_by_state_at_end"] = dict(finals)

    # I1: every trip state a rider or driver app was shown (from a 2xx answer or a stream frame) is in the log.
    # In a soak window the load goes on after its end dump: only what clients saw before that dump began is
    # judged against it (a run of one scenario dumps after the load stopped, so nothing is left out there).
    cutoff = mark_time(marks, "window end") or float("inf")
    states_seen = {(e["trip_id"], e["state"]) for e in events}
    shown = set()
    for r, lines in rider_logs.items():
        for t, obj, _ in lines:
            if t < cutoff and obj and obj.get("tripID") and obj.get("phase") in ACTIVE | FINAL:
                shown.add((obj["tripID"], obj["phase"], r))
    for d, lines in driver_logs.items():
        for t, obj, _ in lines:
            if t < cutoff and obj and obj.get("tripID") and obj.get("tripState"):
                shown.add((obj["tripID"], obj["tripState"], d))
    missing = sorted({(trip, st, who) for trip, st, who in shown if (trip, st) not in states_seen})
    # The trip probes log each 2xx answer's (trip, version, state): that exact version must be in the log.
    logged = {(e["trip_id"], e["version"]): e["state"] for e in events}
    answers, lost = 0, []
    for name in sorted(os.listdir(path("clients"))):
        if not name.startswith("tripprobe-"):
            continue
        with open(path("clients", name)) as f:
            for line in f:
                p = line.split()
                if len(p) < 9 or not p[4].startswith("2") or p[6] == "-":
                    continue
                if float(p[0]) + float(p[5]) >= cutoff:
                    continue
                answers += 1
                key = (p[6], int(p[7]))
                if logged.get(key) != p[8]:
                    lost.append(f"{name[:-4]}: {p[1]} {p[2]} answered {p[4]} with {p[6]} v{p[7]} {p[8]}; "
                                f"trip_events has {logged.get(key, 'nothing')} at that version")
    results["I1"] = result(
        "fail" if missing or lost else ("pass" if shown or answers else "n/a"),
        f"{answers} 2xx trip answers (trip, version, state) and {len(shown)} (trip, state) pairs shown to apps; "
        f"{len(lost)} answers and {len(missing)} pairs not in trip_events",
        lost + [f"{who} was shown trip {trip} {st}; PostgreSQL has no such state" for trip, st, who in missing])

    # I2: no driver or rider with two active trips at once; no trip assigned twice without a search between.
    # Spans are ordered by the inserting transaction's id when the dump has it: `at` is the committing node's
    # clock, and a node whose clock is off (the clock scenarios) would make spans overlap, or hide an overlap.
    has_xid = bool(events) and all("xid" in e for e in events)
    clock_run = "clock" in env.get("scenario", "")
    order = (lambda e: e["xid"]) if has_xid else (lambda e: e["at"])

    def intervals(key):
        out = defaultdict(list)
        for t in trips:
            evs = by_trip.get(t["id"], [])
            if not evs:
                continue
            owner = t[key]
            if not owner:
                continue
            if key == "driver_id":
                starts = [order(e) for e in evs if e["state"] == "driverAssigned"]
                if not starts:
                    continue
                start = starts[0]
            else:
                start = order(evs[0])
            ends = [order(e) for e in evs if e["state"] in FINAL]
            out[owner].append((start, ends[0] if ends else float("inf"), t["id"]))
        return out

    overlaps = []
    for key, role in (("driver_id", "driver"), ("rider_id", "rider")) if has_xid or not clock_run else ():
        for owner, spans in intervals(key).items():
            spans.sort()
            for a, b in zip(spans, spans[1:]):
                if b[0] < a[1]:
                    unit = "transaction" if has_xid else "time"
                    overlaps.append(f"{role} {owner}: trip {a[2]} active until {unit} {a[1]:.0f}, trip {b[2]} from {unit} {b[0]:.0f}")
    double = []
    for trip, evs in by_trip.items():
        assigned = False
        for e in evs:
            if e["state"] == "driverAssigned" and e["intent"].startswith("offerAccepted"):
                if assigned:
                    double.append(f"trip {trip} accepted twice without a search between (v{e['version']})")
                assigned = True
            if e["state"] == "searching":
                assigned = False
    active_now = defaultdict(list)
    for t in trips:
        if t["active"]:
            active_now[("rider", t["rider_id"])].append(t["id"])
            if t["driver_id"]:
                active_now[("driver", t["driver_id"])].append(t["id"])
    now_double = [f"{k[0]} {k[1]} has {len(v)} active trips now: {', '.join(v)}" for k, v in active_now.items() if len(v) > 1]
    bad = overlaps + double + now_double
    skipped_spans = clock_run and not has_xid
    results["I2"] = result("fail" if bad else ("partial" if skipped_spans else "pass"),
                           f"{len(trips)} trips; {len(overlaps)} overlapping active spans"
                           + (" (not checked: the dump has no transaction ids and a node's clock was off)" if skipped_spans else
                              f" (ordered by {'transaction id' if has_xid else 'commit time'})")
                           + f", {len(double)} double accepts, {len(now_double)} riders or drivers with two active trips at the end", bad)

    # I3: versions 1..n with no gap, the first a search, every step a legal transition.
    illegal = []
    for trip, evs in by_trip.items():
        versions = [e["version"] for e in evs]
        if versions != list(range(1, len(versions) + 1)):
            illegal.append(f"trip {trip}: versions {versions}")
        if evs and evs[0]["state"] != "searching":
            illegal.append(f"trip {trip}: version 1 is {evs[0]['state']}")
        for a, b in zip(evs, evs[1:]):
            if (a["state"], b["state"]) not in LEGAL:
                illegal.append(f"trip {trip}: v{a['version']} {a['state']} -> v{b['version']} {b['state']} ({b['intent']})")
        row = next((t for t in trips if t["id"] == trip), None)
        if row and evs and (row["version"] != evs[-1]["version"] or row["state"] != evs[-1]["state"]):
            illegal.append(f"trip {trip}: row at v{row['version']} {row['state']}, log ends v{evs[-1]['version']} {evs[-1]['state']}")
    results["I3"] = result("fail" if illegal else "pass", f"{len(by_trip)} trips, {len(events)} changes checked", illegal)

    # I4: one live offer per trip: two drivers' screens showing the same trip's offer at once.
    spans = defaultdict(list)
    for d, lines in driver_logs.items():
        current, since = None, None
        for t, obj, _ in lines:
            if obj is None:
                continue
            offer = obj.get("offerTripID")
            if offer != current:
                if current:
                    spans[current].append((since, t, d))
                current, since = offer, t
        if current:
            spans[current].append((since, float("inf"), d))
    # The fleet apps' event logs, read once for I4, I7, I8 and I10.
    fleet = fleet_logs(path("clients", "fleet"))
    fleet_offers = fleet_offer_spans(fleet, server_clocks_true=not clock_run)
    for trip, ss in fleet_offers.items():
        spans[trip].extend(ss)
    doubles = []
    for trip, ss in spans.items():
        ss.sort()
        for a, b in zip(ss, ss[1:]):
            if b[0] < a[1] and a[2] != b[2]:
                rel = fault_at or 0
                doubles.append(f"trip {trip} offered to {a[2]} and {b[2]} at once, for {min(a[1], b[1]) - b[0]:.1f} s "
                               f"from {b[0] - rel:+.1f} s after the fault's start")
    near = 0
    if fault_at and heal_at:
        near = sum(1 for d in doubles if fault_at - 1 <= float(d.split(" from ")[1].split(" s ")[0]) + fault_at <= heal_at + 60)
    results["I4"] = result("fail" if doubles else "pass",
                           f"{sum(len(s) for s in spans.values())} offers on screens "
                           f"({sum(len(s) for s in fleet_offers.values())} of them fleet drivers'); {len(doubles)} overlaps, "
                           f"{near} of them between the fault and 60 s after the heal", doubles)

    # I5: no trip still searching 80 s after the heal (its request older than the 60 s search plus 10 s).
    stuck = []
    for tag in ("heal+80", "end"):
        at = dump_time(tag)
        for t in load_json(f"dump-{tag}-trips.json", []):
            evs = by_trip.get(t["id"], [])
            if t["state"] == "searching" and evs and at and evs[-1]["at"] < at - 70:
                stuck.append(f"{tag}: trip {t['id']} of {t['rider_id']} searching since {at - evs[-1]['at']:.0f} s")
    results["I5"] = result("fail" if stuck else "pass", f"{len(stuck)} searches older than 70 s at heal+80 s or at the end", stuck)

    # Dispatch (the review's F5 criterion, beside the twelve): the share of trips that end noDriversFound among
    # those requested in the fault window, against those requested before the fault.
    def share(lo, hi):
        ended = [evs[-1]["state"] for evs in by_trip.values()
                 if evs and lo <= evs[0]["at"] <= hi and evs[-1]["state"] in FINAL]
        return (sum(1 for x in ended if x == "noDriversFound"), len(ended))

    if fault_at and heal_at:
        nb, tb = share(0, fault_at)
        # The fault and the minute after its heal: an instant fault (FLUSHALL, a restart) does its harm after.
        nw, tw = share(fault_at, heal_at + 60)
        before_share = nb / tb if tb else 0
        window_share = nw / tw if tw else 0
        worse = tw >= 5 and window_share > before_share + 0.2
        results["dispatch"] = result("fail" if worse else ("pass" if tw else "n/a"),
                                     f"noDriversFound: {nw} of {tw} trips requested between the fault and 60 s after the heal, {nb} of {tb} before the fault")
    # I6: Redis agrees with PostgreSQL 30 s after the heal: each load driver's trip, and online as the app says.
    unread = []

    def agreement(tag):
        # PostgreSQL is dumped before and after Redis. A driver's Redis record is wrong when it holds a trip
        # PostgreSQL had already finished before Redis was read (a final state is for ever), or lacks a trip
        # PostgreSQL shows active for that driver both before and after: neither is a race of the dump.
        at = dump_time(tag)
        before = load_json(f"dump-{tag}-trips.json", [])
        after = load_json(f"dump-{tag}-trips-after.json", None)
        if after is None:
            after = load_json("dump-end-trips.json", [])
        final_before = {t["id"]: t["state"] for t in before if not t["active"]}
        active_before = {t["driver_id"]: t["id"] for t in before if t["active"] and t["driver_id"]}
        active_after = {t["driver_id"]: t["id"] for t in after if t["active"] and t["driver_id"]}
        rows = redis_dump(tag)
        wrong = []
        for d in drivers:
            # A driver the dump has no line for was not read (the dump failed or was cut short): not judged,
            # said so, rather than read as a hash without a trip or `online`.
            if d not in rows:
                unread.append(f"{tag}: {d} not in the Redis dump (not read), not judged")
                continue
            h = rows.get(d, {})
            rec = h.get("trip")
            rtrip = None
            if isinstance(rec, dict):
                rtrip = rec.get("trip", {}).get("id")
            elif isinstance(rec, str) and rec:
                try:
                    rtrip = json.loads(rec).get("trip", {}).get("id")
                except ValueError:
                    rtrip = rec
            if rtrip and rtrip in final_before:
                wrong.append(f"{tag}: {d} Redis still holds trip {rtrip}, {final_before[rtrip]} in PostgreSQL: never offered a trip again")
            pg = active_before.get(d)
            if pg and active_after.get(d) == pg and rtrip != pg:
                wrong.append(f"{tag}: {d} Redis trip {rtrip or 'none'}, PostgreSQL active trip {pg}")
            app = None
            for t, obj, _ in driver_logs.get(d, []):
                if at and t > at:
                    break
                if obj is not None and "online" in obj:
                    app = obj["online"]
            redis_online = str(h.get("online", "")) == "1"
            if app is not None and app != redis_online:
                wrong.append(f"{tag}: {d} app says {'online' if app else 'offline'}, Redis online={h.get('online', 'absent')}")
        return wrong

    w30 = agreement("heal+30")
    w80 = agreement("heal+80")
    unread30 = [u for u in unread if u.startswith("heal+30:")]
    results["I6"] = result("fail" if w30 else ("n/a" if drivers and len(unread30) == len(drivers) else "pass"),
                           f"{len(drivers)} drivers; {len(w30)} disagreements at heal+30 s, {len(w80)} still at heal+80 s"
                           + (f"; {len(unread)} hashes not read (dump failed)" if unread else ""), w30 + w80 + unread)

    # I7: every stream back within 35 s of the heal: each driver's link is the stream, no rider screen offline.
    late, screen_only = [], []
    if heal_at:
        cut = heal_at + 35
        for d, lines in driver_logs.items():
            last = None
            for t, obj, _ in lines:
                if t > cut:
                    break
                if obj is not None:
                    last = obj
            if last and last.get("online") and last.get("link") != "stream":
                late.append(f"{d}: link {last.get('link')} at heal+35 s")
        for r, lines in rider_logs.items():
            last, cursor_at_heal, cursor_since, first_cursor = None, None, None, None
            for t, obj, raw in lines:
                if t > cut:
                    break
                if obj is not None:
                    last = obj
                    if t <= heal_at:
                        cursor_at_heal = obj.get("cursor")
                    elif obj.get("cursor") is not None and obj.get("cursor") != cursor_at_heal and cursor_since is None:
                        cursor_since, first_cursor = t, obj.get("cursor")
                elif raw.startswith("ride-exit"):
                    last, cursor_at_heal, cursor_since = None, None, None
            if last and last.get("phase") == "offline":
                # The cursor moving after the heal is frames arriving: the stream is back whatever the screen says
                # (RiderModel leaves `offline` only on a REST answer or a stream's hello, not on other frames).
                if cursor_since is not None:
                    screen_only.append(f"{r}: screen offline at heal+35 s (trip {last.get('tripID')}) while its stream "
                                       f"delivered frames from heal{cursor_since - heal_at:+.0f} s (cursor {first_cursor} then, "
                                       f"{last.get('cursor')} at heal+35 s): the app's screen, not the stream")
                else:
                    late.append(f"{r}: screen offline at heal+35 s (trip {last.get('tripID')})")
    fleet_late = fleet_streams_late(fleet, heal_at) if heal_at else []
    fleet_apps = sum(1 for n in fleet if n.startswith(("driver-", "rider-")))
    late += fleet_late
    results["I7"] = result("fail" if late else "pass",
                           f"{len(late)} apps without their stream at heal+35 s ({len(fleet_late)} of {fleet_apps} fleet "
                           f"apps, from their stream events; the others approximated: screens, and riders' cursors)"
                           + (f"; {len(screen_only)} rider screens offline while their streams were back" if screen_only else ""),
                           late + screen_only)

    # A soak window judges the trips that ended inside it (from its first mark to its end dump).
    results["I8"] = check_i8_fleet(fleet, since=marks[0][0] if marks else None, until=cutoff) or result(
        "n/a", "not measured: needs each acknowledged fix in the driver's event log (FAULTS_FLEET=1)")

    # I9: no PostgreSQL session idle in a transaction over 10 s; a canary ride through each node completes.
    worst, worst_at, unreachable, lockwaits = 0.0, None, 0, 0
    # Lock waiters in every sample for over 10 s: a lock someone holds and nobody releases (an orphaned
    # transaction holds its locks without being idle in one when its last statement never finished).
    wait_since, wait_streak = None, 0.0
    try:
        with open(path("samples-pg.log")) as f:
            for line in f:
                parts = line.strip().split("|")
                if len(parts) < 5:
                    unreachable += 1
                    continue
                age = float(parts[1] or 0)
                lockwaits = max(lockwaits, int(parts[3] or 0))
                if int(parts[3] or 0) > 0:
                    wait_since = wait_since or float(parts[0])
                    wait_streak = max(wait_streak, float(parts[0]) - wait_since)
                else:
                    wait_since = None
                if age > worst:
                    worst, worst_at = age, float(parts[0])
    except OSError:
        pass
    canaries = []
    canary_bad, late_canaries = [], []
    for n in ("n1", "n2", "n3"):
        lines = stamped(f"canary-{n}.log")
        start = next((t for t, _, raw in lines if raw.startswith("canary-start")), None)
        done = next((t for t, obj, _ in lines if obj and obj.get("phase") == "completed"), None)
        last = next((obj.get("phase") for t, obj, _ in reversed(lines) if obj), None)
        # With drivers of their own, far from the load (canary-driver-N), a canary waits for nobody: it must
        # complete within 30 s of the heal (the ride itself, a driver at the pickup and 300 m at 150 km/h, takes
        # about 15 s). Without them (FAULTS_CANARY_DRIVERS=0) the load keeps every app driver busy most of the
        # time, so only a canary that never completes fails and one completed after 60 s is reported as late.
        if start is None:
            canary_bad.append(f"{n}: no canary ran")
        elif done is None or heal_at is None:
            canary_bad.append(f"{n}: canary never completed (last screen {last})")
        elif canary_drivers and done - heal_at - overlap(stalls, heal_at, done) > 30:
            canary_bad.append(f"{n}: canary completed {done - heal_at:.0f} s after the heal, over 30 s"
                              + (f" ({overlap(stalls, heal_at, done):.0f} s of it a machine stall)" if overlap(stalls, heal_at, done) else ""))
        elif canary_drivers and done - heal_at > 30:
            late_canaries.append(f"{n}: canary completed {done - heal_at:.0f} s after the heal, "
                                 f"{overlap(stalls, heal_at, done):.0f} s of it a machine stall: not judged")
        elif not canary_drivers and done - heal_at > 60:
            late_canaries.append(f"{n}: canary completed late, {done - heal_at:.0f} s after the heal")
        steps, prev = [], None
        for t, obj, raw in lines:
            phase = obj.get("phase") if obj else (raw.split()[0] if raw.startswith("canary-") else None)
            if phase and phase != prev and heal_at:
                steps.append(f"{phase} {t - heal_at:+.0f}")
                prev = phase
        canaries.append(f"{n}: canary, seconds from the heal: " + ", ".join(steps))
    idle_bad = worst > 10 or wait_streak > 10
    ev = []
    if worst > 10:
        ev.append(f"a session idle in transaction for {worst:.1f} s (at {worst_at:.1f}, {worst_at - fault_at:+.1f} s from the fault)")
    if wait_streak > 10:
        ev.append(f"sessions waiting on a lock in every sample for {wait_streak:.0f} s")
    ev += canary_bad + late_canaries + canaries + [f"max lock waiters {lockwaits}; PostgreSQL unreachable in {unreachable} samples"]
    # A canary driver silent since before the fault (its last position in Redis, two 2001-based times, older
    # than the fault and 60 s old at heal+30 s: a driver app that stopped sending) explains a canary that
    # waited, without the fault.
    dump30 = dump_time("heal+30")
    for d, h in redis_dump("heal+30").items():
        if not d.startswith("fc-") or not dump30 or not fault_at:
            continue
        try:
            heard = max(struct.unpack(">d", bytes.fromhex(x))[0] + 978307200 for x in h["position"].split(":")[1].split(",")[-2:])
        except (KeyError, IndexError, ValueError, TypeError):
            continue
        if heard < fault_at and dump30 - heard > 60:
            ev.append(f"{d}: no position since {heard - fault_at:+.0f} s from the fault's start (a quiet driver app), "
                      f"so invisible to dispatch")
    if canary_drivers:
        canary_summary = (f"canaries, with {len(canary_drivers)} drivers of their own: {3 - len(canary_bad)}/3 completed "
                          f"within 30 s of the heal")
    else:
        canary_summary = (f"canaries, on the load's drivers: {3 - len(canary_bad)}/3 completed, "
                          f"{len(late_canaries)} of them more than 60 s after the heal")
    results["I9"] = result("fail" if idle_bad or canary_bad else "pass",
                           f"longest idle in transaction {worst:.1f} s, longest lock wait {wait_streak:.0f} s; {canary_summary}", ev)

    results["I10"] = check_i10_fleet(fleet, server_clocks_true=not clock_run) or result(
        "n/a", "not measured: needs the rider frames' pin level beside the driver's true fix time (FAULTS_FLEET=1)")

    # I11 (short tail, so indicative): each node's RSS and descriptors at the end against before the fault.
    before, after = {}, {}
    try:
        with open(path("samples-nodes.log")) as f:
            for line in f:
                t, node, pid, rss, fds, cpu = line.split()
                t = float(t)
                if fault_at and t < fault_at:
                    before[node] = (int(rss), int(fds), pid)
                after[node] = (int(rss), int(fds), pid)
    except (OSError, ValueError):
        pass
    growth = []
    for node in sorted(after):
        if node in before and before[node][2] == after[node][2]:
            r0, f0, _ = before[node]
            r1, f1, _ = after[node]
            growth.append(f"{node}: RSS {r0 // 1024} -> {r1 // 1024} MB, descriptors {f0} -> {f1}")
    cpu = defaultdict(list)
    try:
        with open(path("samples-nodes.log")) as f:
            for line in f:
                t, node, pid, rss, fds, ticks = line.split()
                cpu[(node, pid)].append((float(t), int(ticks)))
    except (OSError, ValueError):
        pass
    for (node, pid), xs in sorted(cpu.items()):
        if len(xs) > 5:
            span = xs[-1][0] - xs[0][0]
            growth.append(f"{node} (pid {pid}): {100 * (xs[-1][1] - xs[0][1]) / 100 / span:.0f} % of a core over {span:.0f} s")
    # The driver apps' CPU (all of them, summed) in the 30 s before the fault and inside its window: a client
    # that spins while the server refuses is a phone's battery, and on this machine it starves the nodes.
    # Lines "time pid:ticks ..." (older runs: "time total"); rates per pid, so an app missing from one sample
    # does not read as a burst when it is back.
    samples = []
    try:
        with open(path("samples-clients.log")) as f:
            for line in f:
                p = line.split()
                if len(p) < 2:
                    continue
                if ":" in p[1]:
                    samples.append((float(p[0]), {q.split(":")[0]: int(q.split(":")[1]) for q in p[1:] if ":" in q}))
                # (an older run's one total per sample cannot tell a missing app from a quiet one: not read)
    except (OSError, ValueError):
        samples = []

    def cpu_share(lo, hi):
        # From the last sample at or before lo to the first at or after hi, app by app: a sample's time is
        # taken before its reads, which a stall can delay, so only the whole window's totals are right.
        a = [x for x in samples if x[0] <= lo]
        b = [x for x in samples if x[0] >= hi]
        if not a or not b or b[0][0] <= a[-1][0]:
            return None
        (ta, ca), (tb, cb) = a[-1], b[0]
        return sum(max(0, cb[k] - ca[k]) for k in cb if k in ca) / 100 / (tb - ta)

    if samples and fault_at and heal_at:
        before_cpu, during_cpu = cpu_share(fault_at - 30, fault_at), cpu_share(fault_at, max(heal_at, fault_at + 5))
        if before_cpu is not None and during_cpu is not None:
            facts["driver_apps_cpu"] = {"before": round(before_cpu, 2), "during": round(during_cpu, 2)}
            growth.append(f"driver apps together: {100 * before_cpu:.0f} % of a core in the 30 s before the fault, "
                          f"{100 * during_cpu:.0f} % during it")
    frames = position_frames(fault_at, heal_at)
    if frames:
        facts["rider_position_frames"] = frames
    if fault_at and heal_at:
        age = fleet_position_age(fleet, [("before", fault_at - 300, fault_at), ("fault", fault_at, heal_at),
                                         ("after", heal_at, heal_at + 300)])
        if age:
            facts["rider_position_age"] = age
    # In a soak window the load goes on: its end is the window's.
    results["I11"] = resources(fault_at, heal_at, mark_time(marks, "window end") or end_at, growth)

    # I12: during the fault no request waits over 5 s; refusals are 503 with Retry-After; /readyz not ready.
    slow, badstatus, ready = [], [], defaultdict(lambda: defaultdict(int))
    # Over 5 s only because the machine stalled (see machine_stalls): listed, not failed.
    excused, balancer_excused = [], 0
    probes, skipped = 0, 0
    # A node the fault itself cuts from its clients (or stops) cannot answer a probe sent straight to it; what
    # the invariant asks there is that the balancer route around it, so only those probes are left out.
    scenario = env.get("scenario", "")
    cut_off = {"n" + scenario.split("-")[0][4:]} if scenario.startswith("node") and any(
        w in scenario for w in ("clients", "pause", "killed")) else set()
    # A request in flight on a node at the instant it is killed cannot be answered by it: the balancer's 502
    # for it (nginx does not retry a request it has sent) is the crash, not a missing deadline.
    killed_at = mark_time(marks, "node 1 cut from PostgreSQL and killed")
    in_flight = []
    if fault_at and heal_at:
        try:
            with open(path("clients", "probes.log")) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) < 6:
                        continue
                    t0, route = float(parts[0]), parts[1]
                    if not (fault_at <= t0 <= heal_at):
                        continue
                    if route == "skipped":
                        skipped += 1
                        continue
                    target, code, secs, retry = parts[2], parts[3], float(parts[4]), parts[5]
                    if target in cut_off:
                        continue
                    if route == "readyz":
                        ready[target][code] += 1
                        continue
                    if route == "healthz":
                        continue
                    probes += 1
                    if secs > 5:
                        stalled = overlap(stalls, t0, t0 + secs)
                        text = f"{route} via {target}: {code} after {secs:.1f} s ({t0 - fault_at:+.1f} s into the fault)"
                        if secs - stalled > 5:
                            slow.append((secs, text))
                        else:
                            excused.append(f"{text}, {stalled:.1f} s of it a machine stall")
                    if code == "000" and secs - overlap(stalls, t0, t0 + secs) <= 5:
                        excused.append(f"{route} via {target}: no answer within the probe's {secs:.0f} s, "
                                       f"{overlap(stalls, t0, t0 + secs):.1f} s of it a machine stall")
                    elif code not in ("200", "201", "202") and not (code == "503" and retry != "-"):
                        badstatus.append(f"{route} via {target}: {code}{' without Retry-After' if retry == '-' else ' Retry-After ' + retry} after {secs:.1f} s")
        except OSError:
            pass
        for name in sorted(os.listdir(path("clients"))):
            if not name.startswith("tripprobe-"):
                continue
            with open(path("clients", name)) as f:
                for line in f:
                    p = line.split()
                    if len(p) < 9 or not (fault_at <= float(p[0]) <= heal_at):
                        continue
                    probes += 1
                    secs, code = float(p[5]), p[4]
                    what = f"{p[1]} {p[2]} ({name[:-4]})"
                    if secs > 5:
                        stalled = overlap(stalls, float(p[0]), float(p[0]) + secs)
                        text = f"{what}: {code} after {secs:.1f} s ({float(p[0]) - fault_at:+.1f} s into the fault)"
                        if secs - stalled > 5:
                            slow.append((secs, text))
                        else:
                            excused.append(f"{text}, {stalled:.1f} s of it a machine stall")
                    if code == "000" and secs - overlap(stalls, float(p[0]), float(p[0]) + secs) <= 5:
                        excused.append(f"{what}: no answer within the probe's {secs:.0f} s, "
                                       f"{overlap(stalls, float(p[0]), float(p[0]) + secs):.1f} s of it a machine stall")
                    elif code.startswith("5") and code != "503" or code == "000":
                        if code == "502" and killed_at and float(p[0]) <= killed_at <= float(p[0]) + secs:
                            in_flight.append(f"{what}: 502 after {secs:.1f} s, in flight when node 1 was killed")
                        else:
                            badstatus.append(f"{what}: {code} after {secs:.1f} s")
    slow.sort(reverse=True)
    readyz = []
    readyz_absent = False
    for target in sorted(ready):
        codes = ready[target]
        readyz.append(f"/readyz on {target}: " + ", ".join(f"{c}x{n}" for c, n in sorted(codes.items())))
        if set(codes) == {"404"}:
            readyz_absent = True
    balancer_slow, by_node = 0, defaultdict(int)
    # (balancer_excused counts the app requests over 5 s only because of a machine stall.)
    try:
        with open(path("balancer.log")) as f:
            for line in f:
                p = line.split()
                if len(p) >= 8 and fault_at and heal_at and fault_at <= float(p[0]) - float(p[1]) <= heal_at \
                        and p[2] != "101" and float(p[1]) > 5:
                    if float(p[1]) - overlap(stalls, float(p[0]) - float(p[1]), float(p[0])) <= 5:
                        balancer_excused += 1
                        continue
                    balancer_slow += 1
                    # Method and path are the last two fields; a retried request lists several nodes before them.
                    route = re.sub(r"trip-[0-9a-f-]+", "{id}", p[-1])
                    by_node[f"{p[-2]} {route} via {p[3].rstrip(',')}"] += 1
    except (OSError, ValueError):
        pass
    if cut_off:
        readyz.append(f"probes sent straight to {', '.join(sorted(cut_off))} left out: the fault cuts it off")
    ev = [s for _, s in slow[:6]] + badstatus[:4] + in_flight[:4] + readyz + [f"{balancer_slow} app requests through the balancer over 5 s in the window"]
    if excused or balancer_excused:
        ev.append(f"not judged, over 5 s only because the machine stalled: {len(excused)} probe requests, "
                  f"{balancer_excused} app requests (balancer log)")
        ev += excused[:3]
    ev += [f"{n} x {k} over 5 s (balancer log)" for k, n in sorted(by_node.items(), key=lambda x: -x[1])[:4]]
    if skipped:
        ev.append(f"{skipped} probe rounds skipped: 40 probes were already waiting")
    if readyz_absent:
        ev.append("/readyz answers 404: the endpoint does not exist yet")
    fail12 = bool(slow or badstatus or balancer_slow or skipped)
    results["I12"] = result("fail" if fail12 else ("n/a" if not probes else "pass"),
                            f"{probes} probe requests in the fault window: {len(slow)} over 5 s, {len(badstatus)} not 2xx nor 503+Retry-After"
                            + ("; /readyz absent (404)" if readyz_absent else ""), ev)

    out = {"env": env, "fault_at": fault_at, "heal_at": heal_at, "end_at": end_at, "facts": facts, "results": results}
    with open(path("check.json"), "w") as f:
        json.dump(out, f, indent=1)
    with open(path("report.md"), "w") as f:
        f.write(f"# {env.get('scenario')} (seed {env.get('seed')}), {env.get('date')}, commit {env.get('code', env.get('commit'))}\n\n")
        f.write(f"{env.get('description')}. Redis persistence: {env.get('redis')}. Load: {env.get('drivers')} drivers, "
                f"{env.get('riders')} riders, {env.get('location_drivers')} location-only drivers; warm-up {env.get('warmup')} s, "
                f"tail {env.get('tail')} s.\n\n")
        f.write(f"Intents committed in the fault window: {json.dumps(facts['intents_in_fault_window'])}. "
                f"Trips requested in the window ended: {json.dumps(facts['requested_in_window_ended'])}. "
                f"Trips at the end: {json.dumps(facts['trips_by_state_at_end'])}.\n\n")
        ms = facts["machine_stalls"]
        if ms["count"]:
            f.write(f"The machine stalled the suite's own processes {ms['count']} times ({ms['seconds']} s in all, the longest "
                    f"{ms['longest']} s, {ms['in_fault_window']} s inside the fault window): a request or canary slow only "
                    f"by that much is listed, not failed.\n\n")
        if "rider_position_frames" in facts:
            pf = facts["rider_position_frames"]
            f.write(f"Riders watching a live car in the fault window saw it move every {pf['p50']} s (median), "
                    f"{pf['p99']} s at the 99th percentile, {pf['max']} s at most ({pf['frames']} frames): the bound a "
                    f"rider's screen puts on the position's age, not its true age (I10).\n\n")
        if "rider_position_age" in facts:
            spans = {"before": "5 minutes before the fault", "fault": "during the fault", "after": "5 minutes after"}
            f.write("Riders' position age (once a second on each fleet rider's screen showing a fleet driver: how "
                    "long ago the car truly stood where the pin puts it; the design's target is p99 under 5 s): "
                    + "; ".join(f"{spans[w]}, {v['samples']} samples: p50 {v['p50']} s, p99 {v['p99']} s, max "
                                f"{v['max']} s, {v['over_target']} at 5 s or more"
                                for w, v in facts["rider_position_age"].items()) + ".\n\n")
        if "load_average" in facts:
            la = facts["load_average"]
            f.write(f"The machine's load average (1 min, 2 cores) during the run: min {la['min']:.1f}, median "
                    f"{la['median']:.1f}, max {la['max']:.1f}.\n\n")
        f.write("| invariant | result | summary |\n|---|---|---|\n")
        for k, v in results.items():
            f.write(f"| {k} | {v['status']} | {v['summary']} |\n")
        f.write("\n## Evidence\n")
        for k, v in results.items():
            if v["evidence"]:
                f.write(f"\n{k}:\n")
                for e in v["evidence"]:
                    f.write(f"- {e}\n")
    print(f"{env.get('scenario')} seed {env.get('seed')}: " + " ".join(f"{k}={v['status']}" for k, v in results.items()))


if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
    sys.exit(fleet_self_test())
main()
