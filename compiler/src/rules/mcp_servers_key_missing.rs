//! Rule `mcp-servers-key-missing`: a project .mcp.json without the mcpServers wrapper.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "mcp-servers-key-missing",
    severity: Severity::Error,
    summary: "a project .mcp.json without the mcpServers wrapper",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a project `.mcp.json` that lists servers at the top level (the flat form that only plugins accept).

### Why is this bad?
Claude Code reads no server from it (`mcpServers: Invalid input: expected record`).

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code reads no server from the file.

### Example
```json
{ "github": { "command": "gh-mcp" } }
// fix: { "mcpServers": { "github": { "command": "gh-mcp" } } }
```

### Source
https://code.claude.com/docs/en/mcp (project scope); measured on Claude Code (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
