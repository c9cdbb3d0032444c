#!/usr/bin/env bash
# What bench reports against the wire: a nanosecond tcpdump capture on loopback beside each run.
#
#   Benchmarks/kernel-stamps-vs-wire.sh [rounds] [fanout-clients]     (needs root, apt-get install tcpdump sockperf)
#
# (a) ping-pong, 1 client, 20000 round trips, server and client on different CPUs: rtt p50 − wire rtt p50 for
#     bench's user-space stamps and kernel stamps (one run with --timestamps both gives both) and for sockperf.
#     Target: kernel-stamped overhead ≤ 5 µs.
# (b) fanout, 2000 clients, 30 broadcasts every 100 ms: spread p50 against the wire's (first to last data segment of
#     each broadcast), for user and kernel stamps (--timestamps both), with 1 and 2 client threads. Target: kernel
#     within 5% of the wire.
# Each line is one run; the script prints the medians over the rounds at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
clients=${2:-2000}
for tool in tcpdump sockperf; do
    command -v "$tool" >/dev/null || { echo "$tool is not installed (apt-get install $tool)" >&2; exit 2; }
done
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

capture() {  # port file: starts tcpdump in the background and waits until it listens
    tcpdump -i lo -n -q -B 65536 --time-stamp-precision nano -w "$2" "tcp port $1" 2>"$2.log" &
    tcpdump_pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$2.log" 2>/dev/null && return; sleep 0.05; done
}
stop_capture() {  # file
    kill -INT "$tcpdump_pid"; wait "$tcpdump_pid" 2>/dev/null || true
    grep -h "dropped by kernel" "$1.log" | grep -v "^0 " | sed 's/^/  tcpdump: /' >&2 || true
}

results="$work/results.txt"
for round in $(seq "$rounds"); do
    port=$((20000 + RANDOM % 20000))
    capture "$port" "$work/pp.pcap"
    folder=$("$bench" roundtrip --interval 0 --count 20000 --timestamps both --pin 0,1 --port "$port" --out "$work" --quiet)
    stop_capture "$work/pp.pcap"
    python3 Benchmarks/wire_capture.py pingpong "$work/pp.pcap" "$port" "$folder" | tee -a "$results"

    port=$((20000 + RANDOM % 20000))
    taskset -c 0 sockperf server --tcp -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
    server=$!
    sleep 0.5
    capture "$port" "$work/sp.pcap"
    p50=$(taskset -c 1 sockperf ping-pong --tcp -i 127.0.0.1 -p "$port" -m 64 -t 2 --full-rtt 2>&1 |
        sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p')
    stop_capture "$work/sp.pcap"
    kill "$server"; wait "$server" 2>/dev/null || true
    python3 Benchmarks/wire_capture.py sockperf "$work/sp.pcap" "$port" "$p50" | tee -a "$results"

    for threads in 1 2; do
        port=$((20000 + RANDOM % 20000))
        capture "$port" "$work/fo.pcap"
        folder=$("$bench" fanout --clients "$clients" --messages 30 --warmup 0 --interval 100ms --timestamps both \
            --client-threads "$threads" --port "$port" --out "$work" --quiet)
        stop_capture "$work/fo.pcap"
        python3 Benchmarks/wire_capture.py fanout "$work/fo.pcap" "$port" "$folder" |
            sed "s/^fanout/fanout-threads-$threads/" | tee -a "$results"
    done
done

python3 - "$results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    words = line.split()
    values = dict(zip(words[1::2], map(float, words[2::2])))
    runs.setdefault(words[0], []).append(values)
def med(kind, key): return statistics.median(v[key] for v in runs[kind])
print("\nmedians over the rounds")
w = med("pingpong", "wire_p50_us")
print(f"ping-pong: wire {w:.1f} µs; bench user {med('pingpong', 'user_p50_us'):.1f} (+{med('pingpong', 'user_p50_us') - w:.1f}),"
      f" bench kernel {med('pingpong', 'kernel_p50_us'):.1f} (+{med('pingpong', 'kernel_p50_us') - w:.1f})")
ws = med("sockperf", "wire_p50_us")
print(f"ping-pong: sockperf's own run: wire {ws:.1f} µs; sockperf {med('sockperf', 'reported_p50_us'):.1f}"
      f" (+{med('sockperf', 'reported_p50_us') - ws:.1f})")
for kind in sorted(k for k in runs if k.startswith("fanout")):
    print(f"{kind}: wire spread p50 {med(kind, 'wire_spread_p50_us'):.0f} µs; user {med(kind, 'user_spread_p50_us'):.0f}"
          f" ({med(kind, 'user_ratio'):.2f}×), kernel {med(kind, 'kernel_spread_p50_us'):.0f} ({med(kind, 'kernel_ratio'):.3f}×)")
PY
