#!/usr/bin/env python3
"""One table over every run under a directory: scenario and seed by invariant (scripts/faults/run.sh)."""
import glob
import json
import os
import sys

OUT = sys.argv[1]
KEYS = [f"I{i}" for i in range(1, 13)] + ["dispatch"]
MARK = {"pass": "pass", "fail": "**FAIL**", "n/a": "n/a", "info": "info", "partial": "partial"}
rows = []
for name in sorted(glob.glob(os.path.join(OUT, "*", "check.json"))):
    with open(name) as f:
        c = json.load(f)
    env = c["env"]
    rows.append((env.get("scenario"), env.get("seed"), env.get("date"), env.get("code", env.get("commit")), c["results"], c["facts"]))
with open(os.path.join(OUT, "summary.md"), "w") as f:
    f.write("| scenario | seed | date | commit | " + " | ".join(KEYS) + " | position age p99 (before / fault / after) | load (median / max) | intents in the fault window | requested in it, ended |\n")
    f.write("|---|---|---|---|" + "---|" * len(KEYS) + "---|---|---|---|\n")
    for scenario, seed, date, commit, results, facts in rows:
        cells = [MARK.get(results.get(k, {}).get("status", "-"), "-") for k in KEYS]
        window = ", ".join(f"{k} {v}" for k, v in sorted(facts.get("intents_in_fault_window", {}).items()))
        ended = ", ".join(f"{k} {v}" for k, v in sorted(facts.get("requested_in_window_ended", {}).items()))
        la = facts.get("load_average")
        load = f"{la['median']:.1f} / {la['max']:.1f}" if la else "-"
        # The fleet riders' position age (check.py's fleet_position_age), in seconds.
        pa = facts.get("rider_position_age", {})
        age = " / ".join(f"{pa[w]['p99']}" if w in pa else "-" for w in ("before", "fault", "after")) if pa else "-"
        f.write(f"| {scenario} | {seed} | {date} | {commit} | " + " | ".join(cells) + f" | {age} | {load} | {window} | {ended} |\n")
print(open(os.path.join(OUT, "summary.md")).read())
