//! Rule `unknown-tool-in-rule`: a permission rule names a tool Claude Code does not have.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-tool-in-rule",
    severity: Severity::Warning,
    summary: "a permission rule names a tool Claude Code does not have",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags rules whose tool is not a Claude Code tool (with a did-you-mean: `bash` → `Bash`, `Webfetch` → `WebFetch`), and tool-name globs (`*`, `B*`, `mcp__*`) in allow rules and `allowed-tools`, where Claude Code ignores them. Names containing `_` are exempt, as in Claude Code.

### Why is this bad?
Tool names are case-sensitive; a rule for a misspelt tool matches nothing, so an allow never allows and a deny never denies.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The rule loads and matches nothing, or is ignored. A tool older Claude Code versions had (`LS`, `NotebookRead`, `BashOutput`, `TeamCreate`) is an info: Claude Code knows these names as tools it no longer offers and drops them silently, and the finding names the replacement where there is one. So is `MultiEdit`: Claude Code offers no tool by that name (its `Edit` edits) yet still counts it among its edit tools, so the entry loads and matches nothing.

### Example
```json
{ "permissions": { "allow": ["bash(npm test:*)"] } }
// did you mean `Bash`?
```

### Source
https://code.claude.com/docs/en/permissions; https://code.claude.com/docs/en/tools-reference
"##;
