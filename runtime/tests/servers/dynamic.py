"""A Python MCP server (PyPI `mcp`, pinned in requirements.txt) whose tools change at run time.

    python dynamic.py                 # stdio
    python dynamic.py http PORT       # Streamable HTTP on 127.0.0.1:PORT/mcp

Tools: `hello`, `add_tool {name}` and `remove_tool {name}`. Each change is announced both ways
a client may listen: `notifications/tools/list_changed` on the calling session (protocol
2025-11-25 and older) and an event on `subscriptions/listen` streams (2026-07-28).
"""

import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("dynamic", instructions="Tools come and go: call add_tool and remove_tool.")


async def announce(ctx: Context) -> None:
    for notify in (ctx.session.send_tool_list_changed, ctx.notify_tools_changed):
        try:
            await notify()
        except Exception:  # the other protocol's channel: not open on this session
            pass


@server.tool()
def hello() -> str:
    """Says hello."""
    return "hello"


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Adds a tool called NAME that answers its own name."""

    def made() -> str:
        return name

    server.add_tool(made, name=name, description=f"Added at run time: {name}.")
    await announce(ctx)
    return f"added {name}"


@server.tool()
async def remove_tool(name: str, ctx: Context) -> str:
    """Removes the tool called NAME."""
    server.remove_tool(name)
    await announce(ctx)
    return f"removed {name}"


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
