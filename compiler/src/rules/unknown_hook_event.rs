//! Rule `unknown-hook-event`: a hook event that does not exist.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-hook-event",
    severity: Severity::Error,
    summary: "a hook event that does not exist",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags event names not in Claude Code's list (case-sensitive), with a suggestion.

### Why is this bad?
Unknown events are silently ignored: `onSessionStart` or `pretooluse` never fire.

### Example
```json
{ "hooks": { "preToolUse": [ … ] } }
```

### Source
D:hooks
"##;
