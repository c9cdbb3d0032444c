#!/usr/bin/env bash
# `bench capacity` against servers whose capacity is known by construction, K times each (default 1): does the search
# answer within 5% of the truth, and how long does it take?
#
#   bash Benchmarks/known-capacity.sh [K]          RELAY=0 or ECHO=0 to skip one
#
# 1. A relay of known capacity (Benchmarks/paced_relay_server.c 50): subscriber i gets each line 50 µs × i after it
#    arrived, each write timed to its instant, so a broadcast's spread is 50 µs × (subscribers − 1) and
#    `spread.p99<100ms` holds up to 2,000 subscribers (issue 62's relay). The script measures the spread at 1,900 and
#    2,100 subscribers first, to show how closely the truth holds on this machine (a busy loopback delays a broadcast
#    now and then), then searches `spread.p99<100ms` (PERCENTILE=p95 for `spread.p95<100ms`, whose truth such rare
#    delays do not move); RUNS_DIR=DIR keeps every search's run folders and log (each step's thresholds.csv says why it
#    was decided).
# 2. An echo server of known rate (Benchmarks/slow_echo_server.c 1000): every line costs it 1 ms of CPU, so one client
#    is answered in time down to an interval a little over 1 ms (its reads and writes cost too); its process, busy a
#    whole CPU, is the server's, not other work.
# Prints each search's line and the steps that were repeated and why.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1}
# BENCH=path/to/bench measures that binary instead of building this tree's.
if [ -z "${BENCH:-}" ]; then swift build -c release --product bench >/dev/null; fi
bench=${BENCH:-.build/release/bench}
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
    cc -O2 -o "$out/paced_relay" Benchmarks/paced_relay_server.c
    "$out/paced_relay" 50 "$out/relay.port" &
    pids+=($!)
    wait_for_port_file "$out/relay.port"
    port=$(cat "$out/relay.port")
    relay_run() {  # subscribers broadcasts folder [more options]
        "$bench" fanout --target "tcp://127.0.0.1:$port" --framing line --subscribe JOIN --publish '{marker}{padding}' \
            --clients "$1" --messages "$2" --interval 200ms --arrival fixed --warmup 3 --out "$3" "${@:4}"
    }
    # The truth on this machine, measured apart from the search: 100 broadcasts just under and just over 2,000.
    for clients in 1900 2100; do
        relay_run "$clients" 100 "$out/truth-$clients" >/dev/null 2>&1 || true
        awk -F, -v n="$clients" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "spread_ns") c = i }
            NR > 1 { v = $c / 1e6; all++; if (v > (n - 1) * 0.05 + 1) late++; if (v > max) max = v }
            END { printf "relay truth: %d subscribers, by construction %.2f ms: %d broadcasts, the longest spread %.2f ms, %d over by more than 1 ms\n",
            n, (n - 1) * 0.05, all, max, late }' "$out"/truth-"$clients"/*/broadcasts.csv
    done
    keep=${RUNS_DIR:-$out}
    mkdir -p "$keep"
    for run in $(seq 1 "$runs"); do
        started=$SECONDS
        line=$("$bench" capacity fanout --target "tcp://127.0.0.1:$port" --framing line --subscribe JOIN \
            --publish '{marker}{padding}' --clients 200..4000 --slo "spread.${PERCENTILE:-p99}<100ms" --messages 20 --interval 200ms \
            --arrival fixed --warmup 3 --out "$keep/relay-$run" 2>"$keep/relay-$run.log" | head -1) || true
        answer=$(sed -nE 's/^capacity: ([0-9,]+) .*/\1/p' <<<"$line" | tr -d ,)
        ratio=$(awk -v a="${answer:-0}" 'BEGIN { printf "%.3f", a / 2000 }')
        echo "relay (truth 2,000 subscribers), search $run ($((SECONDS - started)) s), answer/truth $ratio: $line"
        grep -E "run again|busy with other work|saturated|did not keep up|undecided" "$keep/relay-$run.log" | sed 's/^/    /' | head -8 || true
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
