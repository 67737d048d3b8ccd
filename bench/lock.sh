#!/usr/bin/env bash
# Benchmark: whole-process `capc lock`.
#
# 1. Shared corpora: `capc lock` against `cat` reading the same declaration files, as
#    bench/corpora.sh does for `capc check`. Each corpus is copied to a scratch folder first
#    (the corpora are read-only, and `capc lock PATH` writes PATH/capabilities.lock), and
#    the copy is what is timed, page cache warm. Two lock timings, and `capc check` for
#    reference (issue #2's own target, also <= 2x cat):
#      lock   - the lock is deleted (untimed) before every run, so each run resolves,
#               encodes and writes a new capabilities.lock (the `created` path);
#      verify - `capc lock --check` against an up-to-date lock (read, compare, no write).
#    Target: both <= 2x cat on every corpus. Every byte a lock covers is hashed with
#    SHA-256, so the lock is also timed against the hashing floor: `sha256sum` of the same
#    files, in one process and split in two halves across the 2 cores (`xargs -P2`); target
#    (issue #14): lock <= 1.5x the parallel floor. That floor is handed the list of files;
#    capc has to find them. So a second reference, with no target: `walk-hash`
#    (bench/walk-hash, built here) walks the corpus in parallel into every folder capc
#    enters and hashes the same files, parsing nothing; capc's time beyond it is its own work
#    (reading declarations, checking, resolving, writing); its digests are compared with
#    sha256sum's. A corpus whose check finds errors makes `capc lock` refuse to write; it is
#    marked `refused`, and `capc ls --format json` (which resolves regardless) is timed for
#    it below the table.
# 2. Synthetic trees from bench/gen-tree.py at each scale in SCALES (default 0.1 1 10:
#    about 1.2k, 12k and 120k declarations). Target: scale 1 under 1.5 s, and growth from
#    one scale to the next no worse than n log n (n = entries in the lock). Reports time
#    per entry and the largest peak RSS of a run.
#
# Usage: bench/lock.sh [CORPORA_DIR]      (default: ../shared/corpora, beside the repo)
#   RUNS=11            timed runs per corpus measurement (median reported; one warm-up extra)
#   SYN_RUNS=5         timed runs per synthetic scale below 10
#   SYN_RUNS_LARGE=3   timed runs per synthetic scale of 10 or more
#   SCALES="0.1 1 10"  synthetic scales; SCALES= skips the synthetic part
#   CAPC=path          time this capc binary instead of building one
#   CARGO_TARGET_DIR   honoured when building (`cargo build --release`)
#   TMPDIR             where scratch copies go (scale 10 needs about 1 GB of disk)
# busy% is the CPU time other processes took during the timed lock runs, as a share of all
# CPUs (bench/measure.py, from /proc/stat): figures with a high busy% are not a quiet machine's.
# Needs bash, python3 (bench/measure.py does the timing), cargo (for walk-hash, and for capc
# unless CAPC is set). The
# default run takes about 4 minutes on 2 cores, most of it scale 10.
set -euo pipefail
cd "$(dirname "$0")/.."
corpora=${1:-../shared/corpora}
runs=${RUNS:-11}
syn_runs=${SYN_RUNS:-5}
syn_runs_large=${SYN_RUNS_LARGE:-3}
scales=${SCALES-0.1 1 10}
measure=$PWD/bench/measure.py

source bench/capc.sh
cargo build --release --quiet -p capc-walk-hash
walk_hash=$target/release/walk-hash

work=$(mktemp -d "${TMPDIR:-/tmp}/capc-lock-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Reads `key=value` pairs of a bench/measure.py line into variables m_<key>.
parse() {
  local kv
  for kv in $1; do
    printf -v "m_${kv%%=*}" '%s' "${kv#*=}"
  done
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

if [[ -n ${CAPC:-} ]]; then
  echo "capc: $capc (given as CAPC)"
else
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo "?")
  dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -qv '^.. bench/' && echo " + uncommitted changes" || true)
  echo "capc: $capc (built from $commit$dirty)"
fi
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "SHA extensions: $(grep -qw sha_ni /proc/cpuinfo 2>/dev/null && echo 'yes (sha_ni; the sha2 crate detects and uses them at run time)' || echo 'no (sha_ni absent)')"
echo

# Writes the NUL-separated list of the files capc reads under $1 to $2; prints count and KiB.
list_files() {
  "$capc" check --list-files "$1" | cut -f1 | sed "s|^|$1/|" | tr '\n' '\0' > "$2"
  local files kib
  files=$(tr -cd '\0' < "$2" | wc -c)
  kib=$(( $(xargs -0 cat < "$2" | wc -c) / 1024 ))
  echo "$files $kib"
}

