#!/usr/bin/env python3
"""Each load driver's Redis hash, in one connection (dump_state in run.sh; the checkers read its lines).

    redis_hashes.py HOST PORT DRIVERS_FILE   prints "driver<TAB>{json of the hash}" per driver

One redis-cli and one parser per driver cost 4-14 s a dump on a loaded machine, which delayed the heal+30 s and
heal+80 s judgements and lengthened every run; this sends every HGETALL in one pipeline. Values are strings, as
redis-cli printed them. When Redis does not answer within 10 s, the drivers not read yet get an empty
hash (what the old per-driver redis-cli printed then) and the exit status is 1.
"""
import json
import socket
import sys


def command(*parts):
    out = [f"*{len(parts)}\r\n".encode()]
    for p in parts:
        b = p.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


class Reader:
    def __init__(self, sock):
        self.f = sock.makefile("rb")

    def reply(self):
        line = self.f.readline()
        if not line:
            raise EOFError("Redis closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"*":
            n = int(rest)
            return [self.reply() for _ in range(n)] if n >= 0 else None
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.f.read(n + 2)[:-2]
            return data.decode("utf-8", "replace")
        if kind == b"-":
            raise RuntimeError(rest.decode())
        return rest.decode()


PRINTED = []
DRIVERS = []


def main():
    host, port, drivers_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(drivers_file) as f:
        drivers = [line.strip() for line in f if line.strip()]
    DRIVERS.extend(drivers)
    sock = socket.create_connection((host, port), timeout=10)
    sock.sendall(b"".join(command("HGETALL", f"hail:ingest:{{driver:{d}}}") for d in drivers))
    reader = Reader(sock)
    for d in list(drivers):
        flat = reader.reply() or []
        h = {flat[i]: flat[i + 1] for i in range(0, len(flat) - 1, 2)}
        # Flushed line by line: a dump cut short by its timeout keeps what it read.
        print(f"{d}\t{json.dumps(h)}", flush=True)
        PRINTED.append(d)


if __name__ == "__main__":
    try:
        main()
    except (OSError, EOFError, RuntimeError) as e:
        print(f"redis_hashes: {e}", file=sys.stderr)
        for d in DRIVERS[len(PRINTED):]:
            print(f"{d}\t{{}}", flush=True)
        sys.exit(1)
