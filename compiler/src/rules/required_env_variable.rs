//! Rule `required-env-variable`: an MCP server needs an environment variable.

use super::Rule;
use crate::diagnostic::Severity;

pub static RULE: Rule = Rule {
    id: "required-env-variable",
    severity: Severity::Info,
    summary: "an MCP server needs an environment variable",
    docs: DOCS,
};

const DOCS: &str = r##"### What it does
Lists `${VAR}` references without a default in a project `.mcp.json` (`command`, `args`, `env`, `url`, `headers`): each is a variable every user must set. `${CLAUDE_PROJECT_DIR}` without a default is a warning, because Claude Code expands it before it is set.

### Why is this bad?
Unset, the reference stays as the literal text `${VAR}` and the server fails in ways that are hard to trace.

### Severity
Info: it loads and works as written; worth knowing. The server works once each user sets the variable.

### Example
```json
{ "mcpServers": { "db": { "command": "pg-mcp", "args": ["${DATABASE_URL}"] } } }
```

### Source
https://code.claude.com/docs/en/mcp (environment variable expansion)
"##;
