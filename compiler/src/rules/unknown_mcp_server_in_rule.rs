//! Rule `unknown-mcp-server-in-rule`: a permission rule names an MCP server that is not declared.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "unknown-mcp-server-in-rule",
    severity: Severity::Warning,
    summary: "a permission rule names an MCP server that is not declared",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Flags `mcp__server…` rules whose server no `.mcp.json`, plugin or managed MCP file in the check declares (plugin servers are named `plugin_<plugin>_<server>`).

### Why is this bad?
The rule matches nothing until such a server exists; usually the server was renamed or the rule misspells it. A server declared only in `~/.claude.json` is not visible to a check of the repository (use `--user-dir`).

### Severity
Warning: Claude Code loads the file, with something in it ignored or dropped. The rule loads and matches nothing until such a server exists (it may exist in a scope the check was not given).

### Example
```json
{ "permissions": { "allow": ["mcp__gihtub__get_issue"] } }   // the server is `github`
```

### Source
https://code.claude.com/docs/en/permissions (MCP); https://code.claude.com/docs/en/mcp
"##;
