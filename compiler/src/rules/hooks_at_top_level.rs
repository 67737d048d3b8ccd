//! Rule `hooks-at-top-level`: hook events sit at the top level of a hooks file.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "hooks-at-top-level",
    severity: Severity::Error,
    summary: "hook events sit at the top level of a hooks file",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags event names such as `PreToolUse` written at the top level of `hooks/hooks.json` instead of inside `"hooks": { … }`.

### Why is this bad?
Claude Code reads only the `hooks` key, so these hooks never run; a guard written this way silently guards nothing.

### Example
```json
{ "PreToolUse": [ … ] }
// fix: { "hooks": { "PreToolUse": [ … ] } }
```

### Source
PEERS §8 rule 9; claude plugin validate
"##;