# --- 1. shared corpora -------------------------------------------------------------------
if [[ ! -d $corpora ]]; then
  echo "corpora: $corpora not found; skipping (pass the corpora folder as the first argument)"
else
  echo "corpora ($runs runs each, median wall ms; check = capc check --format json, for reference;"
  echo "lock = capc lock writing a new lock; verify = capc lock --check against an up-to-date lock;"
  echo "sha = sha256sum of the same files in one process, sha/2 = split across 2 processes (xargs -P2);"
  echo "walk+sha = walk-hash: the corpus walked as capc walks it and the same files hashed, in parallel;"
  echo "ratios: lock× and verify× to cat, then lock/sha2 and verify/sha2 to the parallel hashing floor,"
  echo "lock/w+s to walk+sha;"
  echo "cpu: CPU time (user+sys) of lock and of sha256sum, and their ratio, steadier than wall time on a busy machine)"
  printf '%-40s %6s %6s %8s %8s %8s %8s %8s %8s %8s %6s %7s %9s %11s %8s %8s %8s %5s %5s  %s\n' corpus files KiB cat sha sha/2 walk+sha check lock verify lock× verify× lock/sha2 verify/sha2 lock/w+s "sha cpu" "lock cpu" cpu× busy% status
  worst=0
  worst_sha=0
  worst_walk=0
  notes=()
  for dir in "$corpora"/*/; do
    name=$(basename "$dir")
    copy=$work/corpora/$name
    mkdir -p "$work/corpora"
    cp -a "$dir" "$copy"
    list=$work/$name.files
    read -r files kib < <(list_files "$copy" "$list")
    parse "$(python3 "$measure" --runs "$runs" --stdin "$list" -- xargs -0 -r cat)"
    cat_ms=$m_wall_ms
    parse "$(python3 "$measure" --runs "$runs" --stdin "$list" -- xargs -0 -r sha256sum)"
    sha_ms=$m_wall_ms sha_cpu=$m_cpu_ms
    parse "$(python3 "$measure" --runs "$runs" --stdin "$list" -- xargs -0 -r -P2 -n "$(( (files + 1) / 2 ))" sha256sum)"
    sha2_ms=$m_wall_ms
    parse "$(python3 "$measure" --runs "$runs" --stdin "$list" -- "$walk_hash" "$copy")"
    walk_ms=$m_wall_ms
    # walk+sha must hash what the floor hashes: the same digests as sha256sum, file for file.
    if ! cmp -s <("$walk_hash" "$copy" < "$list") <(xargs -0 -r sha256sum < "$list" | LC_ALL=C sort -k2); then
      notes+=("$name: walk-hash's digests differ from sha256sum's on the same list, so walk+sha is not comparable")
    fi
    parse "$(python3 "$measure" --runs "$runs" -- "$capc" check --format json "$copy")"
    capc_check_ms=$m_wall_ms
    parse "$(python3 "$measure" --runs "$runs" --before "rm -f '$copy/capabilities.lock'" -- "$capc" lock "$copy")"
    lock_ms=$m_wall_ms lock_rc=$m_rc busy=$m_others_pct lock_cpu=$m_cpu_ms
    if [[ $lock_rc == 0 ]]; then
      status=ok
      "$capc" lock "$copy" >/dev/null 2>&1
      parse "$(python3 "$measure" --runs "$runs" -- "$capc" lock --check "$copy")"
      check_ms=$m_wall_ms
      [[ $m_rc == 0 ]] || status="lock --check exit $m_rc"
      check_x=$(ratio "$check_ms" "$cat_ms")
      check_sha=$(ratio "$check_ms" "$sha2_ms")
    else
      status="refused (exit $lock_rc: the check finds errors)"
      check_ms=- check_x=- check_sha=-
      parse "$(python3 "$measure" --runs "$runs" -- "$capc" ls --format json "$copy")"
      notes+=("$name: capc lock refuses to write; capc ls --format json (check + resolve) takes $m_wall_ms ms, $(ratio "$m_wall_ms" "$cat_ms")x cat")
    fi
    lock_x=$(ratio "$lock_ms" "$cat_ms")
    lock_sha=$(ratio "$lock_ms" "$sha2_ms")
    lock_walk=$(ratio "$lock_ms" "$walk_ms")
    for x in "$lock_x" "$check_x"; do
      [[ $x == - ]] || worst=$(awk -v a="$worst" -v b="$x" 'BEGIN { print (b > a) ? b : a }')
    done
    if [[ $lock_rc == 0 ]]; then
      for x in "$lock_sha" "$check_sha"; do
        worst_sha=$(awk -v a="$worst_sha" -v b="$x" 'BEGIN { print (b > a) ? b : a }')
      done
      worst_walk=$(awk -v a="$worst_walk" -v b="$lock_walk" 'BEGIN { print (b > a) ? b : a }')
    fi
    printf '%-40s %6d %6d %8s %8s %8s %8s %8s %8s %8s %6s %7s %9s %11s %8s %8s %8s %5s %5s  %s\n' "$name" "$files" "$kib" "$cat_ms" "$sha_ms" "$sha2_ms" "$walk_ms" "$capc_check_ms" "$lock_ms" "$check_ms" "$lock_x" "$check_x" "$lock_sha" "$check_sha" "$lock_walk" "$sha_cpu" "$lock_cpu" "$(ratio "$lock_cpu" "$sha_cpu")" "$busy" "$status"
    rm -rf "$copy" "$list"
  done
  for n in ${notes[@]+"${notes[@]}"}; do echo "  note: $n"; done
  verdict=$(awk -v w="$worst" 'BEGIN { print (w <= 2) ? "holds" : "MISSED" }')
  echo "target lock <= 2x cat: $verdict (worst ${worst}x)"
  verdict=$(awk -v w="$worst_sha" 'BEGIN { print (w <= 1.5) ? "holds" : "MISSED" }')
  echo "target lock <= 1.5x the parallel sha256sum floor (corpora that lock): $verdict (worst ${worst_sha}x)"
  echo "reference, no target: lock / walk+sha (finding and hashing the same files) at worst ${worst_walk}x"
fi
echo

# --- 2. synthetic trees ------------------------------------------------------------------
if [[ -z ${scales// /} ]]; then
  echo "synthetic: SCALES is empty; skipping"
  exit 0
fi
echo "synthetic (bench/gen-tree.py --scale S; lock = fresh write, median of N runs)"
printf '%6s %7s %8s %8s %9s %9s %9s %8s %8s %4s %5s  %s\n' scale files entries "cat ms" "lock ms" "min ms" "cpu ms" µs/entry "RSS MiB" runs busy% "growth (measured / n log n bound)"
prev_n="" prev_ms=""
for scale in $scales; do
  tree=$work/gen-$scale
  python3 bench/gen-tree.py "$tree" --scale "$scale"
  list=$work/gen-$scale.files
  read -r files _ < <(list_files "$tree" "$list")
  large=$(awk -v s="$scale" 'BEGIN { print (s >= 10) }')
  n_runs=$syn_runs
  [[ $large == 1 ]] && n_runs=$syn_runs_large
  parse "$(python3 "$measure" --runs "$n_runs" --stdin "$list" -- xargs -0 -r cat)"
  cat_ms=$m_wall_ms
  parse "$(python3 "$measure" --runs "$n_runs" --before "rm -f '$tree/capabilities.lock'" -- "$capc" lock "$tree")"
  [[ $m_rc == 0 ]] || echo "warning: capc lock exited $m_rc at scale $scale" >&2
  # Entries: every table the lock holds besides [[source]] (commands, agents, MCP servers,
  # plugins, hooks, permission rules), counted on the lock the last run wrote.
  "$capc" lock "$tree" >/dev/null 2>&1 || true
  entries=$(grep -cE '^\[\[(command|agent|mcp_server|plugin|hook|permission)\]\]$' "$tree/capabilities.lock" || true)
  per=$(awk -v ms="$m_wall_ms" -v n="$entries" 'BEGIN { printf "%.1f", ms * 1000 / n }')
  mib=$(( m_rss_kib / 1024 ))
  growth=-
  if [[ -n $prev_n ]]; then
    growth=$(awk -v t1="$prev_ms" -v t2="$m_wall_ms" -v n1="$prev_n" -v n2="$entries" 'BEGIN {
      m = t2 / t1; b = (n2 * log(n2)) / (n1 * log(n1));
      printf "x%.1f / x%.1f %s", m, b, (m <= b) ? "ok" : "WORSE than n log n" }')
  fi
  printf '%6s %7d %8d %8s %9s %9s %9s %8s %8d %4d %5s  %s\n' "$scale" "$files" "$entries" "$cat_ms" "$m_wall_ms" "$m_wall_min_ms" "$m_cpu_ms" "$per" "$mib" "$n_runs" "$m_others_pct" "$growth"
  if [[ $scale == 1 ]]; then
    scale1=$(awk -v ms="$m_wall_ms" 'BEGIN { print (ms <= 1500) ? "holds" : "MISSED" }')
    scale1_ms=$m_wall_ms
  fi
  prev_n=$entries prev_ms=$m_wall_ms
  rm -rf "$tree" "$list"
done
[[ -z ${scale1:-} ]] || echo "target scale 1 (10k skills) under 1.5 s: $scale1 ($scale1_ms ms)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
