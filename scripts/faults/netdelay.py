#!/usr/bin/env python3
"""A netem substitute for kernels without sch_netem: holds each packet of an NFQUEUE for a delay, drops some.

    netdelay.py QUEUE DELAY_MS JITTER_MS LOSS_PERCENT SEED

Run inside the namespace whose iptables rules send packets to queue QUEUE (nemesis.sh's `slow_link`). Each
packet is held DELAY_MS +- JITTER_MS (uniform, so packets reorder as under netem's jitter) and then accepted,
or dropped with probability LOSS_PERCENT / 100, from a generator seeded with SEED. Verdicts are given in one
thread, from a loop that sleeps in select() until the queue's socket is readable or the next packet is due.
Writes one line a second to stdout (packets seen, dropped, held, the largest hold): the run's evidence that
packets were really delayed. Needs the netfilterqueue package (scripts/faults/run.sh installs it into
.build/faults-venv) and CAP_NET_ADMIN.
"""
import heapq
import random
import select
import signal
import sys
import time

from netfilterqueue import NetfilterQueue


def main():
    queue, delay_ms, jitter_ms, loss, seed = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
    rng = random.Random(seed)
    held = []  # (due, n, packet)
    stats = {"seen": 0, "dropped": 0, "accepted": 0, "max_hold_ms": 0.0}
    counter = [0]

    def on_packet(pkt):
        stats["seen"] += 1
        if rng.random() * 100 < loss:
            stats["dropped"] += 1
            pkt.drop()
            return
        pkt.retain()
        counter[0] += 1
        hold = max(0.0, delay_ms + rng.uniform(-jitter_ms, jitter_ms)) / 1000
        heapq.heappush(held, (time.monotonic() + hold, counter[0], time.monotonic(), pkt))

    nfq = NetfilterQueue()
    # Room for the packets held at once (a node's Redis traffic over 0.4 s), well past the default 1024.
    nfq.bind(queue, on_packet, max_len=65536)
    fd = nfq.get_fd()
    stopping = [False]
    signal.signal(signal.SIGTERM, lambda *_: stopping.__setitem__(0, True))
    signal.signal(signal.SIGINT, lambda *_: stopping.__setitem__(0, True))
    next_report = time.monotonic() + 1
    while not stopping[0]:
        now = time.monotonic()
        while held and held[0][0] <= now:
            _, _, at, pkt = heapq.heappop(held)
            pkt.accept()
            stats["accepted"] += 1
            stats["max_hold_ms"] = max(stats["max_hold_ms"], (now - at) * 1000)
        timeout = min(held[0][0] - now if held else 0.5, max(0.0, next_report - now))
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, timeout))
        except InterruptedError:
            continue
        if ready:
            nfq.run(block=False)
        if time.monotonic() >= next_report:
            print(f"{time.time():.3f} seen={stats['seen']} dropped={stats['dropped']} accepted={stats['accepted']} "
                  f"held={len(held)} max_hold_ms={stats['max_hold_ms']:.0f}", flush=True)
            next_report += 1
    # Whatever is still held goes on at once, so the heal leaves no packet behind.
    for _, _, _, pkt in held:
        pkt.accept()
    nfq.unbind()


if __name__ == "__main__":
    main()
