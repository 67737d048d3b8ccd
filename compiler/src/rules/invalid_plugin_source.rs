//! Rule `invalid-plugin-source`: a marketplace entry's source cannot be resolved.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-plugin-source",
    severity: Severity::Error,
    summary: "a marketplace entry's source cannot be resolved",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Checks each entry's `source`: a relative path must start with `./`, contain no `..` and name a folder that exists; an object source needs a known kind (`github`, `url`, `git-subdir`, `npm`, `archive`, `command`) with its required fields, a 40-hex `sha` and an https `archive` URL.

### Why is this bad?
Claude Code cannot install the plugin.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. Claude Code cannot install the plugin.

### Example
```json
{ "name": "fmt", "source": "plugins/fmt" }
// fix: "source": "./plugins/fmt"
```

### Source
https://code.claude.com/docs/en/plugin-marketplaces (plugin sources)
"##;
