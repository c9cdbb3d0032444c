#!/usr/bin/env bash
# Issue 46's 100,000-connection run, as a user runs it (no option but the run's own): `bench fanout --clients 100000
# --messages 30 --interval 2s`, then the same every 5 s. Each prints its wall time, the wait for the clients (setup_s),
# the server processes it chose, the harness's verdict, and delivery and spread; memory per connection is
# Benchmarks/connection-memory.sh's.
#
#   Benchmarks/hundred-thousand-connections.sh [intervals…]     (default: 2s 5s)
set -euo pipefail
cd "$(dirname "$0")/.."
intervals=("$@")
[ ${#intervals[@]} -gt 0 ] || intervals=(2s 5s)
swift build -c release --product bench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for interval in "${intervals[@]}"; do
  messages=30
  [ "$interval" = "2s" ] || messages=12
  started=$(date +%s.%N)
  folder=$(.build/release/bench fanout --clients 100000 --messages "$messages" --interval "$interval" --quiet --out "$work/$interval" || true)
  ended=$(date +%s.%N)
  value() { grep "^$1," "$folder/run.csv" | cut -d, -f2- | tr -d '"'; }
  metric() { awk -F, -v m="$1" 'NR==1{for(i=1;i<=NF;i++) h[$i]=i} $1==m{printf "p50 %.1f ms, p99 %.1f ms, lost %s", $h["p50_us"]/1000, $h["p99_us"]/1000, $h["lost"]}' "$folder/summary.csv"; }
  echo "every $interval: $(awk -v a="$started" -v b="$ended" 'BEGIN{printf "%.0f", b-a}') s in all, setup $(value setup_s) s, $(value server_processes) server processes, status $(value status), lost $(value messages_lost) of $(( messages * 100000 )), saturated $(value harness_saturated) ($(value harness_saturation))"
  echo "  delivery $(metric delivery); spread $(metric spread); connect $(metric connect)"
done
