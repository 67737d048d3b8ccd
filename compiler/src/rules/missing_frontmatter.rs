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

### Example
```markdown
---
name: reviewer
description: Reviews code
(no closing ---)
```

### Source
D:agents; claude plugin validate 2.1.332
"##;
