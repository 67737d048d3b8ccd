//! Rule `invalid-permission-rule`: a permission rule that does not parse.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-permission-rule",
    severity: Severity::Error,
    summary: "a permission rule that does not parse",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Parses every permission rule — `permissions.allow`, `ask` and `deny` in settings, `allowed-tools` and `disallowed-tools` in skills and commands, `tools` and `disallowedTools` in subagents, a hook's `if` — with capc's grammar, and points at the exact character where a rule goes wrong: an unclosed `(`, text after `)`, an empty tool name.

### Why is this bad?
Claude Code skips a rule it cannot parse (or reads it as a different rule), so an intended deny silently denies nothing.

### Example
```json
{ "permissions": { "deny": ["Bash(rm -rf:*"] } }
// fix: "Bash(rm -rf:*)"
```

### Source
D:perm §Permission rule syntax; grammar/GRAMMAR.md
"##;
