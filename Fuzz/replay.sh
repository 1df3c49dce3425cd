#!/usr/bin/env bash
# Replays each harness's whole corpus (seeds + .corpus/) once with a 1 s limit per input and
# prints the slowest input: the check that no input takes over 1 s, made on a quieter machine
# than the fuzzing itself. Usage: Fuzz/replay.sh [HARNESS...] (after run.sh has built them).
set -uo pipefail
cd "$(dirname "$0")"
ALL=(FuzzCSV FuzzGRT FuzzTS FuzzHAPT FuzzPipelineFile FuzzSpec FuzzLine FuzzOSC FuzzUDP)
[[ $# -gt 0 ]] && ALL=("$@")
status=0
for h in "${ALL[@]}"; do
  mkdir -p ".corpus/$h" ".artifacts/$h"  # libFuzzer refuses a missing artifact folder
  out=$(SWIFT_BACKTRACE=enable=no ".build-fuzz/release/$h" -runs=0 -timeout=1 -print_final_stats=1 \
        -artifact_prefix=".artifacts/$h/replay-" ".corpus/$h" "Seeds/$h" 2>&1) || status=1
  n=$(ls ".corpus/$h" "Seeds/$h" | wc -l)
  slow=$(grep -o 'slowest_unit_time_sec: *[0-9]*' <<<"$out" | grep -o '[0-9]*$')
  printf '%-18s inputs=%-6s slowest=%ss %s\n' "$h" "$n" "${slow:-?}" "$(grep -q 'ERROR' <<<"$out" && echo FAILED)"
done
exit $status
