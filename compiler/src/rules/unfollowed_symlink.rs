//! Rule `unfollowed-symlink`: a symbolic link capc does not follow.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unfollowed-symlink",
    severity: Severity::Warning,
    summary: "a symbolic link capc does not follow",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags links whose target leaves the checked folder, does not exist, or loops back to a folder that contains the link.

### Why is this bad?
Such a link makes a check depend on files outside the repository (or never end); installed plugins skip links that leave the plugin.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The rest loads; what the link points at is not read (an installed plugin skips it).

### Example
```text
skills/shared -> ../../other-repo/skills
```

### Source
https://code.claude.com/docs/en/plugins-reference (path behavior rules)
"##;
