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
Flags fields whose value has the wrong JSON or YAML type: `author` must be an object, `repository` a string, `keywords` an array, `dependencies` an array, frontmatter booleans booleans, and so on.

### Why is this bad?
Claude Code fails the load of a plugin manifest with a wrongly typed field; in frontmatter the field is dropped.

### Example
```json
{ "author": "Jane", "keywords": "lint" }
```

### Source
D:plugins-ref; claude plugin validate 2.1.332
"##;
