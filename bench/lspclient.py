"""The language-server client the benchmarks share (lsp.py, lsp-soak.py, scale.py): a process
speaking LSP's Content-Length framing on stdio, driven with the standard library only (no
pytest-lsp), its output read on a thread of its own so that each message's arrival is timed as
it comes."""

import json
import os
import queue
import subprocess
import threading
import time


class Client:
    """A language server on stdio (`capc lsp`). Requests the server makes are answered null;
    `timeout` is how long a wait is, in seconds, unless the wait names its own."""

    def __init__(self, cmd, timeout=600.0):
        self.timeout = timeout
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        # (arrival time, message), then None once the server's output ends.
        self.inbox = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length)
            self.inbox.put((time.perf_counter(), json.loads(body)))

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        """Sends a request; its id (the answer is for `wait`)."""
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def ask(self, method, params, timeout=None):
        """Sends a request and waits for its answer: its result (exits on an error)."""
        asked = self.request(method, params)
        answer = self.wait(lambda m: m.get("id") == asked and "method" not in m, timeout)
        if "error" in answer:
            raise SystemExit(f"{method}: {answer['error']}")
        return answer.get("result")

    def wait_at(self, predicate, timeout=None):
        """The first message `predicate` accepts, and when it arrived (`time.perf_counter()`).
        `TimeoutError` when none comes in `timeout` seconds; exits when the server ends."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no answer in {timeout:.0f} s")
            try:
                arrived = self.inbox.get(timeout=left)
            except queue.Empty:
                raise TimeoutError(f"no answer in {timeout:.0f} s") from None
            if arrived is None:
                raise SystemExit("the language server ended")
            at, message = arrived
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
                continue
            if predicate(message):
                return at, message

    def wait(self, predicate, timeout=None):
        """The first message `predicate` accepts (see `wait_at`)."""
        return self.wait_at(predicate, timeout)[1]

    def initialize(self, root):
        """`initialize` for the workspace folder `root` (a resolved path), answered, then
        `initialized`; the server's capabilities."""
        result = self.ask("initialize", {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        })
        self.notify("initialized", {})
        return result

    def shutdown(self, timeout=60):
        """`shutdown`, answered, then `exit`; waits for the process to end."""
        self.ask("shutdown", None)
        self.notify("exit", None)
        self.proc.wait(timeout=timeout)


def published(uri, version=None):
    """Accepts the `publishDiagnostics` of `uri` (of that version, when one is given)."""

    def accept(message):
        if message.get("method") != "textDocument/publishDiagnostics" or message["params"]["uri"] != uri:
            return False
        return version is None or message["params"].get("version") == version

    return accept
