//! Rule `blanket-allow`: a project pre-approves every shell command.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "blanket-allow",
    severity: Severity::Info,
    summary: "a project pre-approves every shell command",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `Bash`, `Bash(*)`, `PowerShell` and the like in a project's `permissions.allow` and in a project skill's or command's `allowed-tools`.

### Why is this bad?
Everyone who clones the repository then runs any shell command the model writes without being asked, during that skill's turn or for the whole session.

### Severity
Info: it loads and works as written; worth knowing. A blanket approval is legal and does what it says; whether a team allows it is a policy, so raise it in capc.toml (`[rules] blanket-allow = "error"`) where it is forbidden.

### Example
```markdown
---
description: Run the release
allowed-tools: Bash(*)
---
```

### Source
https://code.claude.com/docs/en/permissions; https://code.claude.com/docs/en/skills (`allowed-tools`)
"##;
