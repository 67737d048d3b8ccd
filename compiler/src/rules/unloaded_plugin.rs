//! Rule `unloaded-plugin`: a plugin folder that no session loads.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unloaded-plugin",
    severity: Severity::Info,
    summary: "a plugin folder that nothing lists or enables",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Reports a plugin folder (one with `.claude-plugin/plugin.json`) that no marketplace in the check lists, no `--plugin-dir` names and no `enabledPlugins` entry reaches. capc still checks the plugin on its own, as `claude plugin validate` would, and records what it holds in `capabilities.lock`; it just never reaches a session.

### Why is this bad?
Usually it is not: old copies kept under `backups/`, a plugin being written, a fixture. But a plugin someone meant to ship and forgot to list in `marketplace.json` is invisible to every user of the marketplace, and nothing else says so.

### Severity
Info: it loads and works as written; worth knowing. Nothing fails; the plugin just never reaches a session.

### Example
```text
.claude-plugin/marketplace.json     lists ./plugins/review
plugins/review/.claude-plugin/plugin.json
backups/review-old/.claude-plugin/plugin.json   ← never loads
```

### Source
https://code.claude.com/docs/en/plugins; https://code.claude.com/docs/en/plugin-marketplaces (behaviour of Claude Code)
"##;
