//! Rule `reserved-name`: a name Claude Code reserves.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule =
    Rule { id: "reserved-name", severity: Severity::Error, summary: "a name Claude Code reserves", docs: DOCS };

const DOCS: &str = r##"### What it does
Flags plugin and marketplace names reserved for Anthropic (`claude-…`, `anthropic-…`, `claude-plugins-official`, …), reserved MCP server names (`workspace`, `computer-use`, …) and the skill folder `synced`.

### Why is this bad?
Claude Code refuses or skips the declaration.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses or skips the declaration. A plugin name that only reads as Anthropic's is a warning (`claude plugin validate` warns).

### Example
```json
{ "name": "claude-helper" }
```

### Source
https://code.claude.com/docs/en/plugin-marketplaces; https://code.claude.com/docs/en/mcp; https://code.claude.com/docs/en/skills
"##;
