#!/usr/bin/env bash
# Round trip of `bench roundtrip` against sockperf ping-pong, same machine, same run, same CPU placement.
#
#   Benchmarks/roundtrip-vs-sockperf.sh [rounds]      (needs: apt-get install sockperf)
#
# For each placement (both ends on one CPU; server and client on different CPUs) it alternates `rounds`
# runs of each tool and prints the median of their median RTTs and the ratio bench / sockperf.
# bench: 1 client, 100000 ping-pongs (--interval 0, about 2 s), 64 B. sockperf: --tcp -m 64 --full-rtt, 2 s.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
command -v sockperf >/dev/null || { echo "sockperf is not installed (apt-get install sockperf)" >&2; exit 2; }
swift build -c release --product bench >/dev/null
bench=.build/release/bench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

bench_p50() {  # server CPU, client CPU
    "$bench" roundtrip --clients 1 --count 100000 --interval 0 --payload 64 --timestamps user --pin "$1,$2" --out "$out" --json |
        python3 -c 'import json, sys; print(next(m["p50_us"] for m in json.load(sys.stdin)["metrics"] if m["metric"] == "rtt"))'
}

sockperf_p50() {  # server CPU, client CPU
    local port=$((20000 + RANDOM % 20000))
    taskset -c "$1" sockperf server --tcp -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
    local server=$!
    sleep 0.5
    taskset -c "$2" sockperf ping-pong --tcp -i 127.0.0.1 -p "$port" -m 64 -t 2 --full-rtt 2>&1 |
        sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p'
    kill "$server"; wait "$server" 2>/dev/null || true
}

printf '%-14s %-10s %-34s %-34s %s\n' placement cpus "bench p50 µs (runs)" "sockperf p50 µs (runs)" "ratio of medians"
for placement in "one-cpu 0 0" "two-cpus 0 1"; do
    set -- $placement
    bench_runs=(); sockperf_runs=()
    for _ in $(seq "$rounds"); do
        bench_runs+=("$(bench_p50 "$2" "$3")")
        sockperf_runs+=("$(sockperf_p50 "$2" "$3")")
    done
    b=$(median "${bench_runs[@]}"); s=$(median "${sockperf_runs[@]}")
    printf '%-14s %-10s %-34s %-34s %.3f\n' "$1" "$2,$3" "$b (${bench_runs[*]})" "$s (${sockperf_runs[*]})" \
        "$(python3 -c "print($b / $s)")"
done
