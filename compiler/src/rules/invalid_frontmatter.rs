//! Rule `invalid-frontmatter`: frontmatter YAML that Claude Code cannot read.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-frontmatter",
    severity: Severity::Error,
    summary: "frontmatter YAML that Claude Code cannot read",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags frontmatter that is not valid YAML even after Claude Code 2.1.332's lenient retry (which quotes `key: value` lines holding special characters), or that is not a mapping, or that is nested deeper than 128 levels (flow brackets and block indentation together; capc refuses it before parsing, because YAML readers take time quadratic in that nesting).

### Why is this bad?
Claude Code then loads a skill or command with empty metadata (no description, no allowed-tools) and skips a subagent; nothing tells the author.

### Example
```markdown
---
description: |
  text
model: a: b
---
```

### Source
D:skills troubleshooting; measured with claude plugin validate 2.1.332
"##;
