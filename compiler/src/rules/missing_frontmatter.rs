//! Rule `missing-frontmatter`: a skill or agent without frontmatter, or a `---` block never closed.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "missing-frontmatter",
    severity: Severity::Warning,
    summary: "a skill or agent without frontmatter, or a `---` block never closed",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags skills and agents with no frontmatter, frontmatter whose closing `---` line is missing, and empty files. A subagent outside a plugin without frontmatter is an error, because Claude Code skips it.

### Why is this bad?
Without frontmatter a skill has no description (the model guesses from the body) and a subagent has no name; an unclosed block turns the fields into prompt text.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. A skill without frontmatter loads without a description. An error for a subagent outside a plugin, which Claude Code skips.

### Example
```markdown
---
name: reviewer
description: Reviews code
(no closing ---)
```

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/sub-agents; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
