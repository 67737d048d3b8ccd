#!/usr/bin/env python3
"""A soak of `capc serve`: what one server holds after many calls and many saves, over raw
JSON-RPC on stdio (the standard library only, no MCP SDK):

    bench/soak.py [--capc BIN] [--skills N] [--calls N] [--saves N] [--every N]

A temporary project of N skills (default 40; every fifth has a supporting file) is served
without a lock (`capc serve DIR`: its files, followed live). Then:

- calls: `--calls` requests (default 10,000), in turn `prompts/get` of one skill with
  arguments, a `tools/call` of the Skill tool, `tools/list`, `prompts/list`, `resources/list`
  and `resources/read` of one skill's `SKILL.md`, each answered before the next is sent;
- saves: `--saves` saves (default 1,000), each rewriting one skill's `SKILL.md` (its body, and
  every tenth its description), then waiting for the `list_changed` notification it brings
  and getting that skill's prompt, whose text must be the saved one (a request between a save
  and the reload it brings is refused as stale, so the wait is for the reload's last
  notification, `resources/list_changed`; a save seen as two writes, truncated then written,
  brings two reloads, and a request refused as stale between them is asked again after the
  next one, counted as `stale_retries`).

Every `--every` calls (and every tenth of that in saves) it samples the server from
/proc/PID: resident memory (VmRSS), its peak (VmHWM), open file descriptors and threads.
Prints `key=value` lines: the samples, then the figures docs/performance.md states, and exits
1 when a bound there is passed (resident memory after the soak more than 16 MiB over what it
was after the first 1,000 calls; more file descriptors than then; more than 2 threads more than
then: tokio's blocking pool starts a thread while one is busy and ends it after 10 s idle), so
a growth is a failure. No figure here is a timing.
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from procstat import status

PROTOCOL = "2025-06-18"


class Refused(SystemExit):
    """An error answer."""


class Server:
    """`capc serve ROOT` on stdio: requests answered in order; notifications counted."""

    def __init__(self, capc, root):
        self.proc = subprocess.Popen(
            [capc, "serve", str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0
        self.answers = {}
        self.changed = 0
        self.resources_changed = 0
        self.cond = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()
        self.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}})
        self.notify("notifications/initialized")

    def read(self):
        for line in self.proc.stdout:
            message = json.loads(line)
            with self.cond:
                if "id" in message and "method" not in message:
                    self.answers[message["id"]] = message
                elif message.get("method", "").endswith("/list_changed"):
                    self.changed += 1
                    # Sent last of a reload's notifications (prompts, tools, resources).
                    if message["method"] == "notifications/resources/list_changed":
                        self.resources_changed += 1
                self.cond.notify_all()

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def notify(self, method):
        self.send({"jsonrpc": "2.0", "method": method})

    def request(self, method, params=None):
        self.next_id += 1
        asked = self.next_id
        self.send({"jsonrpc": "2.0", "id": asked, "method": method, "params": params or {}})
        with self.cond:
            if not self.cond.wait_for(lambda: asked in self.answers, timeout=60):
                raise SystemExit(f"no answer to {method} in 60 s")
            answer = self.answers.pop(asked)
        if "error" in answer:
            raise Refused(f"{method}: {answer['error']}")
        return answer["result"]

    def wait_changed(self, seen, timeout=30):
        """Until a reload after `seen` resource notifications is announced in full: a save changes
        the saved file's hash, so every reload it brings ends with `resources/list_changed`."""
        with self.cond:
            if not self.cond.wait_for(lambda: self.resources_changed > seen, timeout=timeout):
                raise SystemExit(f"no list_changed within {timeout} s of a save")


def skill_text(i, version):
    description = f"Skill {i}, description {version // 10}"
    return f"---\ndescription: {description}\n---\nDo task {i} with $ARGUMENTS (version {version}).\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--capc", default=str(pathlib.Path(__file__).resolve().parent.parent / "target/release/capc"))
    parser.add_argument("--skills", type=int, default=40)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--saves", type=int, default=1_000)
    parser.add_argument("--every", type=int, default=1_000)
    args = parser.parse_args()
    root = pathlib.Path(tempfile.mkdtemp(prefix="capc-soak-"))
    try:
        for i in range(args.skills):
            folder = root / ".claude" / "skills" / f"task-{i}"
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(skill_text(i, 0))
            if i % 5 == 0:
                (folder / "reference.md").write_text(f"Reference for task {i}.\n")
        server = Server(args.capc, root)
        pid = server.proc.pid
        samples = [("start", 0, status(pid))]
        calls = [
            lambda n: server.request("prompts/get", {"name": f"task-{n % args.skills}", "arguments": {"arguments": f"run {n}"}}),
            lambda n: server.request("tools/call", {"name": "Skill", "arguments": {"skill": f"task-{n % args.skills}", "args": str(n)}}),
            lambda n: server.request("tools/list"),
            lambda n: server.request("prompts/list"),
            lambda n: server.request("resources/list"),
            lambda n: server.request("resources/read", {"uri": f"skill://task-{n % args.skills}/SKILL.md"}),
        ]
        for n in range(1, args.calls + 1):
            calls[n % len(calls)](n)
            if n % args.every == 0:
                samples.append(("calls", n, status(pid)))
        versions = [0] * args.skills
        stale_retries = 0
        for n in range(1, args.saves + 1):
            i = n % args.skills
            versions[i] += 1
            seen = server.resources_changed
            (root / ".claude" / "skills" / f"task-{i}" / "SKILL.md").write_text(skill_text(i, versions[i]))
            server.wait_changed(seen)
            # A save may come as two writes (truncated, then written), each seen and reloaded:
            # a request between them is refused as stale, and the next reload serves the text.
            for attempt in range(3):
                seen = server.resources_changed
                try:
                    text = server.request("prompts/get", {"name": f"task-{i}", "arguments": {"arguments": "x"}})["messages"][-1]["content"]["text"]
                    break
                except Refused as refused:
                    if "stale" not in str(refused) or attempt == 2:
                        raise
                    stale_retries += 1
                    server.wait_changed(seen)
            if f"(version {versions[i]})" not in text:
                raise SystemExit(f"save {n}: task-{i} still serves an older text")
            if n % max(1, args.every // 10) == 0:
                samples.append(("saves", n, status(pid)))
        for phase, n, s in samples:
            print(f"sample phase={phase} n={n} rss_kib={s['VmRSS']} hwm_kib={s['VmHWM']} fds={s['fds']} threads={s['Threads']}")
        base = next((s for phase, n, s in samples if phase == "calls"), samples[0][2])
        end = samples[-1][2]
        print(f"skills={args.skills} calls={args.calls} saves={args.saves} list_changed={server.changed} stale_retries={stale_retries}")
        print(f"rss_start_kib={samples[0][2]['VmRSS']} rss_after_first_calls_kib={base['VmRSS']} rss_end_kib={end['VmRSS']} hwm_end_kib={end['VmHWM']}")
        print(f"fds_after_first_calls={base['fds']} fds_end={end['fds']} threads_after_first_calls={base['Threads']} threads_end={end['Threads']}")
        failed = []
        if end["VmRSS"] > base["VmRSS"] + 16 * 1024:
            failed.append("resident memory grew by more than 16 MiB")
        if end["fds"] > base["fds"]:
            failed.append("file descriptors grew")
        if end["Threads"] > base["Threads"] + 2:
            failed.append("threads grew by more than 2")
        server.proc.stdin.close()
        server.proc.wait(timeout=30)
        print("bounds=" + ("met" if not failed else "PASSED: " + "; ".join(failed)))
        return 1 if failed else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
