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

### Example
```json
{ "plugins": [ { "name": "fmt", "source": "./a" }, { "name": "fmt", "source": "./b" } ] }
```

### Source
D:mkt; FORMATS §8 rule 54
"##;
