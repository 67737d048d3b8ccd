#!/usr/bin/env python3
"""Times `capc serve` as MCP clients drive it, over raw JSON-RPC (the standard library only, no
MCP SDK), on one lock:

    bench/serve.py [ROOT] [--skills-from DIR]... [--lock FILE] [--capc BIN]
                   [--starts N] [--calls N] [--clients N] [--gets N] [--prompt NAME]

The lock: with `--lock FILE`, that lock is served as it is (its folder is the project root).
Otherwise ROOT (or an empty folder) is copied into a temporary folder, every folder holding a
`SKILL.md` under each `--skills-from DIR` is copied into its `.claude/skills/` (by folder name;
a name already taken is skipped), and `capc lock` writes the lock there: nothing is written into
ROOT or DIR. The tree of docs/serve.md's figures is made from checkouts of four public
repositories, K-Dense-AI/claude-scientific-skills (899a51b), obra/superpowers (44c9b2d),
EveryInc/compound-engineering-plugin (925b4ef) and anthropics/claude-plugins-official
(340e33a), in that order:

    bench/serve.py --skills-from K-DENSE --skills-from SUPERPOWERS \\
                   --skills-from COMPOUND --skills-from PLUGINS-OFFICIAL

Measured (milliseconds, as seen by this client):
- start: from starting `capc serve` (stdio) to its `initialize` reply, over N starts (median, max);
- tools/list, prompts/list: N calls each over stdio, one at a time (p50, p95, max), each from
  sending the request to having read its whole reply; `_decode` lines give, apart, the time
  this client then takes to decode the reply's JSON (Python's json module: 1-4 ms for the
  243 KB prompts/list of docs/serve.md's tree), which is the client's work, not the server's;
- prompts/get: N calls over stdio of one prompt whose text has no `!` injection (the first
  prompt, in list order, whose reply has no `[shell command not run` marker, or `--prompt`),
  with the arguments `a b c`, timed as the lists are;
- http_single: `capc serve --http 127.0.0.1:0`, endpoint /mcp: `--calls` `prompts/get` of one
  client alone, one after the other on one keep-alive connection (p50, p95, max);
- http: on the same server, N client threads, each with its own
  keep-alive connection and MCP session (`initialize`, then the `Mcp-Session-Id` header on every
  request, `Accept: application/json, text/event-stream`), each sending `--gets` `prompts/get`
  one after the other, all threads started together: p50, p95, p99, max of every call, the
  errors (an HTTP status other than 200, a JSON-RPC error, a broken connection) and the wall
  time of the whole run, and the server's CPU time (user and system) during it;
- rss: the server's peak resident set (VmHWM of /proc/PID/status) at the end of the stdio
  calls and of the HTTP run, in KiB.

Prints `key=value` lines. The clients run in this Python process, so with many threads the
GIL and the machine's cores are shared between the clients and the server: the HTTP figures are
an upper bound of the server's own latency.
"""
import argparse
import http.client
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PROTOCOL = "2025-06-18"
INIT = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench-serve", "version": "1"}}


def percentiles(times):
    ms = sorted(t * 1000 for t in times)

    def at(q):
        return ms[min(len(ms) - 1, int(q * len(ms)))]

    return f"n={len(ms)} p50_ms={statistics.median(ms):.2f} p95_ms={at(0.95):.2f} max_ms={ms[-1]:.2f}"


