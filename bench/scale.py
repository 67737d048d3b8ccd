#!/usr/bin/env python3
"""Peak memory and time of `capc check`, `capc lock`, `capc serve` and `capc lsp` on a large
generated tree (the standard library only):

    bench/scale.py [--capc BIN] [--scale F] [--tree DIR] [--keep] [--bound-mib N] [--only CMD,…]

Generates a `bench/gen-tree.py --scale F` tree (default 8.2: 100,012 files; 10 is the 122,003
files of issue #43's first figures) in a temporary folder (or DIR), then runs, one after the
other, each whole process:

- check: `capc check TREE --format json` (output discarded), under `/usr/bin/time -v`;
- lock: `capc lock TREE` (writes TREE/capabilities.lock), under `/usr/bin/time -v`;
- lock-check: `capc lock --check TREE`, comparing that lock with the tree (it is fresh),
  under `/usr/bin/time -v`;
- serve: `capc serve TREE`, serving that lock: `initialize`, then `tools/list`,
  `prompts/list` and `resources/list`, each answered, every page (`nextCursor` followed to the
  end, as Claude Code's client reads a list); time to the last answer, peak from
  /proc/PID/status (VmHWM) before it is told to stop;
- serve-tree: `capc serve --tree TREE`, serving the files without a lock (a whole check at
  start): the same requests;
- lsp: `capc lsp` initialized on TREE, one skill opened and its diagnostics waited for (the
  whole workspace checked once), then 20 edits of its body, each waited for; time to the
  first diagnostics, peak (VmHWM) after the edits, and each edit's time to its diagnostics;
- lsp-description: the same with 4 edits of the skill's description, each longer, which the
  cross-file stage reads (each runs it again, and changes every `listing-budget` message).

Prints a `key=value` line per command (`peak_mib`, `seconds`; for the lsp, `edits_s`, the
fastest and slowest edit) and exits 1 when a peak is over
the bound docs/performance.md states (`--bound-mib`, 150 MiB). Times are wall times on
whatever else the machine runs: compare them only with a baseline taken in the same run.
The tree is removed at the end unless `--keep` or `--tree` is given.
"""
import argparse
import json
import os
import pathlib
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import lspclient

HERE = pathlib.Path(__file__).resolve().parent


def timed(cmd):
    """Runs `cmd` under /usr/bin/time -v: (exit code, peak KiB, seconds)."""
    started = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    # time -v reports the command's own status as "Exit status: N".
    status = re.search(r"Exit status: (\d+)", proc.stderr)
    return (int(status.group(1)) if status else proc.returncode), int(peak.group(1)) if peak else 0, seconds


def hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


class Lines:
    """A server speaking newline-delimited JSON-RPC on stdio (`capc serve`)."""

    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.inbox = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.inbox.put(json.loads(line))
        self.inbox.put(None)

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params=None, timeout=600):
        self.next_id += 1
        asked = self.next_id
        self.send({"jsonrpc": "2.0", "id": asked, "method": method, "params": params or {}})
        deadline = time.perf_counter() + timeout
        while True:
            message = self.inbox.get(timeout=max(0.1, deadline - time.perf_counter()))
            if message is None:
                raise SystemExit(f"the server ended before answering {method}")
            if message.get("id") == asked and "method" not in message:
                if "error" in message:
                    raise SystemExit(f"{method}: {message['error']}")
                return message["result"]


def serve(capc, tree, args):
    started = time.perf_counter()
    server = Lines([capc, "serve", *args, str(tree)])
    server.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "scale", "version": "1"}})
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for method in ("tools/list", "prompts/list", "resources/list"):
        # Every page, as Claude Code's client reads a list: its `nextCursor` followed to the end.
        params = {}
        while True:
            result = server.request(method, params)
            if "nextCursor" not in result:
                break
            params = {"cursor": result["nextCursor"]}
    seconds = time.perf_counter() - started
    peak = hwm(server.proc.pid)
    server.proc.stdin.close()
    server.proc.wait(timeout=60)
    return peak, seconds


