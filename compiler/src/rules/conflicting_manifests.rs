//! Rule `conflicting-manifests`: a non-strict marketplace entry and its plugin.json both declare components.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "conflicting-manifests",
    severity: Severity::Error,
    summary: "a non-strict marketplace entry and its plugin.json both declare components",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a marketplace entry with `"strict": false` whose plugin also declares components in its own `plugin.json`.

### Why is this bad?
With `strict: false` the marketplace entry is the whole definition; Claude Code fails the load with "conflicting manifests" when plugin.json declares components too.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code fails the plugin's load with "conflicting manifests".

### Example
```json
{ "name": "x", "source": "./x", "strict": false, "commands": ["./commands/a.md"] }
// and x/.claude-plugin/plugin.json also sets "commands"
```

### Source
https://code.claude.com/docs/en/plugin-marketplaces (strict mode)
"##;
