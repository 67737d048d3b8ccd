//! Rule `invalid-name`: a plugin or marketplace name Claude Code cannot load.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-name",
    severity: Severity::Error,
    summary: "a plugin or marketplace name Claude Code cannot load",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags plugin names (in plugin.json or a marketplace entry) and marketplace names that contain spaces or characters other than letters, digits, `.`, `_` and `-`, or that do not start with a letter or digit.

### Why is this bad?
The name is part of every plugin id (`name@marketplace`). Claude Code refuses such a plugin.json ("Failed to load plugin"), drops such a marketplace entry, and refuses to add such a marketplace ("Invalid schema").

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses the plugin.json, drops the marketplace entry, or refuses to add the marketplace.

### Example
```json
{ "name": "Release Tools" }
// fix: { "name": "release-tools" }
```

### Source
https://code.claude.com/docs/en/plugin-marketplaces; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
