#!/usr/bin/env bash
# Benchmark: whole-process `capc check` against `cat` reading the same declaration files,
# on each shared corpus. Prints the median of RUNS runs (default 21) of each, and the ratio.
# Target (issue #2): capc <= 2x cat on every corpus.
#
# Usage: bench/corpora.sh [CORPORA_DIR]     (default: ../shared/corpora)
#   CAPC=path  time this capc binary instead of building one (CARGO_TARGET_DIR is honoured)
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=${1:-../shared/corpora}
runs=${RUNS:-21}
source bench/capc.sh

# Median wall time of a command in microseconds.
median_us() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

printf '%-40s %6s %9s %10s %10s %6s\n' corpus files KiB "cat (ms)" "capc (ms)" ratio
for dir in "$corpora"/*/; do
  name=$(basename "$dir")
  list=$(mktemp)
  # The files capc reads; cat reads exactly these.
  "$capc" check --list-files "$dir" | cut -f1 | sed "s|^|$dir|" | tr '\n' '\0' > "$list"
  files=$(tr -cd '\0' < "$list" | wc -c)
  kib=$(( $(xargs -0 cat < "$list" | wc -c) / 1024 ))
  xargs -0 cat < "$list" >/dev/null # warm the page cache for both
  cat_us=$(median_us sh -c "xargs -0 cat < '$list'")
  capc_us=$(median_us "$capc" check --format json "$dir")
  ratio=$(awk -v a="$capc_us" -v b="$cat_us" 'BEGIN { printf "%.2f", a / b }')
  printf '%-40s %6d %9d %10.1f %10.1f %6s\n' "$name" "$files" "$kib" "$(awk -v u="$cat_us" 'BEGIN{print u/1000}')" "$(awk -v u="$capc_us" 'BEGIN{print u/1000}')" "$ratio"
  rm -f "$list"
done
