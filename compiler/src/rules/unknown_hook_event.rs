//! Rule `unknown-hook-event`: a hook event that does not exist.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-hook-event",
    severity: Severity::Warning,
    summary: "a hook event that does not exist",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags event names not in Claude Code's list (case-sensitive), with a suggestion.

### Why is this bad?
Claude Code 2.1.332 loads the file but ignores the entry, so `onSessionStart` or `preToolUse` hooks never fire and nothing says so.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The hooks file loads; the entry is ignored.

### Example
```json
{ "hooks": { "preToolUse": [ … ] } }
```

### Source
https://code.claude.com/docs/en/hooks
"##;
