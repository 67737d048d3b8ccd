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

### Example
```json
{ "github": { "command": "gh-mcp" } }
// fix: { "mcpServers": { "github": { "command": "gh-mcp" } } }
```

### Source
PEERS §6, §8 rule 18
"##;
