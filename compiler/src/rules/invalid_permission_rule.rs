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

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. A rule Claude Code cannot parse is skipped or read as a different rule, so it can never do what it says; for a deny rule that is a hole.

### Example
```json
{ "permissions": { "deny": ["Bash(rm -rf:*"] } }
// fix: "Bash(rm -rf:*)"
```

### Source
https://code.claude.com/docs/en/permissions (permission rule syntax); capc's `grammar/GRAMMAR.md`
"##;
