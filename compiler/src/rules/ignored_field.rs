//! Rule `ignored-field`: a field that Claude Code ignores in this kind of file.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "ignored-field",
    severity: Severity::Warning,
    summary: "a field that Claude Code ignores in this kind of file",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `name` and `paths` in command files, and `hooks`, `mcpServers` and `permissionMode` in a plugin's agents.

### Why is this bad?
The field looks meaningful but has no effect: a command's name comes from its file path, and plugin agents may not change hooks, servers or permission modes.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The file loads; the field is ignored. A project command's `name` equal to the name its file path gives it anyway is an info: ignoring it changes nothing.

### Example
```markdown
---
name: gsd:help      # ignored: the command is named after the file
---
```

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/sub-agents
"##;
