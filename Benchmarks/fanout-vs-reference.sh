#!/usr/bin/env bash
# `bench fanout` against the minimal C epoll implementation of the same scenario (../shared/ref/fanout_ref.c),
# same machine, same run, same CPU placement.
#
#   Benchmarks/fanout-vs-reference.sh [rounds] [path/to/fanout_ref.c]
#
# For each placement it alternates `rounds` runs of `bench fanout --clients 50 --messages 200 --interval 10ms
# --arrival fixed --pin S,C` and `fanout_ref -p S,C fanout 50 200 10`, and prints the medians of spread p50 and
# delivery p50, the ratios bench / reference (target: at most 1.25) and the messages bench lost (target: 0).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
source=${2:-../shared/ref/fanout_ref.c}
[ -f "$source" ] || { echo "no C reference at $source" >&2; exit 2; }
swift build -c release --product bench >/dev/null
bench=.build/release/bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -Wall -pthread -o "$work/fanout_ref" "$source"

median() { python3 -c 'import sys, statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

bench_run() {  # server CPU, client CPU -> "spread_p50 delivery_p50 lost"
    "$bench" fanout --clients 50 --messages 200 --interval 10ms --arrival fixed --timestamps user --pin "$1,$2" --out "$work/runs" \
        --json | python3 -c '
import json, sys
metrics = {m["metric"]: m for m in json.load(sys.stdin)["metrics"]}
print(metrics["spread"]["p50_us"], metrics["delivery"]["p50_us"], metrics["delivery"]["lost"] + metrics["rtt"]["lost"])'
}

reference_run() {  # server CPU, client CPU -> "spread_p50 delivery_p50"
    "$work/fanout_ref" -p "$1,$2" fanout 50 200 10 | awk '
        $1 == "spread" { for (i = 1; i <= NF; i++) if ($i == "p50") s = $(i + 2) }
        $1 == "delivery" { for (i = 1; i <= NF; i++) if ($i == "p50") d = $(i + 2) }
        END { print s, d }'
}

printf '%-10s %-6s %-28s %-28s %-22s %s\n' placement cpus "spread p50 µs bench / ref" \
    "delivery p50 µs bench / ref" "ratios spread, delivery" "bench lost"
for placement in "one-cpu 0 0" "two-cpus 0 1"; do
    set -- $placement
    bench_spread=(); bench_delivery=(); ref_spread=(); ref_delivery=(); lost=0
    for _ in $(seq "$rounds"); do
        read -r s d l < <(bench_run "$2" "$3"); bench_spread+=("$s"); bench_delivery+=("$d"); lost=$((lost + l))
        read -r s d < <(reference_run "$2" "$3"); ref_spread+=("$s"); ref_delivery+=("$d")
    done
    bs=$(median "${bench_spread[@]}"); rs=$(median "${ref_spread[@]}")
    bd=$(median "${bench_delivery[@]}"); rd=$(median "${ref_delivery[@]}")
    printf '%-10s %-6s %-28s %-28s %-22s %s\n' "$1" "$2,$3" "$bs / $rs" "$bd / $rd" \
        "$(python3 -c "print(f'{$bs / $rs:.3f}, {$bd / $rd:.3f}')")" "$lost"
done
