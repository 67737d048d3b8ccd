#!/usr/bin/env python3
"""Times `capc lsp` as an editor drives it, over a raw JSON-RPC client (the standard library
only, no pytest-lsp), on one workspace folder:

    bench/lsp.py ROOT [--capc BIN] [--edits N] [--skill REL] [--cross REL:OLD:NEW]

- start: from starting the server to the first diagnostics of a file opened right after
  `initialized` (the whole workspace checked once);
- single: N didChange edits of one skill's body (its findings and no other file's change),
  each timed from the notification to the publishDiagnostics of that version;
- cross: N didChange edits that change cross-file resolution: a saved file's text edited in
  its buffer so that a finding appears in (or leaves) another file, timed to the later of the
  edited file's publishDiagnostics and the other file's;
- rss: the server's peak resident set (VmHWM) at the end, and the bytes it read during the
  edits (`/proc/PID/io` `rchar`: every read, the client's messages on stdin included).

`--cross` names a file (relative to ROOT) and a text in it to replace, alternately, by NEW and
back (e.g. `.mcp.json:"svc-0":"svc-0x"` on a `gen-tree.py` tree, which makes settings.json's
`mcp__svc-0__read` rule name an undeclared server). Without it, the cross-file edit renames the
chosen skill's `name:` to another skill's name in the same folder.

Prints `key=value` lines: milliseconds (p50, p95, max) and KiB. Timings are the wall time seen
by this client, which reads the server's output on a thread of its own.
"""
import argparse
import os
import pathlib
import statistics
import sys
import time

from lspclient import Client, published


def percentiles(samples):
    s = sorted(samples)
    p95 = s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]
    return f"p50_ms={statistics.median(s) * 1000:.1f} p95_ms={p95 * 1000:.1f} max_ms={s[-1] * 1000:.1f} n={len(s)}"


def status(pid, key):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None


def read_bytes(pid):
    try:
        for line in open(f"/proc/{pid}/io"):
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except OSError:
        return None


def whole_range(text):
    lines = text.split("\n")
    return {"start": {"line": 0, "character": 0}, "end": {"line": len(lines) - 1, "character": len(lines[-1].encode("utf-16-le")) // 2}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root")
    ap.add_argument("--capc", default=os.environ.get("CAPC", "target/release/capc"))
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--skill", help="the skill to edit, relative to ROOT (default: the first SKILL.md)")
    ap.add_argument("--cross", help="FILE:OLD:NEW, a cross-file edit (see the module docs)")
    a = ap.parse_args()
    root = pathlib.Path(a.root).resolve()
    skill = root / a.skill if a.skill else min(root.rglob("SKILL.md"))
    skill_text = skill.read_text()

    client = Client([a.capc, "lsp"], timeout=120.0)
    pid = client.proc.pid
    client.initialize(root)
    uri = skill.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": skill_text}})
    first, _ = client.wait_at(published(uri, 1))
    print(f"start_ms={(first - client.started) * 1000:.0f} root={root}")
    before = read_bytes(pid)

    # Single-file edits: a word of the body, on and off.
    times, text, version = [], skill_text, 1
    for i in range(a.edits):
        new = skill_text + ("\nOne more step.\n" if i % 2 == 0 else "")
        version += 1
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [{"range": whole_range(text), "text": new}]})
        times.append(client.wait_at(published(uri, version))[0] - sent)
        text = new
    print("single", percentiles(times))

    # Cross-file edits.
    if a.cross:
        rel, old, new_text = a.cross.split(":", 2)
        target = root / rel
    else:
        others = sorted(p for p in skill.parent.parent.glob("*/SKILL.md") if p != skill)
        target, old, new_text = skill, None, None
        name_line = next(l for l in skill_text.split("\n") if l.startswith("name:"))
        other_name = others[0].parent.name
        old, new_text = name_line, f"name: {other_name}"
    target_text = target.read_text()
    assert old in target_text, f"{old!r} is not in {target}"
    target_uri = target.as_uri()
    if target != skill:
        client.notify("textDocument/didOpen", {"textDocument": {"uri": target_uri, "languageId": "json", "version": 1, "text": target_text}})
        client.wait(published(target_uri, 1))
        version_of = 1
        text = target_text
    else:
        version_of = version
    times = []
    for i in range(a.edits):
        new = target_text.replace(old, new_text, 1) if i % 2 == 0 else target_text
        version_of += 1
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": target_uri, "version": version_of},
                                                 "contentChanges": [{"range": whole_range(text), "text": new}]})
        # The edited file's findings and another file's: the publishes of one check arrive
        # together; the later one is the time.
        seen = {}

        def accept(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            if p["uri"] == target_uri and p.get("version") == version_of:
                seen["self"] = True
            elif p["uri"] != target_uri:
                seen["other"] = True
            return "self" in seen and "other" in seen

        try:
            times.append(client.wait_at(accept, timeout=60.0)[0] - sent)
        except TimeoutError:
            sys.exit(f"the cross-file edit of {target.relative_to(root)} changed no other file's findings "
                     "within 60 s; name an edit that does with --cross FILE:OLD:NEW")
        text = new
    print(f"cross {percentiles(times)} file={target.relative_to(root)}")
    after = read_bytes(pid)
    print(f"rss_peak_kib={status(pid, 'VmHWM')} rss_now_kib={status(pid, 'VmRSS')} read_during_edits_kib={(after - before) // 1024 if before is not None and after is not None else 'n/a'}")
    client.shutdown(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
