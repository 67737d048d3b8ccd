"""Drives `capc serve` with the official MCP Python SDK (PyPI `mcp`, pinned in
servers/requirements.txt), as the tests of `capc serve` in mcp_live.rs do.

    python serve_client.py PLAN_JSON stdio CAPC ARG...     # spawns `CAPC ARG...` (capc serve ...)
    python serve_client.py PLAN_JSON http URL [TOKEN]      # connects to a running server

PLAN_JSON is a list of steps; the script prints one JSON object per step on stdout, in order:
  {"op": "list_prompts"} | {"op": "list_tools"} | {"op": "list_resources"}
  {"op": "get_prompt", "name": N, "arguments": {...}}
  {"op": "call_tool", "name": N, "arguments": {...}}
  {"op": "read_resource", "uri": U}
  {"op": "write", "path": P, "text": T}      # save a file (the clock of the next "wait" starts)
  {"op": "wait", "kinds": ["prompts", ...], "timeout_ms": MS}
  {"op": "until_tools", "present": [...], "absent": [...], "timeout_ms": MS}
                                             # list tools until those are (not) listed
  {"op": "mark"}                             # forget the notifications so far (the clock starts)
  {"op": "kill", "pidfile": P}               # SIGKILL the process whose pid P holds (the clock starts)
  {"op": "answers", "with": [A, ...]}        # the answers to the next questions the server asks
                                             # (`elicitation/create`): a choice's value to accept
                                             # it, or "decline" or "cancel"; with none left, cancel
  {"op": "questions"}                        # the questions asked since the last "questions"
A plan with an "answers" step declares the elicitation capability; one without does not.
Each answer is {"ok": RESULT} or {"error": {"code": C, "message": M}}; "wait" answers with the
kinds received and the milliseconds from the last "write" or "kill"; "until_tools" with the
names listed last and whether they matched.
"""

import json
import os
import signal
import sys
import time

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

KINDS = {
    types.PromptListChangedNotification: "prompts",
    types.ToolListChangedNotification: "tools",
    types.ResourceListChangedNotification: "resources",
}


class Notifications:
    def __init__(self):
        self.seen = []
        self.event = anyio.Event()

    async def handle(self, message):
        kind = KINDS.get(type(message))
        if kind is None and hasattr(message, "root"):
            kind = KINDS.get(type(message.root))
        if kind is not None:
            self.seen.append((kind, time.monotonic()))
            self.event.set()
            self.event = anyio.Event()


class Questions:
    """Answers the server's `elicitation/create` from a queue, and keeps what was asked."""

    def __init__(self):
        self.queue = []
        self.asked = []

    async def answer(self, context, params):
        self.asked.append(params.model_dump(mode="json", by_alias=True, exclude_none=True))
        given = self.queue.pop(0) if self.queue else "cancel"
        if given in ("decline", "cancel"):
            return types.ElicitResult(action=given)
        return types.ElicitResult(action="accept", content={"answer": given})


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def step(session, notes, plan_step, clock, questions):
    op = plan_step["op"]
    if op == "answers":
        questions.queue.extend(plan_step["with"])
        return {}
    if op == "questions":
        asked, questions.asked = questions.asked, []
        return asked
    if op == "list_prompts":
        return dump(await session.list_prompts())
    if op == "list_tools":
        return dump(await session.list_tools())
    if op == "list_resources":
        return dump(await session.list_resources())
    if op == "get_prompt":
        return dump(await session.get_prompt(plan_step["name"], plan_step.get("arguments")))
    if op == "call_tool":
        return dump(await session.call_tool(plan_step["name"], plan_step.get("arguments")))
    if op == "read_resource":
        return dump(await session.read_resource(plan_step["uri"]))
    if op == "write":
        notes.seen.clear()
        with open(plan_step["path"], "w", encoding="utf-8") as f:
            f.write(plan_step["text"])
        clock[0] = time.monotonic()
        return {}
    if op == "mark":
        notes.seen.clear()
        clock[0] = time.monotonic()
        return {}
    if op == "kill":
        notes.seen.clear()
        with open(plan_step["pidfile"], encoding="utf-8") as f:
            os.kill(int(f.read().strip()), signal.SIGKILL)
        clock[0] = time.monotonic()
        return {}
    if op == "until_tools":
        present, absent = set(plan_step.get("present", [])), set(plan_step.get("absent", []))
        deadline = time.monotonic() + plan_step.get("timeout_ms", 10000) / 1000
        while True:
            names = {t.name for t in (await session.list_tools()).tools}
            matched = present <= names and not (absent & names)
            if matched or time.monotonic() >= deadline:
                return {"tools": sorted(names), "matched": matched}
            await anyio.sleep(0.1)
    if op == "wait":
        wanted = set(plan_step["kinds"])
        deadline = time.monotonic() + plan_step.get("timeout_ms", 2000) / 1000
        while not wanted <= {k for k, _ in notes.seen} and time.monotonic() < deadline:
            with anyio.move_on_after(max(deadline - time.monotonic(), 0)):
                await notes.event.wait()
        # A moment more, so a list that should not change has the time to say so.
        await anyio.sleep(0.2)
        kinds = sorted({k for k, _ in notes.seen})
        last = max((t for k, t in notes.seen if k in wanted), default=None)
        elapsed = None if last is None else round((last - clock[0]) * 1000)
        return {"kinds": kinds, "ms": elapsed}
    raise ValueError(f"unknown op {op}")


async def run(plan, streams):
    notes = Notifications()
    questions = Questions()
    asks = any(s["op"] == "answers" for s in plan)
    read, write = streams
    callback = questions.answer if asks else None
    async with ClientSession(read, write, message_handler=notes.handle, elicitation_callback=callback) as session:
        await session.initialize()
        clock = [time.monotonic()]
        for plan_step in plan:
            try:
                answer = {"ok": await step(session, notes, plan_step, clock, questions)}
            except MCPError as e:
                answer = {"error": {"code": e.error.code, "message": e.error.message}}
            print(json.dumps(answer, sort_keys=True), flush=True)


async def main():
    plan = json.loads(sys.argv[1])
    mode = sys.argv[2]
    if mode == "stdio":
        server = StdioServerParameters(command=sys.argv[3], args=sys.argv[4:])
        async with stdio_client(server) as streams:
            await run(plan, streams)
    else:
        url = sys.argv[3]
        headers = {"Authorization": f"Bearer {sys.argv[4]}"} if len(sys.argv) > 4 else None
        async with create_mcp_http_client(headers=headers) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                await run(plan, streams)


anyio.run(main)
