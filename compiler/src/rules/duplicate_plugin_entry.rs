//! Rule `duplicate-plugin-entry`: a marketplace lists the same plugin name twice.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "duplicate-plugin-entry",
    severity: Severity::Error,
    summary: "a marketplace lists the same plugin name twice",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a plugin `name` that appears in more than one entry of a marketplace's `plugins` array.

### Why is this bad?
Claude Code rejects the marketplace: `Duplicate plugin name "x" found in marketplace`.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses the whole marketplace.

### Example
```json
{ "plugins": [ { "name": "fmt", "source": "./a" }, { "name": "fmt", "source": "./b" } ] }
```

### Source
https://code.claude.com/docs/en/plugin-marketplaces
"##;
