//! Rule `ignored-default-folder`: a manifest path field replaces a default folder that has files.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "ignored-default-folder",
    severity: Severity::Warning,
    summary: "a manifest path field replaces a default folder that has files",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a plugin whose manifest sets `commands`, `agents`, `workflows` or `outputStyles` while the default folder of that kind exists and is not listed.

### Why is this bad?
These fields replace the default folder, so the files in it are silently not loaded.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The plugin loads; the default folder's files are not loaded.

### Example
```json
{ "commands": ["./extra/deploy.md"] }   // and commands/review.md exists: /review is gone
```

### Source
https://code.claude.com/docs/en/plugins-reference
"##;
