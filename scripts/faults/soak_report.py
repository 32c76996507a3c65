#!/usr/bin/env python3
"""The soak's one page: each window's verdicts, and the resources at the end against before the first fault.

    soak_report.py SOAK_DIR      writes SOAK_DIR/soak-report.md and soak.json, prints the page

Each window w<k>-<scenario>/ was judged by check.py like a run of its own. Resources (I11 over the whole soak):
each node's RSS (same process only), and the nodes' descriptors and bus subscriptions summed, medians of the
samples in the minute before the first fault and in the last minute before the load stopped, within 10 %.
"""
import glob
import json
import os
import sys

SOAK = sys.argv[1]
WINDOW = 60


def marks(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                t, text = line.rstrip("\n").split(" ", 1)
                out.append((float(t), text))
    except OSError:
        pass
    return out


def first(ms, prefix):
    return next((t for t, text in ms if text.startswith(prefix)), None)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else None


def main():
    windows = sorted(glob.glob(os.path.join(SOAK, "w[0-9]*-*")), key=lambda p: int(os.path.basename(p)[1:].split("-")[0]))
    rows, failed = [], []
    ids = [f"I{i}" for i in range(1, 13)]
    for w in windows:
        name = os.path.basename(w)
        try:
            with open(os.path.join(w, "check.json")) as f:
                res = json.load(f)["results"]
        except (OSError, ValueError, KeyError):
            rows.append((name, None, None))
            failed.append(f"{name}: no verdict")
            continue
        ms = marks(os.path.join(w, "timeline.log"))
        rows.append((name, first(ms, "fault-start"), res))
        bad = [k for k, v in res.items() if v["status"] == "fail"]
        if bad:
            failed.append(f"{name}: {' '.join(bad)}")
    root = marks(os.path.join(SOAK, "timeline.log"))
    first_fault = rows[0][1] if rows and rows[0][1] else None
    end = first(root, "load stopped")
    levels, over = [], []
    if first_fault and end:
        nodes, bus = {}, {"before": [], "after": []}

        def side(t):
            if first_fault - WINDOW <= t < first_fault:
                return "before"
            if end - WINDOW <= t <= end:
                return "after"
            return None

        try:
            with open(os.path.join(SOAK, "samples-nodes.log")) as f:
                for line in f:
                    t, node, pid, rss, fds, _ = line.split()
                    s = side(float(t))
                    if s:
                        nodes.setdefault((node, pid), {"before": [], "after": []})[s].append((int(rss), int(fds)))
        except (OSError, ValueError):
            pass
        try:
            with open(os.path.join(SOAK, "samples-bus.log")) as f:
                for line in f:
                    p = line.split()
                    s = side(float(p[0])) if p else None
                    if s and len(p) > 1:
                        bus[s].append(sum(int(x.split(":")[1]) for x in p[1:] if x.split(":")[0].rsplit(".", 1)[-1] in ("11", "12", "13")))
        except (OSError, ValueError):
            pass

        def compare(what, a, b, judged=True):
            if a is None or b is None:
                return
            grew = (b - a) / a if a else (0 if b == 0 else float("inf"))
            levels.append(f"{what}: {a} -> {b} ({100 * grew:+.0f} %)" + ("" if judged else ", not judged"))
            if grew > 0.10 and judged:
                over.append(what)

        fb, fa = 0, 0
        for (node, pid), v in sorted(nodes.items()):
            if v["before"] and v["after"]:
                compare(f"{node} (pid {pid}) RSS kB", median([x[0] for x in v["before"]]), median([x[0] for x in v["after"]]))
                # Streams move between nodes: descriptors are judged summed over the nodes (as check.py's I11).
                b, a = median([x[1] for x in v["before"]]), median([x[1] for x in v["after"]])
                compare(f"{node} (pid {pid}) descriptors", b, a, judged=False)
                fb, fa = fb + b, fa + a
        if fb:
            compare("descriptors (all nodes)", fb, fa)
        compare("bus subscriptions (all nodes)", median(bus["before"]), median(bus["after"]))
    lines = [f"# Soak {os.path.basename(SOAK)}", ""]
    try:
        with open(os.path.join(SOAK, "run.env")) as f:
            lines += ["```", f.read().strip(), "```", ""]
    except OSError:
        pass
    lines += ["| window | " + " | ".join(ids) + " |", "|---|" + "---|" * len(ids)]
    for name, _, res in rows:
        cells = [(res.get(i, {}).get("status", "-") if res else "-") for i in ids]
        cells = ["**FAIL**" if c == "fail" else c for c in cells]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines += ["", f"Resources, the minute before the first fault against the last minute of the load "
                  f"({'over 10 %: ' + ', '.join(over) if over else 'every level within 10 %' if levels else 'no samples'}):", ""]
    lines += [f"- {x}" for x in levels]
    lines += ["", "Verdict: " + ("every window held every invariant checked" if not failed else "failed: " + "; ".join(failed))
              + ("; resources over 10 %" if over else "")]
    page = "\n".join(lines) + "\n"
    with open(os.path.join(SOAK, "soak-report.md"), "w") as f:
        f.write(page)
    with open(os.path.join(SOAK, "soak.json"), "w") as f:
        json.dump({"windows": [{"window": n, "results": r} for n, _, r in rows], "failed": failed,
                   "resources": levels, "resources_over": over}, f, indent=1)
    print(page)


if __name__ == "__main__":
    main()
