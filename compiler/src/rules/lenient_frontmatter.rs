//! Rule `lenient-frontmatter`: frontmatter loads only through Claude Code's lenient retry.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "lenient-frontmatter",
    severity: Severity::Info,
    summary: "frontmatter loads only through Claude Code's lenient retry",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Notes frontmatter that is not valid YAML but that Claude Code still loads, because its retry double-quotes `key: value` lines with special characters such as `: ` (in the same retry it reads each tab that starts a line as two spaces). Skills, commands and subagents are read alike.

### Why is this bad?
Strict YAML readers, other tools and older Claude Code versions (2.1.197 among them) reject the file, and the same text may break as soon as a block scalar is added.

### Severity
Info: it loads and works as written; worth knowing. Claude Code loads the file as meant; other readers and versions may not.

### Example
```markdown
---
description: Use this agent when: the user asks
---
```

### Source
https://code.claude.com/docs/en/skills; measured on Claude Code (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
