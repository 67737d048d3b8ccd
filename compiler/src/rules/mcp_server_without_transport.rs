//! Rule `mcp-server-without-transport`: an MCP server has neither a command nor a URL.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "mcp-server-without-transport",
    severity: Severity::Error,
    summary: "an MCP server has neither a command nor a URL",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags stdio servers without `command`, remote servers without `url`, and servers with a `url` but no `type` (read as stdio).

### Why is this bad?
Claude Code skips the server: `MCP server "x" has a "url" but no "type"` or `command: expected string`.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code skips the server: it can never connect.

### Example
```json
{ "mcpServers": { "api": { "url": "https://api.example.com/mcp" } } }
// fix: add "type": "http"
```

### Source
https://code.claude.com/docs/en/mcp
"##;
