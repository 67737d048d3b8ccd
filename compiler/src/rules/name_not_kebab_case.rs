//! Rule `name-not-kebab-case`: a plugin or marketplace name is not kebab-case.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "name-not-kebab-case",
    severity: Severity::Info,
    summary: "a plugin or marketplace name is not kebab-case",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags plugin and marketplace names that Claude Code loads but that are not lowercase letters, digits and single hyphens (`ReleaseTools`, `release_tools`). Names it cannot load at all are `invalid-name`.

### Why is this bad?
`claude plugin validate` warns, Claude Desktop rejects some such names, and the name becomes every command's namespace (`/My Plugin:x`).

### Severity
Info: it loads and works as written; worth knowing. Claude Code loads the name; `claude plugin validate` warns and other clients may refuse it.

### Example
```json
{ "name": "My_Plugin" }
```

### Source
https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/plugin-marketplaces
"##;
