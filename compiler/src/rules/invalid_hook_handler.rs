//! Rule `invalid-hook-handler`: a hook handler with an unknown type or without its required field.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-hook-handler",
    severity: Severity::Error,
    summary: "a hook handler with an unknown type or without its required field",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Checks each handler: `type` must be `command`, `http`, `mcp_tool`, `prompt` or `agent`, with `command`, `url`, `server`+`tool` or `prompt` respectively.

### Why is this bad?
Claude Code fails the whole hooks file on a bad handler, disabling every hook in it.

### Example
```json
{ "type": "webhook", "url": "https://…" }
```

### Source
D:hooks; PEERS §8 rule 11
"##;
