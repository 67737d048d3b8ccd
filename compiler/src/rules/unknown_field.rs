//! Rule `unknown-field`: a field Claude Code does not know.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule =
    Rule { id: "unknown-field", severity: Severity::Warning, summary: "a field Claude Code does not know", docs: DOCS };

const DOCS: &str = r##"### What it does
Flags unknown fields in plugin.json, marketplace entries, frontmatter, MCP servers, hooks and settings, with a did-you-mean suggestion; fields that belong elsewhere (`category` in plugin.json) say where.

### Why is this bad?
Claude Code ignores unknown fields, so a misspelt `mcp_servers` silently declares nothing.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The file loads; the field is ignored.

### Example
```json
{ "mcp_servers": { … } }   // did you mean `mcpServers`?
```

### Source
https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/settings; `claude plugin validate` and the plugin loader of Claude Code 2.1.332, measured (see "Checked against Claude Code itself" in capc's README)
"##;
