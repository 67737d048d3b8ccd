//! Rule `invalid-env-reference`: a `${…}` reference Claude Code cannot expand.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-env-reference",
    severity: Severity::Warning,
    summary: "a `${…}` reference Claude Code cannot expand",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `${}`, a `${` that is never closed, and names no environment can hold, in the fields of a project `.mcp.json` that Claude Code expands.

### Why is this bad?
Claude Code leaves such text as written, so the server receives `${` literally.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The server loads; the reference is left as written instead of being expanded.

### Example
```json
{ "mcpServers": { "api": { "type": "http", "url": "https://${API_HOST/mcp" } } }
```

### Source
https://code.claude.com/docs/en/mcp (environment variable expansion); capc's `grammar/GRAMMAR.md`
"##;
