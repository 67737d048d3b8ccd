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

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. for a subagent outside a plugin, which Claude Code refuses. A warning for skills, commands and plugin agents: they load with their metadata dropped.

### Example
```markdown
---
description: |
  text
model: a: b
---
```

### Source
https://code.claude.com/docs/en/skills (troubleshooting); `claude plugin validate` and the plugin loader of Claude Code 2.1.332, measured (see "Checked against Claude Code itself" in capc's README)
"##;
