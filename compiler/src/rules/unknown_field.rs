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
Warning: Claude Code loads the file, with something in it ignored or dropped. The file loads; the field is ignored. Only a probable typo (a did-you-mean) is a warning: an unknown key near no known one is custom metadata, an info, and so is a listing field (`category`, `tags`) in plugin.json. A key in Claude Code's own list of frontmatter keys is never reported in a skill, command or subagent, nor is a key of its settings schema (every key, at every level) in a settings file. In the settings objects where Claude Code keeps keys it does not know for newer releases (`permissions`, `sandbox`), only a probable typo is a warning.

### Example
```json
{ "mcp_servers": { … } }   // did you mean `mcpServers`?
```

### Source
https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/settings; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
