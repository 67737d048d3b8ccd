//! Rule `missing-required-field`: a required field is absent.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule =
    Rule { id: "missing-required-field", severity: Severity::Error, summary: "a required field is absent", docs: DOCS };

const DOCS: &str = r##"### What it does
Flags plugin.json without `name`, marketplaces without `name`, `owner` (with `name`) or `plugins`, entries without `name` or `source`, matcher groups without `hooks`, and subagents without `name` or `description`.

### Why is this bad?
Claude Code refuses the file or, for subagents, skips it (plugin agents load under their file name: a warning).

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses the file or skips the declaration (a plugin agent without `name` loads under its file name: a warning).

### Example
```json
{ "version": "1.0.0" }   // plugin.json without "name"
```

### Source
https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/plugin-marketplaces; https://code.claude.com/docs/en/sub-agents
"##;
