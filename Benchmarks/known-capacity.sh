#!/usr/bin/env bash
# `bench capacity` against servers whose capacity is known by construction, K times each (default 1): does the search
# answer within 5% of the truth, and how long does it take?
#
#   bash Benchmarks/known-capacity.sh [K]          RELAY=0 or ECHO=0 to skip one
#
# 1. A relay of known capacity (Tests/Fixtures/slow_relay_server.py 0.05): subscriber i gets each line 50 µs × i after
#    it arrived, so a broadcast's spread is 50 µs × (subscribers − 1) and `spread.p99<100ms` holds up to 2,000
#    subscribers (issue 62's relay) where writing costs nothing; Python's writes add their own, so the script measures
#    where the spread crosses 100 ms on this machine before it searches.
# 2. An echo server of known rate (Benchmarks/slow_echo_server.c 1000): every line costs it 1 ms of CPU, so one client
#    is answered in time down to an interval a little over 1 ms (its reads and writes cost too); its process, busy a
#    whole CPU, is the server's, not other work.
# Prints each search's line and the steps that were repeated and why.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
swift build -c release --product bench >/dev/null
bench=.build/release/bench
out=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$out"' EXIT
ulimit -n "$(ulimit -Hn)"

wait_for_port_file() {
    for _ in $(seq 1 100); do [ -s "$1" ] && return 0; sleep 0.1; done
    echo "the server did not start" >&2
    exit 3
}

if [ "${RELAY:-1}" != 0 ]; then
    /usr/bin/python3 Tests/Fixtures/slow_relay_server.py 0.05 "$out/relay.port" &
    pids+=($!)
    wait_for_port_file "$out/relay.port"
    port=$(cat "$out/relay.port")
    # The truth on this machine, measured apart from the search: the spread p99 of 150 broadcasts at 1,400 and 1,600
    # subscribers (the relay's cost grows linearly with them), and where the line through them crosses 100 ms.
    relay_spread_p99_ms() {
        rm -rf "$out/truth"
        "$bench" fanout --target "tcp://127.0.0.1:$port" --framing line --subscribe JOIN --publish '{marker}{padding}' \
            --clients "$1" --messages 150 --interval 200ms --arrival fixed --warmup 3 --out "$out/truth" >/dev/null 2>&1 || true
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "p99_us") c = i } $1 == "spread" { print $c / 1000 }' \
            "$out"/truth/*/summary.csv
    }
    at1400=$(relay_spread_p99_ms 1400)
    at1600=$(relay_spread_p99_ms 1600)
    truth=$(awk -v a="$at1400" -v b="$at1600" 'BEGIN { s = (b - a) / 200; printf "%d", 1400 + (100 - a) / s }')
    echo "relay: spread p99 ${at1400} ms at 1,400 subscribers, ${at1600} ms at 1,600: crosses 100 ms near $truth"
    for run in $(seq 1 "$runs"); do
        started=$SECONDS
        line=$("$bench" capacity fanout --target "tcp://127.0.0.1:$port" --framing line --subscribe JOIN \
            --publish '{marker}{padding}' --clients 200..4000 --slo 'spread.p99<100ms' --messages 20 --interval 200ms \
            --arrival fixed --warmup 3 --out "$out" 2>"$out/relay-$run.log" | head -1) || true
        answer=$(sed -nE 's/^capacity: ([0-9,]+) .*/\1/p' <<<"$line" | tr -d ,)
        ratio=$(awk -v a="${answer:-0}" -v t="$truth" 'BEGIN { printf "%.3f", a / t }')
        echo "relay (truth $truth subscribers here), search $run ($((SECONDS - started)) s), answer/truth $ratio: $line"
        grep -E "run again|busy with other work|saturated|did not keep up" "$out/relay-$run.log" | sed 's/^/    /' | head -8 || true
    done
fi

if [ "${ECHO:-1}" != 0 ]; then
    cc -O2 -o "$out/slow_echo" Benchmarks/slow_echo_server.c
    port=$((20000 + RANDOM % 20000))
    "$out/slow_echo" "$port" 1000 &
    pids+=($!)
    sleep 0.5
    for run in $(seq 1 "$runs"); do
        started=$SECONDS
        line=$("$bench" capacity roundtrip --target "tcp://127.0.0.1:$port" --framing line --publish '{marker}' --arrival fixed \
            --clients 1 --interval 5ms..250us --count 200 --slo 'rtt.p99<20ms' --out "$out" 2>"$out/echo-$run.log" \
            | head -1) || true
        echo "echo server (truth a little over 1 ms), search $run ($((SECONDS - started)) s): $line"
        grep -E "run again|busy with other work|saturated|did not keep up" "$out/echo-$run.log" | sed 's/^/    /' | head -8 || true
    done
fi
