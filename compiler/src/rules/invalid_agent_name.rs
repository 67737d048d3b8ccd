//! Rule `invalid-agent-name`: a subagent name that Claude Code refuses.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-agent-name",
    severity: Severity::Error,
    summary: "a subagent name that Claude Code refuses",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags agent names that contain `:`, start with `-` or are empty.

### Why is this bad?
Claude Code skips such agents with only a debug-log entry.

### Example
```markdown
---
name: review:security
---
```

### Source
D:agents (v2.1.218+)
"##;
