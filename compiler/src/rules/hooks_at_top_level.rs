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
Claude Code reads only the `hooks` (and `modules`) keys. A guard event (`PreToolUse`, `PermissionRequest`, `PreSkillShellCommand`) at the top level makes Claude Code 2.1.332 refuse the whole plugin; any other event there is silently ignored (a warning), and a file with events but no `hooks` key is rejected.

### Example
```json
{ "PreToolUse": [ … ] }
// fix: { "hooks": { "PreToolUse": [ … ] } }
```

### Source
PEERS §8 rule 9; claude plugin validate
"##;
