//! Rule `invalid-field-value`: a field holds a value Claude Code does not recognise.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "invalid-field-value",
    severity: Severity::Warning,
    summary: "a field holds a value Claude Code does not recognise",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Checks enumerations and formats: `effort`, `context`, `shell`, agent `permissionMode`, `color`, `memory`, `isolation`, `omitClaudeMd` (only `true` turns it on), settings `defaultMode` and every other enumeration of Claude Code's settings schema (`worktree.baseRef`, `statusLine.type`, …), semver `version`, `enabledPlugins` keys, skills no one can invoke, and `allowedMcpServers`/`deniedMcpServers` entries (exactly one of `serverName`, `serverCommand`, `serverUrl`; an error).

### Why is this bad?
Claude Code ignores unknown values, so the setting silently has no effect; a malformed MCP policy entry is ignored (the rest of the settings file loads), so it never matches.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The file loads; the value is ignored, so the setting has no effect. A subagent `color` Claude Code does not know (`magenta`) is an info unless it is near a known one (`gren`): Claude Code drops it silently and the agent works as written, in the default color. A malformed MCP policy entry (it can never match), and a settings `defaultMode` that is not one of Claude Code's modes (`allowEdits`) or any other settings value outside its schema's enumeration, are errors: the latter refuse the whole settings file (its rules and hooks too), so capc declares nothing from it.

### Example
```markdown
---
effort: extreme     # one of low, medium, high, xhigh, max
---
```

### Source
https://code.claude.com/docs/en/skills; https://code.claude.com/docs/en/sub-agents; https://code.claude.com/docs/en/settings
"##;
