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

### Example
```json
{ "commands": ["./commands/deploy.md"] }   // file absent
```

### Source
claude plugin validate 2.1.332
"##;
