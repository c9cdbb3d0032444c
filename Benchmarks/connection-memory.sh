#!/usr/bin/env bash
# Issue 46's memory per connection: `bench fanout --clients N --messages 30 --interval 2s` at each size and with each
# I/O engine, the memory of the run's processes (their proportional set size: a page they share counted once) sampled
# every 200 ms while it runs, in three parts, each at its own peak:
#   - the server's processes (`--server-procs`, past one process's descriptors), per connection;
#   - the measuring process: the collector (the run's exact values, 4 bytes each, and, past one server process, the
#     merge of their streams), and the server itself where one process holds it;
#   - the clients (`bench clients` children: `--client-procs 1` where one server process holds them all), per
#     connection;
# and the marginal cost per connection between the smallest and the largest size (what a connection adds, without the
# fixed cost of the binary, the rings and the tables).
#
#   Benchmarks/connection-memory.sh [sizes…]      (default: 2000 10000 19000; issue 46's: 10000 50000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2000 10000 19000)
swift build -c release --product bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work" "${sizes[@]}" <<'PY'
import os, subprocess, sys, time
work, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]

def rss_kib(pid):
    # Proportional set size: a page shared by k processes (the binary's, above all: 13 processes at 100,000 clients)
    # counts 1/k in each, so that the processes' sum is the memory they take together; VmRSS where smaps is closed.
    for path, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            for line in open(path):
                if line.startswith(key):
                    return int(line.split()[1])
        except OSError:
            pass
    return 0

def is_client(pid):
    try:
        return b"\0clients\0" in open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return False

def children(pid):
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            for child in open(f"/proc/{pid}/task/{task}/children").read().split():
                found.append(int(child))
                found += children(int(child))
    except OSError:
        pass
    return found

rows = {}
for engine in ("epoll", "uring"):
    for n in sizes:
        out = os.path.join(work, f"{engine}-{n}")
        env = dict(os.environ, BENCH_IO=engine)
        started = time.monotonic()
        one_server = n <= 19000
        process = subprocess.Popen(
            [".build/release/bench", "fanout", "--clients", str(n), "--messages", "30", "--interval", "2s", "--quiet",
             "--out", out] + (["--client-procs", "1"] if one_server else []),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        measuring = servers = peak_children = 0
        while process.poll() is None:
            tree = children(process.pid)
            measuring = max(measuring, rss_kib(process.pid))
            servers = max(servers, sum(rss_kib(child) for child in tree if not is_client(child)))
            peak_children = max(peak_children, sum(rss_kib(child) for child in tree if is_client(child)))
            time.sleep(0.2)
        stdout, stderr = process.communicate()
        wall = time.monotonic() - started
        folder = stdout.strip().splitlines()[-1] if stdout.strip() else ""
        settings = {}
        try:
            for line in open(os.path.join(folder, "run.csv")):
                key, _, value = line.rstrip("\r\n").partition(",")
                settings[key] = value.strip('"')
        except OSError:
            pass
        rows[(engine, n)] = (measuring + servers, peak_children)
        if servers:
            side = (f"server processes {servers / 1024:.1f} MiB ({servers * 1024 / n:.0f} B/conn), measuring process "
                    f"{measuring / 1024:.1f} MiB ({measuring * 1024 / n:.0f} B/conn)")
        else:
            side = f"measuring process with the server {measuring / 1024:.1f} MiB ({measuring * 1024 / n:.0f} B/conn)"
        client = f"clients {peak_children / 1024:.1f} MiB ({peak_children * 1024 / n:.0f} B/conn)" if peak_children else "clients in the process"
        print(f"{engine:5} {n:6} clients: exit {process.returncode}, {settings.get('status', '?')}, "
              f"lost {settings.get('messages_lost', '?')}, {wall:.0f} s (setup {settings.get('setup_s', '?')} s), "
              f"{settings.get('server_processes', '1')} server processes, saturated {settings.get('harness_saturated', '?')}; "
              f"{side}; {client}", flush=True)
        if process.returncode != 0:
            print("   " + stderr.strip().splitlines()[-1] if stderr.strip() else "", flush=True)
    low, high = min(sizes), max(sizes)
    if high > low and (engine, low) in rows and (engine, high) in rows:
        (m0, c0), (m1, c1) = rows[(engine, low)], rows[(engine, high)]
        print(f"{engine:5} marginal per connection ({low} to {high}): measuring and server processes {(m1 - m0) * 1024 / (high - low):.0f} B, "
              f"clients {(c1 - c0) * 1024 / (high - low):.0f} B", flush=True)
PY
