#!/usr/bin/env bash
# The SQLite test run, several times in a row, on a machine whose cores are all kept busy: one busy
# loop per core (`nproc`, or LOAD_CORES) for as long as the runs last. Prints each run's result, time
# and counts; exits 1 if any run failed. The suite must pass it: no test may depend on timing.
#
#   scripts/loaded-test.sh            # 3 runs
#   scripts/loaded-test.sh 5          # 5 runs
#   LOAD_CORES=0 scripts/loaded-test.sh 1   # one run, no extra load (the plain figure)
set -uo pipefail
cd "$(dirname "$0")/.."

runs="${1:-3}"
cores="${LOAD_CORES:-$(nproc)}"
logs="$(mktemp -d "${TMPDIR:-/tmp}/dotplan-loaded-XXXXXX")"

echo "== building dist/ once (the subprocess tests run bin/dotplan.js)"
npm run build >"$logs/build.log" 2>&1 || { cat "$logs/build.log"; exit 1; }

loops=()
stop_loops() {
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null; done
  loops=()
}
trap stop_loops EXIT INT TERM
for _ in $(seq 1 "$cores"); do
  bash -c 'while :; do :; done' &
  loops+=("$!")
done
echo "== $cores busy loop(s) (pids ${loops[*]:-none}) on $(nproc) core(s); load average $(cut -d' ' -f1-3 /proc/loadavg)"

failed=0
for run in $(seq 1 "$runs"); do
  log="$logs/run-$run.log"
  started=$(date +%s)
  if env -u DATABASE_URL DB=sqlite npx vitest run >"$log" 2>&1; then result=passed; else result=FAILED; failed=$((failed + 1)); fi
  counts=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *(Test Files|Tests) ' | tr -s ' ' | tr '\n' ';')
  echo "run $run of $runs: $result in $(($(date +%s) - started)) s;$counts load average $(cut -d' ' -f1-3 /proc/loadavg) (log: $log)"
  if [ "$result" = FAILED ]; then sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E '^ *(FAIL|×)' | head -20; fi
done
stop_loops

if [ "$failed" -gt 0 ]; then
  echo "== $failed of $runs run(s) failed under load"
  exit 1
fi
echo "== all $runs run(s) passed under load"
