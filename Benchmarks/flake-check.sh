#!/usr/bin/env bash
# Runs the test suite K times (default 5) while one CPU is kept busy by a spinning process, as a loaded CI machine
# would be, and prints how many runs passed and how long each took. A failing run's log is kept and its failing tests
# are named, so a flaky test shows itself by name.
#
#   bash Benchmarks/flake-check.sh [K] [extra `swift test` arguments, e.g. --filter ReconnectAttackTests]
#   BUSY=2 bash Benchmarks/flake-check.sh 3      # both CPUs of a 2-core machine kept busy
#
# It builds into a scratch folder of its own (.build-flake), so that work going on in .build meanwhile does not swap
# the binaries under a run. Exit 0 when every run passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
scratch=(--scratch-path .build-flake)
swift build "${scratch[@]}" --build-tests >/dev/null || { echo "build failed"; exit 3; }
logs=$(mktemp -d /tmp/flake-check.XXXXXX)
loads=${BUSY:-1}
busy=()
for _ in $(seq 1 "$loads"); do
    yes >/dev/null &
    busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT
passed=0
for run in $(seq 1 "$runs"); do
    start=$SECONDS
    if swift test "${scratch[@]}" --skip-build "$@" >"$logs/run-$run.log" 2>&1; then
        passed=$((passed + 1))
        verdict=passed
    else
        verdict="FAILED (log: $logs/run-$run.log)"
    fi
    summary=$(grep -E '^. Test run with' "$logs/run-$run.log" | tail -1)
    echo "run $run: $verdict in $((SECONDS - start)) s — ${summary:-no summary line}"
    grep -E '^✘ Test .* (failed|recorded)' "$logs/run-$run.log" | sed 's/^/    /' | head -20
done
echo "flake-check: $passed/$runs passed with $loads CPU(s) kept busy"
((passed == runs))
