//! Rule `unquoted-plugin-variable`: a path placeholder is unquoted in a shell-form hook.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unquoted-plugin-variable",
    severity: Severity::Warning,
    summary: "a path placeholder is unquoted in a shell-form hook",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `${CLAUDE_PLUGIN_ROOT}`, `${CLAUDE_PLUGIN_DATA}` and `${CLAUDE_PROJECT_DIR}` outside double quotes in a hook `command` run through the shell.

### Why is this bad?
Install paths can contain spaces; the shell then splits the path and the hook fails.

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The hook loads and works until a path holds a space; then the shell splits it and the hook fails.

### Example
```text
"command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"
// fix: "command": "\"${CLAUDE_PLUGIN_ROOT}/hooks/check.sh\""
```

### Source
https://code.claude.com/docs/en/hooks; https://code.claude.com/docs/en/plugins-reference (environment variables)
"##;
