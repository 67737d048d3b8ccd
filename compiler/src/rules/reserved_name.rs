//! Rule `reserved-name`: a name Claude Code reserves.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule =
    Rule { id: "reserved-name", severity: Severity::Error, summary: "a name Claude Code reserves", docs: DOCS };

const DOCS: &str = r##"### What it does
Flags plugin and marketplace names reserved for Anthropic (`claude-…`, `anthropic-…`, `claude-plugins-official`, …), reserved MCP server names (`workspace`, `computer-use`, …) and the skill folder `synced`.

### Why is this bad?
Claude Code refuses or skips the declaration.

### Example
```json
{ "name": "claude-helper" }
```

### Source
D:mkt; D:mcp; D:skills
"##;
