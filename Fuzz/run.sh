#!/usr/bin/env bash
# Builds every libFuzzer harness (-sanitize=fuzzer,address) and runs each for SECONDS (default 60)
# from its seed corpus plus the corpus grown by earlier runs (.corpus/, not committed).
# Usage: Fuzz/run.sh [SECONDS] [HARNESS...]   Env: JOBS=n harnesses at a time (default 1);
# TIMEOUT=s per input (default 1; raise it on a loaded machine, then replay with replay.sh);
# RUNS=n stops a harness after n executions (SECONDS still caps it): RUNS=1000000 for the 10^6 goal.
# CONFIG=debug builds the harnesses unoptimised (CI's smoke): 2 minutes instead of 3.5 here, a quarter
# to two thirds of the executions a second, and Swift's debug-only assertions checked.
# A harness that crashes, leaks or takes over 1 s on an input stops with its input saved in
# Fuzz/.artifacts/<harness>/ and this script exits 1. Prints one line per harness: runs, edges.
set -uo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${1:-60}; shift || true
ALL=(FuzzCSV FuzzGRT FuzzTS FuzzHAPT FuzzPipelineFile FuzzSpec FuzzLine FuzzOSC FuzzUDP)
HARNESSES=("${@:-${ALL[@]}}")
CONFIG=${CONFIG:-release}
[[ $# -eq 0 ]] && HARNESSES=("${ALL[@]}")
declare -A DICT=([FuzzCSV]=csv [FuzzGRT]=grt [FuzzTS]=ts [FuzzHAPT]=hapt [FuzzPipelineFile]=json
                 [FuzzSpec]=json [FuzzLine]=line [FuzzOSC]=osc [FuzzUDP]=udp)
for h in "${HARNESSES[@]}"; do
  # One product at a time: building the whole package would also link the gesture CLI.
  # A failed build stops here: under pipefail, piping it into grep would let stale binaries run.
  out=$(swift build -c "$CONFIG" --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address \
    -Xswiftc -enable-testing --product "$h" 2>&1) || { echo "$out" | grep -E "error" | head -20 >&2
    echo "Fuzz/run.sh: $h did not build" >&2; exit 2; }
  echo "$out" | grep -E "warning: unre" && exit 2
done
mkdir -p .logs
run_one() {
  local h=$1
  mkdir -p ".corpus/$h" ".artifacts/$h" "Seeds/$h"
  # -timeout: an input over it is a finding; detect_leaks is on by default under ASan.
  # nice 19: the machine is shared with builds, which should not wait for a fuzzer.
  SWIFT_BACKTRACE=enable=no nice -n 19 ".build-fuzz/$CONFIG/$h" ".corpus/$h" "Seeds/$h" -dict="Dicts/${DICT[$h]}.dict" \
    -max_total_time="$SECONDS_EACH" -runs="${RUNS:--1}" -timeout="${TIMEOUT:-1}" -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix=".artifacts/$h/" >".logs/$h.log" 2>&1
  local rc=$?
  local runs edges
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' ".logs/$h.log" | grep -o '[0-9]*$')
  edges=$(grep -oE 'cov: [0-9]+' ".logs/$h.log" | tail -1 | grep -oE '[0-9]+')
  local ft secs
  ft=$(grep -oE 'ft: [0-9]+' ".logs/$h.log" | tail -1 | grep -oE '[0-9]+')
  secs=$(grep -oE 'Done [0-9]+ runs in [0-9]+ second' ".logs/$h.log" | grep -oE '[0-9]+ second' | grep -oE '[0-9]+')
  printf '%-18s rc=%-3s runs=%-10s edges=%-6s features=%-6s seconds=%s\n' "$h" "$rc" "${runs:-?}" "${edges:-?}" "${ft:-?}" "${secs:-?}"
  return $rc
}
status=0
JOBS=${JOBS:-1}
pids=()
for h in "${HARNESSES[@]}"; do
  run_one "$h" & pids+=($!)
  if (( ${#pids[@]} >= JOBS )); then wait "${pids[0]}" || status=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
