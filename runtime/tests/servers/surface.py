"""A Python MCP server (PyPI `mcp`, pinned in requirements.txt) that offers the tools a JSON
file lists, so a test can change what it offers between two runs:

    python surface.py TOOLS.json      # stdio

TOOLS.json is a list of `{"name", "description", "read_only"?, "destructive"?, "argument"?,
"always_load"?}`; `argument` names one string parameter the tool takes (so its input schema
changes with it); `always_load` puts `anthropic/alwaysLoad` in the tool's `_meta`.
"""

import json
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations


def made(name: str, argument: str | None):
    if argument is None:

        def tool() -> str:
            return name

        return tool

    def tool_with(**kwargs: str) -> str:
        return f"{name} {kwargs.get(argument, '')}"

    # One string parameter called ARGUMENT, for the schema the server derives.
    tool_with.__signature__ = __import__("inspect").Signature(
        [__import__("inspect").Parameter(argument, __import__("inspect").Parameter.KEYWORD_ONLY, annotation=str)]
    )
    tool_with.__annotations__ = {argument: str, "return": str}
    return tool_with


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        tools = json.load(f)
    server = MCPServer("surface")
    for t in tools:
        hints = {}
        if "read_only" in t:
            hints["readOnlyHint"] = t["read_only"]
        if "destructive" in t:
            hints["destructiveHint"] = t["destructive"]
        server.add_tool(
            made(t["name"], t.get("argument")),
            name=t["name"],
            description=t["description"],
            annotations=ToolAnnotations(**hints) if hints else None,
            meta={"anthropic/alwaysLoad": True} if t.get("always_load") else None,
        )
    server.run()


if __name__ == "__main__":
    main()
