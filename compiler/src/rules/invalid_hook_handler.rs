//! Rule `invalid-hook-handler`: a hook handler with an unknown type or without its required field.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-hook-handler",
    severity: Severity::Warning,
    summary: "a hook handler with an unknown type or without its required field",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Checks each handler: `type` must be `command`, `http`, `mcp_tool`, `prompt` or `agent`, with `command`, `url`, `server`+`tool` or `prompt` respectively.

### Why is this bad?
Claude Code ignores such a handler (measured with `claude plugin validate` and the plugin loader), so the hook silently never runs.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The hooks file loads; this handler is ignored.

### Example
```json
{ "type": "webhook", "url": "https://…" }
```

### Source
https://code.claude.com/docs/en/hooks; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