def cpu_s(pid):
    """The user and system CPU time the process has used, in seconds."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_kib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return -1


class Stdio:
    """`capc serve` over stdio: one JSON-RPC message a line."""

    def __init__(self, cmd):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method, params=None):
        """The reply to one request (notifications from the server are skipped)."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            line = self.proc.stdout.readline()
            # The reply is complete here; decoding it is the client's own work.
            self.received = time.perf_counter()
            if not line:
                raise RuntimeError(f"the server ended before answering {method}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id and "method" not in reply:
                return reply

    def initialize(self):
        reply = self.request("initialize", INIT)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def timed(client, method, params, n):
    """Each call's time from sending the request to having read its whole reply (the line),
    and, apart, the time this client then takes to decode it."""
    times, decoding = [], []
    for _ in range(n):
        sent = time.perf_counter()
        reply = client.request(method, params)
        times.append(client.received - sent)
        decoding.append(time.perf_counter() - client.received)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
    return times, decoding


def make_lock(capc, root, sources, tmp):
    tree = pathlib.Path(tmp) / "tree"
    if root:
        shutil.copytree(root, tree, symlinks=True)
    else:
        tree.mkdir()
    skills = tree / ".claude" / "skills"
    skills.mkdir(parents=True, exist_ok=True)
    copied, skipped = 0, 0
    for source in sources:
        for manifest in sorted(pathlib.Path(source).rglob("SKILL.md")):
            folder = manifest.parent
            target = skills / folder.name
            if target.exists():
                skipped += 1
                continue
            shutil.copytree(folder, target, symlinks=True)
            copied += 1
    print(f"tree={tree} skills_copied={copied} skills_skipped_same_name={skipped}")
    out = subprocess.run([capc, "lock", "-q", str(tree)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"capc lock failed ({out.returncode}):\n{out.stderr}")
    return tree / "capabilities.lock"


def sse_messages(body):
    """The JSON-RPC messages of a response body: plain JSON, or a text/event-stream's `data:`."""
    text = body.decode()
    if text.lstrip().startswith("{"):
        return [json.loads(text)]
    messages, data = [], []
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            joined = "\n".join(data)
            if joined.strip():
                messages.append(json.loads(joined))
            data = []
    if data and "\n".join(data).strip():
        messages.append(json.loads("\n".join(data)))
    return messages


class HttpClient:
    """One MCP session over Streamable HTTP, on one keep-alive connection."""

    def __init__(self, url):
        parts = urllib.parse.urlsplit(url)
        self.host, self.path = parts.netloc, parts.path
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self.session = None
        self.next_id = 0

    def post(self, message):
        headers = {
            "Host": self.host,
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL,
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        self.conn.request("POST", self.path, body=json.dumps(message).encode(), headers=headers)
        response = self.conn.getresponse()
        body = response.read()
        return response, body

    def request(self, method, params):
        self.next_id += 1
        response, body = self.post({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        if response.status != 200:
            raise RuntimeError(f"{method}: HTTP {response.status} {body[:200]!r}")
        for reply in sse_messages(body):
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply, response
        raise RuntimeError(f"{method}: no reply in {body[:200]!r}")

    def initialize(self):
        _, response = self.request("initialize", INIT)
        self.session = response.getheader("Mcp-Session-Id")
        response, _ = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        if response.status not in (200, 202):
            raise RuntimeError(f"notifications/initialized: HTTP {response.status}")


def http_run(capc, lock, prompt, clients, gets, calls):
    proc = subprocess.Popen([capc, "serve", "--lock", str(lock), "--http", "127.0.0.1:0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = None
    for line in proc.stderr:
        line = line.decode().strip()
        if line.startswith("capc: serving MCP on "):
            url = line[len("capc: serving MCP on "):]
            break
    if not url:
        sys.exit("capc serve --http ended before listening")
    threading.Thread(target=lambda: proc.stderr.read(), daemon=True).start()

    params = {"name": prompt, "arguments": {"arguments": "a b c"}}
    # One client alone, one call after the other on its keep-alive connection.
    single = HttpClient(url)
    single.initialize()
    times = []
    for _ in range(calls):
        sent = time.perf_counter()
        single.request("prompts/get", params)
        times.append(time.perf_counter() - sent)
    single.conn.close()
    print("http_single prompts/get", percentiles(times))

    times, errors, first_errors = [], [0], []
    lock_ = threading.Lock()
    barrier = threading.Barrier(clients + 1)

    def client():
        mine, bad = [], 0
        try:
            c = HttpClient(url)
            c.initialize()
        except Exception as e:  # noqa: BLE001 -- counted and reported
            c, bad = None, gets
            first_errors.append(repr(e))
        barrier.wait()
        if c:
            for _ in range(gets):
                sent = time.perf_counter()
                try:
                    c.request("prompts/get", params)
                    mine.append(time.perf_counter() - sent)
                except Exception as e:  # noqa: BLE001
                    bad += 1
                    if len(first_errors) < 3:
                        first_errors.append(repr(e))
                    c.conn.close()
        with lock_:
            times.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    began, cpu_before = time.perf_counter(), cpu_s(proc.pid)
    for t in threads:
        t.join()
    wall, cpu = time.perf_counter() - began, cpu_s(proc.pid) - cpu_before
    rss = peak_kib(proc.pid)
    proc.terminate()
    proc.wait()
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))] if ms else float("nan")
    print(f"http clients={clients} gets_each={gets} {percentiles(times) if ms else 'n=0'} p99_ms={p99:.2f} "
          f"errors={errors[0]} wall_s={wall:.2f} calls_per_s={len(ms) / wall:.0f} server_cpu_s={cpu:.2f}")
    for e in first_errors[:3]:
        print(f"http_error={e}")
    print(f"rss_http_peak_kib={rss}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", help="the project folder to copy (default: an empty one)")
    ap.add_argument("--skills-from", action="append", default=[], metavar="DIR",
                    help="copy every skill folder under DIR into the copy's .claude/skills (repeatable)")
    ap.add_argument("--lock", help="serve this lock instead of making one")
    ap.add_argument("--capc", default=os.environ.get("CAPC", "target/release/capc"))
    ap.add_argument("--starts", type=int, default=10)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--gets", type=int, default=100)
    ap.add_argument("--prompt", help="the prompt to get (default: the first without a `!` injection)")
    a = ap.parse_args()
    capc = str(pathlib.Path(a.capc).resolve())

    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        lock = pathlib.Path(a.lock).resolve() if a.lock else make_lock(capc, a.root, a.skills_from, tmp)
        print(f"lock={lock} lock_bytes={lock.stat().st_size}")
        cmd = [capc, "serve", "--lock", str(lock)]

        # Start to the initialize reply.
        starts = []
        for _ in range(a.starts):
            c = Stdio(cmd)
            c.request("initialize", INIT)
            starts.append(time.perf_counter() - c.started)
            c.close()
        ms = sorted(t * 1000 for t in starts)
        print(f"start n={len(ms)} p50_ms={statistics.median(ms):.1f} max_ms={ms[-1]:.1f}")

        c = Stdio(cmd)
        c.initialize()
        listed = c.request("prompts/list", {})["result"]
        prompts = [p["name"] for p in listed["prompts"]]
        tools = c.request("tools/list", {})["result"]
        skill_tool = next((t for t in tools["tools"] if t["name"] == "Skill"), {})
        print(f"prompts={len(prompts)} prompts_next_cursor={'nextCursor' in listed} tools={len(tools['tools'])} "
              f"skill_description_chars={len(skill_tool.get('description', ''))} "
              f"prompts_list_bytes={len(json.dumps(listed))}")

        for method in ("tools/list", "prompts/list"):
            times, decoding = timed(c, method, {}, a.calls)
            print(method, percentiles(times))
            print(f"{method}_decode", percentiles(decoding))

        prompt = a.prompt
        if not prompt:
            for name in prompts:
                reply = c.request("prompts/get", {"name": name, "arguments": {"arguments": "a b c"}})
                if "result" in reply and "[shell command not run" not in json.dumps(reply["result"]):
                    prompt = name
                    break
        get = {"name": prompt, "arguments": {"arguments": "a b c"}}
        reply = c.request("prompts/get", get)
        size = len(json.dumps(reply.get("result", reply.get("error"))))
        print(f"prompt={prompt} reply_bytes={size}")
        times, decoding = timed(c, "prompts/get", get, a.calls)
        print("prompts/get", percentiles(times))
        print("prompts/get_decode", percentiles(decoding))
        print(f"rss_stdio_peak_kib={peak_kib(c.proc.pid)}")
        c.close()

        http_run(capc, lock, prompt, a.clients, a.gets, a.calls)


if __name__ == "__main__":
    main()
