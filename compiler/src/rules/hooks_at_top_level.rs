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
Claude Code reads only the `hooks` (and `modules`) keys. A guard event (`PreToolUse`, `PermissionRequest`, `PreSkillShellCommand`) at the top level makes Claude Code refuse the whole plugin; any other event there is silently ignored (a warning), and a file with events but no `hooks` key is rejected.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. A guard event at the top level makes Claude Code refuse the whole plugin, and a file with events but no `hooks` key is refused; any other event at the top level is a warning (the file loads, the entry is ignored).

### Example
```json
{ "PreToolUse": [ … ] }
// fix: { "hooks": { "PreToolUse": [ … ] } }
```

### Source
https://code.claude.com/docs/en/hooks; https://code.claude.com/docs/en/plugins-reference; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
