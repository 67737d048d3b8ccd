//! Rule `unknown-hook-event`: a hook event that does not exist.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-hook-event",
    severity: Severity::Warning,
    summary: "a hook event that does not exist",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags event names not in Claude Code's list (case-sensitive), with a suggestion. What is wrong inside such an entry is still reported, as warnings, for when its name is fixed.

In a plugin (`hooks/hooks.json`, or `hooks` inline in plugin.json, which is the event map itself, not the hooks file's shape), a key that is not an event but holds PreToolUse or PermissionRequest hooks is an error: the guard it holds cannot be loaded, and Claude Code skips the whole plugin rather than run without it. A second `hooks` level inline in plugin.json (`"hooks": {"hooks": {"PreToolUse": …}}`) is the usual cause.

### Why is this bad?
Claude Code loads the file but ignores the entry, so `onSessionStart` or `preToolUse` hooks never fire and nothing says so.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The hooks file loads; the entry is ignored. In a plugin, an unknown key holding guard hooks is an error: the plugin does not load.

### Example
```json
{ "hooks": { "preToolUse": [ … ] } }
```

### Source
https://code.claude.com/docs/en/hooks
"##;
