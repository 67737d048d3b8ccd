//! Rule `unreadable-file`: a declaration file cannot be read as text.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unreadable-file",
    severity: Severity::Error,
    summary: "a declaration file cannot be read as text",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags declaration files that cannot be opened, are not valid UTF-8, or contain NUL bytes.

### Why is this bad?
Claude Code cannot read them either; a binary file named `SKILL.md` is usually a mistake.

### Example
```text
skills/logo/SKILL.md   # actually a PNG
```

### Source
capc
"##;
