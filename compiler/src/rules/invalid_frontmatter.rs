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
Flags frontmatter that is not valid YAML even after Claude Code's lenient retry (which quotes `key: value` lines holding special characters and reads each tab that starts a line as two spaces), or that is not a mapping, or that is nested deeper than 128 levels (flow brackets and block indentation together; capc refuses it before parsing, because YAML readers take time quadratic in that nesting).

### Why is this bad?
Claude Code then loads a skill or command with empty metadata (no description, no allowed-tools) and skips a subagent; nothing tells the author.

### Severity
Error: `claude plugin validate` rejects the file (`"success": false`) whatever its kind, so a plugin that passes `capc check` also passes the marketplace's own check. At run time Claude Code skips a subagent outside a plugin, and loads skills, commands and plugin agents with their metadata dropped (the message says which); the lock records exactly that, so `capc lock` writes it and names the error, as it does for every error Claude Code's loader survives. Frontmatter nested too deeply for capc to parse still keeps `capc lock` from writing, since capc cannot tell what Claude Code reads of it.

### Example
```markdown
---
description: |
  text
model: a: b
---
```

### Source
https://code.claude.com/docs/en/skills (troubleshooting); `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
