//! Rule `version-mismatch`: a marketplace entry and its plugin.json disagree on the version.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "version-mismatch",
    severity: Severity::Warning,
    summary: "a marketplace entry and its plugin.json disagree on the version",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags a marketplace entry `version` that differs from the `version` in the plugin's own plugin.json.

### Why is this bad?
plugin.json silently wins, so the marketplace advertises a version users never get.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. Both load; the entry's version is ignored (plugin.json wins).

### Example
```json
// marketplace.json: { "name": "fmt", "version": "1.2.0" }
// fmt/.claude-plugin/plugin.json: { "version": "1.3.0" }
```

### Source
https://code.claude.com/docs/en/plugin-marketplaces; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
