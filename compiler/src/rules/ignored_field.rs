//! Rule `ignored-field`: a field that Claude Code ignores in this kind of file.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "ignored-field",
    severity: Severity::Warning,
    summary: "a field that Claude Code ignores in this kind of file",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `name` and `paths` in command files, `hooks`, `mcpServers` and `permissionMode` in a plugin's agents, and a settings key written in a settings file where Claude Code ignores it: a policy switch that counts only in managed settings (`allowManagedHooksOnly`, `allowManagedPermissionRulesOnly`, `strictKnownMarketplaces`, …) in user, project or local settings, or a key Claude Code reads only from trusted files (`processWrapper`) in a project's settings. Which keys count where comes from Claude Code's settings schema (capc's docs/reading.md).

### Why is this bad?
The field looks meaningful but has no effect: a command's name comes from its file path, plugin agents may not change hooks, servers or permission modes, and a project cannot switch on its own organization's policy (with `allowManagedHooksOnly: true` in `.claude/settings.json`, the project's hooks still run).

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The file loads; the field is ignored. A project command's `name` equal to the name its file path gives it anyway is an info: ignoring it changes nothing.

### Example
```markdown
---
name: gsd:help      # ignored: the command is named after the file
---
```

```json
{ "allowManagedHooksOnly": true }
```
in `.claude/settings.json`: ignored; only managed settings set it.

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/plugins-reference; https://code.claude.com/docs/en/sub-agents
"##;