def lsp(capc, tree, edits=20, description=False):
    started = time.perf_counter()
    client = lspclient.Client([capc, "lsp"])
    root = tree.resolve()
    client.initialize(root)
    skill = root / ".claude/skills/review-0/SKILL.md"
    text = skill.read_text()
    uri = skill.as_uri()

    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}})
    client.wait(lspclient.published(uri, 1))
    seconds = time.perf_counter() - started
    times = []
    for version in range(2, edits + 2):
        if description:
            # Longer at each edit, as typing makes it: the listing's size changes, and with it
            # the message of every `listing-budget` finding (sent again, file by file).
            edited = text.replace("description: ", "description: " + "Revised. " * (version - 1), 1)
        else:
            edited = text + f"\nStep {version}.\n"
        edit_started = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"text": edited}]})
        client.wait(lspclient.published(uri, version))
        times.append(time.perf_counter() - edit_started)
    peak = hwm(client.proc.pid)
    client.shutdown(timeout=60)
    return peak, seconds, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--capc", default=str(HERE.parent / "target/release/capc"))
    ap.add_argument("--scale", type=float, default=8.2)
    ap.add_argument("--tree", help="generate the tree here (kept) instead of a temporary folder")
    ap.add_argument("--keep", action="store_true", help="keep the generated tree")
    ap.add_argument("--reuse", action="store_true", help="use the tree at --tree as it is")
    ap.add_argument("--bound-mib", type=float, default=150)
    ap.add_argument("--only", default="check,lock,lock-check,serve,serve-tree,lsp,lsp-description")
    a = ap.parse_args()
    only = a.only.split(",")
    tree = pathlib.Path(a.tree) if a.tree else pathlib.Path(tempfile.mkdtemp(prefix="capc-scale-")) / "tree"
    try:
        if not a.reuse:
            subprocess.run([sys.executable, str(HERE / "gen-tree.py"), str(tree), "--scale", str(a.scale)], check=True)
        files = sum(len(f) for _, _, f in os.walk(tree))
        print(f"tree={tree} files={files} scale={a.scale}")
        results = {}
        if "check" in only:
            code, peak, seconds = timed([a.capc, "check", str(tree), "--format", "json"])
            results["check"] = (peak, seconds, code)
        if "lock" in only or "lock-check" in only or "serve" in only:
            code, peak, seconds = timed([a.capc, "lock", str(tree)])
            if code != 0:
                raise SystemExit(f"capc lock exited {code}")
            if "lock" in only:
                results["lock"] = (peak, seconds, code)
        if "lock-check" in only:
            code, peak, seconds = timed([a.capc, "lock", "--check", str(tree)])
            if code != 0:
                raise SystemExit(f"capc lock --check exited {code}: the lock just written is not fresh")
            results["lock-check"] = (peak, seconds, code)
        if "serve" in only:
            peak, seconds = serve(a.capc, tree, [])
            results["serve"] = (peak, seconds, 0)
        if "serve-tree" in only:
            peak, seconds = serve(a.capc, tree, ["--tree"])
            results["serve-tree"] = (peak, seconds, 0)
        edits = {}
        if "lsp" in only:
            peak, seconds, edits["lsp"] = lsp(a.capc, tree)
            results["lsp"] = (peak, seconds, 0)
        if "lsp-description" in only:
            peak, seconds, edits["lsp-description"] = lsp(a.capc, tree, edits=4, description=True)
            results["lsp-description"] = (peak, seconds, 0)
        over = []
        for name, (peak, seconds, code) in results.items():
            line = f"command={name} peak_mib={peak / 1024:.1f} seconds={seconds:.2f} exit={code}"
            if name in edits:
                line += f" edits_s={min(edits[name]):.2f}-{max(edits[name]):.2f}"
            print(line)
            if peak / 1024 > a.bound_mib:
                over.append(f"{name} {peak / 1024:.0f} MiB")
        print("bound=" + (f"met ({a.bound_mib:g} MiB)" if not over else f"exceeded ({a.bound_mib:g} MiB): " + ", ".join(over)))
        return 1 if over else 0
    finally:
        if not (a.tree or a.keep):
            shutil.rmtree(tree.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
