#!/usr/bin/env bash
# Benchmark: one capc build against another on each shared corpus, paired (A B A B ...), so
# a machine whose speed drifts during the run still gives a fair ratio. For checking that a
# change makes no check slower (issue #22: at most 1.10x the build before it).
#
# Usage: bench/vs.sh OLD_CAPC NEW_CAPC [CORPORA_DIR]     (default: ../shared/corpora)
#   RUNS=n     pairs per corpus and command (default 21)
# Needs farm-bench (paired timing of whole processes); prints its median ratio NEW/OLD for
# `check --format json` and `check --list-files`, and the instructions each executes under
# callgrind when valgrind is installed (a figure the machine's load does not move).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/vs.sh OLD_CAPC NEW_CAPC [CORPORA_DIR]}
new=${2:?usage: bench/vs.sh OLD_CAPC NEW_CAPC [CORPORA_DIR]}
corpora=${3:-../shared/corpora}
runs=${RUNS:-21}

# A check that finds errors exits 1: that is its answer, not a failure of the measurement.
instructions() {
  { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null || true; } |
    awk '/Collected/ { print $NF }'
}

printf '%-40s %-14s %10s %12s %12s %8s\n' corpus command "ratio" "old Ir" "new Ir" "Ir ratio"
for dir in "$corpora"/*/; do
  name=$(basename "$dir")
  for how in "--format json" "--list-files"; do
    # shellcheck disable=SC2086
    ratio=$(farm-bench -n "$runs" --warmup 2 --timeout 600 --vs "$old check $how $dir" -- "$new" check $how "$dir" 2>&1 |
      awk '/^A\/B wall/ { print $4; exit }')
    old_ir=- new_ir=- ir_ratio=-
    if command -v valgrind >/dev/null; then
      # shellcheck disable=SC2086
      old_ir=$(instructions "$old" check $how "$dir")
      # shellcheck disable=SC2086
      new_ir=$(instructions "$new" check $how "$dir")
      ir_ratio=$(awk -v a="$new_ir" -v b="$old_ir" 'BEGIN { printf "%.3f", a / b }')
    fi
    printf '%-40s %-14s %10s %12s %12s %8s\n' "$name" "${how#--}" "${ratio:-?}" "$old_ir" "$new_ir" "$ir_ratio"
  done
done
