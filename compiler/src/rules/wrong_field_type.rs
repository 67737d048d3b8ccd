//! Rule `wrong-field-type`: a recognised field has the wrong type.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "wrong-field-type",
    severity: Severity::Error,
    summary: "a recognised field has the wrong type",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags fields whose value has the wrong JSON or YAML type: `author` must be an object, `repository` a string, `keywords` an array, `dependencies` an array, frontmatter booleans booleans, and so on; in settings files, every key Claude Code's settings schema types, at every level (`cleanupPeriodDays` a number, `statusLine.padding` a number, `permissions.allow` an array), in the words of Claude Code's own notice (`Expected number, but received string`).

### Why is this bad?
Claude Code fails the load of a plugin manifest with a wrongly typed field; in frontmatter the field is dropped; a settings file with a wrongly typed value is refused whole (its permission rules, hooks and every other setting), except for the keys Claude Code skips when their value is wrong (`teammateMode`), where only that entry goes.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code refuses a plugin manifest with a wrongly typed field. In frontmatter the field is dropped and the file loads (a warning where capc knows that), and so is a settings entry Claude Code skips (a warning).

### Example
```json
{ "author": "Jane", "keywords": "lint" }
```

### Source
https://code.claude.com/docs/en/plugins-reference; `claude plugin validate` and the plugin loader of Claude Code, measured (see "Checked against Claude Code itself" in capc's docs/reading.md)
"##;
