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

### Example
```json
{ "name": "x", "source": "./x", "strict": false, "commands": ["./commands/a.md"] }
// and x/.claude-plugin/plugin.json also sets "commands"
```

### Source
D:mkt §Strict mode
"##;
