//! Rule `ignored-plugin-claude-md`: a plugin ships a CLAUDE.md at its root.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "ignored-plugin-claude-md",
    severity: Severity::Warning,
    summary: "a plugin ships a CLAUDE.md at its root",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a `CLAUDE.md` at the root of a plugin that is not also a project.

### Why is this bad?
Claude Code never loads a plugin's CLAUDE.md as context; instructions meant for the model belong in a skill or agent.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The plugin loads; its CLAUDE.md is not read.

### Example
```text
my-plugin/CLAUDE.md
```

### Source
https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/memory
"##;
