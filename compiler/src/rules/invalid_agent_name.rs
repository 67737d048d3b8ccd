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

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses the agent.

### Example
```markdown
---
name: review:security
---
```

### Source
https://code.claude.com/docs/en/sub-agents
"##;
