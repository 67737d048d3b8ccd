//! Rule `duplicate-key`: a JSON or YAML key appears twice in one object.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "duplicate-key",
    severity: Severity::Warning,
    summary: "a JSON or YAML key appears twice in one object",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a key written more than once in the same object, including an MCP server defined twice.

### Why is this bad?
Claude Code (JavaScript's `JSON.parse`) silently keeps the last value, so the first one is dead and readers are misled.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The file loads; every value but the last is dropped.

### Example
```json
{ "name": "a", "name": "b" }
```

### Source
https://code.claude.com/docs/en/settings; https://code.claude.com/docs/en/mcp; measured on Claude Code (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
