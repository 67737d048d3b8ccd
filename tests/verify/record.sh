#!/usr/bin/env bash
# Records the fixture home of tests/it/verify.rs with the real Claude Code, offline: what
# `claude plugin marketplace add` and `claude plugin install` write under ~/.claude/plugins.
#
#   CLAUDE_BIN=/opt/oracle/node_modules/@anthropic-ai/claude-code-linux-x64/claude tests/verify/record.sh
#
# 1. linter-src/ becomes a git repository at /tmp/capc-verify-record/linter with two commits
#    (fixed author and dates, so the same hashes every time); the first commit's hash is
#    written as `sha` into repo-matching/remote-tools, the second into repo-drift/remote-tools.
# 2. repo-matching's two marketplaces are copied to /tmp/capc-verify-record/ and, with a
#    fresh HOME, added (`plugin marketplace add <folder>`) and their plugins installed
#    (`plugin install tool@acme-tools`, `plugin install linter@remote-tools`: a directory
#    marketplace, and a `url` source pinned by `sha`, cloned from the file:// repository).
# 3. home/.claude/plugins is replaced by what Claude Code wrote there (installed_plugins.json,
#    known_marketplaces.json, cache/), with the throwaway HOME's path written as
#    /home/capc-fixture. Nothing else is changed. Then run `CAPC_BLESS=1 cargo test --test
#    verify` to refresh the two repositories' locks, and read the diff.
set -euo pipefail
: "${CLAUDE_BIN:?set CLAUDE_BIN to the claude binary (see tests/oracle and ../shared/oracle/README.md)}"
here=$(cd "$(dirname "$0")" && pwd)
base=/tmp/capc-verify-record
rm -rf "$base"
mkdir -p "$base"

export GIT_AUTHOR_NAME=capc GIT_AUTHOR_EMAIL=capc@example.invalid GIT_COMMITTER_NAME=capc GIT_COMMITTER_EMAIL=capc@example.invalid
export GIT_AUTHOR_DATE="2026-11-01T12:00:00Z" GIT_COMMITTER_DATE="2026-11-01T12:00:00Z" GIT_CONFIG_NOSYSTEM=1
cp -r "$here/linter-src" "$base/linter"
git -C "$base/linter" init -q -b main
git -C "$base/linter" add -A
git -C "$base/linter" -c commit.gpgsign=false commit -q -m "linter 0.3.0"
sha1=$(git -C "$base/linter" rev-parse HEAD)
echo "Lint only the files changed since main." >> "$base/linter/skills/lint/SKILL.md"
export GIT_AUTHOR_DATE="2026-11-02T12:00:00Z" GIT_COMMITTER_DATE="2026-11-02T12:00:00Z"
git -C "$base/linter" -c commit.gpgsign=false commit -q -a -m "lint only what changed"
sha2=$(git -C "$base/linter" rev-parse HEAD)
python3 - "$here" "$sha1" "$sha2" <<'PY'
import json, sys
here, sha1, sha2 = sys.argv[1:]
for repo, sha in (("repo-matching", sha1), ("repo-drift", sha2)):
    path = f"{here}/{repo}/remote-tools/.claude-plugin/marketplace.json"
    data = json.load(open(path))
    data["plugins"][0]["source"]["sha"] = sha
    open(path, "w").write(json.dumps(data, indent=2) + "\n")
PY

cp -r "$here/repo-matching/acme-tools" "$here/repo-matching/remote-tools" "$base/"
home=$(mktemp -d)
run() {
  env -i PATH="$PATH" HOME="$home" DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 NO_COLOR=1 CI=1 \
    timeout 120 unshare -n -r "$CLAUDE_BIN" "$@"
}
(cd "$base" && run plugin marketplace add "$base/acme-tools" && run plugin install tool@acme-tools \
  && run plugin marketplace add "$base/remote-tools" && run plugin install linter@remote-tools)

rm -rf "$here/home"
mkdir -p "$here/home/.claude/plugins"
cp "$home/.claude/plugins/installed_plugins.json" "$home/.claude/plugins/known_marketplaces.json" "$here/home/.claude/plugins/"
cp -r "$home/.claude/plugins/cache" "$here/home/.claude/plugins/"
find "$here/home" -name .in_use -prune -exec rm -rf {} +
sed -i "s|$home|/home/capc-fixture|g" "$here/home/.claude/plugins/installed_plugins.json" "$here/home/.claude/plugins/known_marketplaces.json"
rm -rf "$home"
echo "recorded: $(cd "$here/home" && find . -type f | sort | tr '\n' ' ')"
