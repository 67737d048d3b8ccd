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
Claude Code 2.1.332 ignores such a handler (measured with `claude plugin validate` and the plugin loader), so the hook silently never runs.

### Example
```json
{ "type": "webhook", "url": "https://…" }
```

### Source
D:hooks; PEERS §8 rule 11
"##;
