//! Rule `blanket-allow`: a project pre-approves every shell command.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "blanket-allow",
    severity: Severity::Warning,
    summary: "a project pre-approves every shell command",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `Bash`, `Bash(*)`, `PowerShell` and the like in a project's `permissions.allow` and in a project skill's or command's `allowed-tools`.

### Why is this bad?
Everyone who clones the repository then runs any shell command the model writes without being asked, during that skill's turn or for the whole session.

### Example
```markdown
---
description: Run the release
allowed-tools: Bash(*)
---
```

### Source
D:perm; D:skills §allowed-tools; PEERS §8 rule 20
"##;
