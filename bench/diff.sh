#!/usr/bin/env bash
# Benchmark: whole-process `capc diff` of two large locks.
#
# bench/gen-tree.py writes a tree (scale 1: 10k skills, 2k commands, 200 plugins, 100 MCP
# servers; a lock of about 12k entries and 12k sources), `capc lock` locks it; a copy is
# changed as a busy pull request would change it (1% of the project's skills edited, 0.2%
# given `model: opus`, 20 commands deleted, 10 skills added, a blanket allow rule, 5 MCP
# servers bumped) and locked again. Timed (bench/measure.py, median of RUNS):
#   locks   - `capc diff old.lock new.lock --format json` (the target: under 0.5 s at scale 1);
#   folders - `capc diff old/ new/ --format json` (both trees checked and resolved first,
#             for reference: that is two `capc lock` runs without writing).
#
# Usage: bench/diff.sh            RUNS=7  SCALE=1  CAPC=path (else `cargo build --release`)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
scale=${SCALE:-1}
measure=$PWD/bench/measure.py
source bench/capc.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/capc-diff-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//'), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
python3 bench/gen-tree.py "$work/old" --scale "$scale"
cp -a "$work/old" "$work/new"
python3 - "$work/new" <<'PY'
import json, os, sys
root = sys.argv[1]
skills = sorted(os.listdir(f"{root}/.claude/skills"))
for i, name in enumerate(skills):
    path = f"{root}/.claude/skills/{name}/SKILL.md"
    if i % 100 == 0:
        text = open(path).read().replace("description: Use this skill to", "description: Now use this skill to", 1)
        if i % 500 == 0:
            text = text.replace("\n---\n", "\nmodel: opus\n---\n", 1)
        open(path, "w").write(text)
for i in range(10):
    os.makedirs(f"{root}/.claude/skills/added-{i}", exist_ok=True)
    open(f"{root}/.claude/skills/added-{i}/SKILL.md", "w").write(f"---\ndescription: Added skill {i}\n---\nDo task {i}.\n")
commands = sorted(os.path.join(d, f) for d, _, fs in os.walk(f"{root}/.claude/commands") for f in fs)
for path in commands[:20]:
    os.remove(path)
settings = json.load(open(f"{root}/.claude/settings.json"))
settings["permissions"]["allow"].append("Bash(*)")
json.dump(settings, open(f"{root}/.claude/settings.json", "w"), indent=2)
mcp = json.load(open(f"{root}/.mcp.json"))
for name in sorted(mcp["mcpServers"])[:10]:
    server = mcp["mcpServers"][name]
    if "args" in server:
        server["args"][-1] = server["args"][-1] + "-1"
json.dump(mcp, open(f"{root}/.mcp.json", "w"), indent=2)
PY
"$capc" lock "$work/old" >/dev/null 2>&1
"$capc" lock "$work/new" >/dev/null 2>&1
mv "$work/old/capabilities.lock" "$work/old.lock"
mv "$work/new/capabilities.lock" "$work/new.lock"
entries=$(grep -cE '^\[\[(command|agent|mcp_server|plugin|hook|permission|pin)\]\]$' "$work/old.lock" || true)
sources=$(grep -c '^\[\[source\]\]$' "$work/old.lock" || true)
changes=$("$capc" diff "$work/old.lock" "$work/new.lock" --format json | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]; print("%d changes, %d escalations" % (s["added"]+s["removed"]+s["changed"]+s["rerouted"], s["escalations"]))')
echo "scale $scale: $entries entries and $sources sources per lock ($(( $(stat -c %s "$work/old.lock") / 1024 )) KiB); the diff finds $changes"
printf '%-8s %9s %9s %9s %9s %8s %5s\n' what "wall ms" "min ms" "max ms" "cpu ms" "RSS MiB" busy%
for what in locks folders; do
  if [[ $what == locks ]]; then args=("$work/old.lock" "$work/new.lock"); else args=("$work/old" "$work/new"); fi
  line=$(python3 "$measure" --runs "$runs" -- "$capc" diff "${args[@]}" --format json)
  for kv in $line; do printf -v "m_${kv%%=*}" '%s' "${kv#*=}"; done
  printf '%-8s %9s %9s %9s %9s %8d %5s\n' "$what" "$m_wall_ms" "$m_wall_min_ms" "$m_wall_max_ms" "$m_cpu_ms" $(( m_rss_kib / 1024 )) "$m_others_pct"
  [[ $what == locks ]] && verdict=$(awk -v ms="$m_wall_ms" 'BEGIN { print (ms < 500) ? "holds" : "MISSED" }') && locks_ms=$m_wall_ms
done
echo "target: diff of two scale-$scale locks under 0.5 s (set for scale 1): $verdict ($locks_ms ms)"
