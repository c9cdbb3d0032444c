#!/usr/bin/env bash
# The four transports side by side, each measured the same way in the same alternating run.
#
#   Benchmarks/transports.sh [rounds] [clients]        (defaults: 5 rounds, 1000 clients)
#
# 1. Ping-pong: 1 client, 20000 round trips (--interval 0), 64 B, server and client on CPUs 0 and 1; rtt p50, the
#    median over the rounds, and its ratio to tcp (targets: ws ≤ 1.15 × tcp, tls ≤ 1.5 × tcp).
# 2. Fan-out: `clients` clients, 50 broadcasts every 100 ms: spread p99, and connect p50/p99 (from the start of each
#    client's connect to the end of its handshakes), medians over the rounds.
# 3. Memory: 2000 tls clients in one process under /usr/bin/time -v (apt-get install time): peak RSS beyond a 2000-client
#    tcp run's, per connection pair (both ends live in the process; target ≤ 64 KiB).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
clients=${2:-1000}
transports=(tcp ws tls wss)
swift build -c release --product bench >/dev/null
bench=.build/release/bench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# metric statistic... of a --json summary on stdin, space-separated (µs).
stats() { python3 -c '
import json, sys
metrics = {m["metric"]: m for m in json.load(sys.stdin)["metrics"]}
print(" ".join(str(metrics[a.split(".")[0]][a.split(".")[1] + "_us"]) for a in sys.argv[1:]))' "$@"; }
median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

declare -A pingpong spread connect50 connect99
for _ in $(seq "$rounds"); do
    for transport in "${transports[@]}"; do
        pingpong[$transport]+="$("$bench" roundtrip --count 20000 --interval 0 --transport "$transport" --pin 0,1 \
            --out "$out" --json | stats rtt.p50) "
        read -r s c50 c99 < <("$bench" fanout --clients "$clients" --messages 50 --interval 100ms --warmup 5 \
            --transport "$transport" --out "$out" --json | stats spread.p99 connect.p50 connect.p99)
        spread[$transport]+="$s "; connect50[$transport]+="$c50 "; connect99[$transport]+="$c99 "
    done
done

tcp=$(median ${pingpong[tcp]})
printf '%-10s %-18s %-10s %-26s %-16s %s\n' transport "ping-pong p50 µs" "× tcp" "fanout $clients spread p99 µs" \
    "connect p50 µs" "connect p99 µs"
for transport in "${transports[@]}"; do
    p=$(median ${pingpong[$transport]})
    printf '%-10s %-18s %-10.3f %-26s %-16s %s\n' "$transport" "$p" "$(python3 -c "print($p / $tcp)")" \
        "$(median ${spread[$transport]})" "$(median ${connect50[$transport]})" "$(median ${connect99[$transport]})"
done
echo "(medians of $rounds alternating rounds; ping-pong runs per round: ${pingpong[tcp]}µs for tcp)"

peak_kib() {
    /usr/bin/time -v "$bench" fanout --clients 2000 --messages 20 --interval 200ms --warmup 2 --transport "$1" \
        --out "$out" --quiet 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
}
if [ -x /usr/bin/time ]; then
    plain=$(peak_kib tcp); secure=$(peak_kib tls)
    python3 -c "
plain, secure = $plain, $secure
per = (secure - plain) / 2000
print(f'2000 clients: peak RSS tcp {plain / 1024:.1f} MiB, tls {secure / 1024:.1f} MiB: TLS adds {per:.1f} KiB per '
      f'connection pair (target ≤ 64 KiB: {\"met\" if per <= 64 else \"MISSED\"})')"
else
    echo "memory: /usr/bin/time is not installed (apt-get install time)"
fi
