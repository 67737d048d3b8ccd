//! Rule `unknown-mcp-server-type`: an MCP server type Claude Code does not know.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-mcp-server-type",
    severity: Severity::Error,
    summary: "an MCP server type Claude Code does not know",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `type` values other than `stdio`, `http`, `streamable-http`, `sse` and `ws`.

### Why is this bad?
Claude Code skips the server (`unknown MCP server type "websocket"`).

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code skips the server.

### Example
```json
{ "type": "websocket", "url": "wss://…" }
```

### Source
https://code.claude.com/docs/en/mcp
"##;
