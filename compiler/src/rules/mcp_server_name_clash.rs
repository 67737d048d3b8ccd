//! Rule `mcp-server-name-clash`: MCP server names whose tool names collide or split wrongly.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "mcp-server-name-clash",
    severity: Severity::Error,
    summary: "two MCP servers normalize to one tool prefix, or a name contains `__`",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags two different server names that become the same once every character outside `[A-Za-z0-9_-]` is replaced by `_` (`my.server` and `my_server` both give tools named `mcp__my_server__…`), as an error; and a server name containing `__`, as a warning.

### Why is this bad?
Tools are named `mcp__<server>__<tool>` and Claude Code replaces a server's tools by that prefix when the server updates, so one server's tools silently replace the other's, and a permission rule cannot tell them apart. `__` is the separator: Claude Code splits `mcp__a__b__tool` at the first `__` after the server, so rules and hooks for a server named `a__b` match the wrong thing.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. The two servers can never both be used: one's tools replace the other's. A name containing `__` is a warning: the server loads, rules and hooks for it match the wrong thing.

### Example
```json
{ "mcpServers": { "my.server": { "command": "a" }, "my_server": { "command": "b" } } }
```

### Source
https://code.claude.com/docs/en/mcp; https://code.claude.com/docs/en/permissions (MCP tool names)
"##;
