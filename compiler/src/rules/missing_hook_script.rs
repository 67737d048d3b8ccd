//! Rule `missing-hook-script`: a hook runs a script that does not exist.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "missing-hook-script",
    severity: Severity::Error,
    summary: "a hook runs a script that does not exist",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags hook commands that name a path under `${CLAUDE_PLUGIN_ROOT}` or `$CLAUDE_PROJECT_DIR` that is not in the tree.

### Why is this bad?
The hook fails every time it fires; a failing PreToolUse guard stops guarding.

### Severity
Error: Claude Code refuses to load the file, or the declaration can never work. The hook fails every time it fires: it can never work.

### Example
```text
"command": "\"${CLAUDE_PLUGIN_ROOT}/hooks/check.sh\""   // hooks/check.sh absent
```

### Source
https://code.claude.com/docs/en/hooks; https://code.claude.com/docs/en/plugins-reference (environment variables)
"##;
