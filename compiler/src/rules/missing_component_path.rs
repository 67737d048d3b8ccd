//! Rule `missing-component-path`: a manifest path names a file or folder that does not exist.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "missing-component-path",
    severity: Severity::Error,
    summary: "a manifest path names a file or folder that does not exist",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags component paths in plugin.json or a marketplace entry that point at nothing.

### Why is this bad?
Claude Code reports a load failure; a missing MCP file is skipped without any report, so none of its servers load.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code reports a load failure, or loads none of the servers of a missing MCP file.

### Example
```json
{ "commands": ["./commands/deploy.md"] }   // file absent
```

### Source
https://code.claude.com/docs/en/plugins-reference; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
